// Package cache owns mcpfs's on-disk cache (Badger, in the data dir): each
// server's last raw tools/list, keyed by what identifies the server and
// never by secret values, and the results of read-only tools where the
// config opts in.
//
// It is a leaf: it must not import fs, exec, skills or cmd.
package cache
