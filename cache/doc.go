// Package cache owns mcpfs's on-disk cache (Badger, in the data dir): each
// server's last raw tools/list, keyed by what identifies the server and
// never by secret values, and the results of read-only tools where the
// config opts in. A Store implements discovery.Cache; cmd/mcpfs opens it
// and hands it to discovery.Start.
//
// It is a leaf: it must not import fs, exec, skills or cmd. It imports
// discovery only for the types it stores; discovery never imports it.
package cache
