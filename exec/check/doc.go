// Package check type-checks an agent-written Go snippet (a `package main`
// file) against the packages of an mcpfs tree and an allowlist of standard
// library packages, and rewrites the modern Go that the snippet interpreter
// (yaegi v0.16.1, about Go 1.20) does not run correctly into Go it does:
// range over int, the min/max/clear builtins, per-iteration loop variables
// and the slices/maps helpers the interpreter lacks. What it cannot rewrite
// safely it reports as a positioned error that says what to write instead.
//
// Standard packages are type-checked from gc export data embedded in the
// binary (stdexport.gz, made by `go generate ./exec/check`), so checking
// needs no Go toolchain at run time. Tree packages (mcpfs/...) are
// type-checked from their source in the tree.
//
// It reads the tree only through io/fs; it must not import cmd, fs/fuse or
// discovery.
package check
