// Package cache owns mcpfs's on-disk cache (Badger, in the data dir): each
// server's last raw tools/list, keyed by what identifies the server and
// never by secret values, and the results of read-only tools where the
// config opts in. A Store implements discovery.Cache; cmd/mcpfs opens it
// and hands it to discovery.Start.
//
// The cache is a cache: a full disk, a read-only or unwritable directory
// or another process holding it never stop mcpfs. Open then returns a
// read-only Store or an error wrapping ErrLocked or ErrUnavailable, and a
// full disk met while running turns writes off until there is room (said
// once in the log). Writes are guarded so that Badger's memory-mapped
// files never take a store the disk cannot back (guard.go). Only a cache
// Badger cannot read is set aside, and at most one such copy is kept.
//
// It is a leaf: it must not import fs, exec, skills or cmd. It imports
// discovery only for the types it stores; discovery never imports it.
package cache
