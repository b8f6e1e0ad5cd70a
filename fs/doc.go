// Package fs owns the tree that mcpfs shows: an io/fs.FS built from one
// discovery.Catalog snapshot, with the root README.md, go.mod, the runtime
// package, servers/<server>/ (generated on demand by fs/gen) and the
// skills/ and run/ folders.
//
// The same Tree backs every face: `mcpfs ls|cat|export`, the FUSE mount (a
// thin adapter over it) and the snippet interpreter, which reads packages
// from it without the kernel. A Tree is immutable; a new catalog gives a new
// Tree. Package fs must not import exec, skills' writers, or cmd.
package fs
