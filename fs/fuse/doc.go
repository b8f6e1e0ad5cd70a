// Package fuse mounts an mcpfs tree (a *fs.Tree) as a FUSE file system
// with go-fuse. Everything is read only (EROFS, for root too) except
// skills/ when Options.Skills is set: skill folders written there are
// validated and saved in a skills.Store (fs/internal/workcopy says when a
// save happens and what a refused one looks like), and run/ when
// Options.Run is set: a program written to run/<job>.go runs when the
// file is closed and its output is read from run/<job>.out as it comes
// (fs/internal/jobs). With Options.Search, search/ answers every name
// read in it with the ranked tools for its words (search_nodes.go).
//
// It is a thin adapter: the node types only translate FUSE requests into
// calls on the current Tree, which is swapped by Mounted.Update when the
// catalog changes, and on the kernel-free working copy of skills/ and job
// table of run/, whose files share one node type (writable.go). A handler
// never waits on an MCP server; it reads the Tree it finds. (A read of
// run/<job>.out past what its job printed waits for more or for the end,
// and stops waiting when interrupted.)
//
// Caching. The kernel caches entries, attributes and negative lookups for
// Options.CacheTimeout, and file pages across opens. Update invalidates
// exactly what changed, walking only the inodes the kernel knows about and
// skipping servers whose snapshot did not change, so an update costs in
// proportion to the change, not to the size of the tree.
//
// Inodes. A directory keeps its inode number for the life of the mount. A
// file inode is immutable: it carries the bytes it was looked up with, so
// its size always equals the bytes it serves and an open file keeps
// reading what it opened. When a file's content changes, its path gets a
// new inode, as when a file is replaced by rename on a disk file system;
// an unchanged file keeps its inode number across updates.
//
// Package fuse must not import exec, discovery's connection code, or cmd.
package fuse
