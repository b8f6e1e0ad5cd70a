// Package check type-checks an agent-written Go snippet (a `package main`
// file) against the packages of an mcpfs tree and an allowlist of standard
// packages, and rewrites the modern Go that the snippet interpreter (yaegi
// v0.16.1, about Go 1.20) runs wrongly into Go it runs correctly. What it
// cannot rewrite safely it reports as an Error at the original line:col,
// saying what to write instead.
//
// Rewritten (every change stays on its line; helpers go at the end of the
// file, imports they need on the package line):
//   - range over an integer → a three-clause loop over a hidden counter,
//     with a fresh copy of the variable per iteration;
//   - the min, max and clear builtins → monomorphic helpers (NaN rules of
//     the builtins kept; clear of a map with float keys is refused);
//   - loop variables that a closure or a pointer can see → per-iteration
//     copies (Go 1.22 semantics), copying changes back before continue and
//     at the end of the body of three-clause loops;
//   - the slices, maps and cmp functions that yaegi lacks → helpers;
//     slices.Collect/Sorted/SortedFunc over maps.Keys, maps.Values and
//     slices.Values, and range over those and maps.All/slices.All;
//   - calls of the snippet's generic functions → explicit type arguments;
//   - errors.As with a target type declared by interpreted code → a helper.
//
// Refused with a hint: imports outside the allowlist and the tree, other
// function iterators, text/template's file parsing, encoding/json over
// interpreted structs with embedded or unexported fields, errors.Is/As/
// Unwrap when the snippet declares Unwrap/Is/As methods, and fmt.Errorf's
// %w over interpreted error types (yaegi hides their methods from the
// standard library).
//
// Standard packages are type-checked from gc export data embedded in the
// binary (stdexport.zip, made by `go generate ./exec/check`), so checking
// needs no Go toolchain at run time. Tree packages (mcpfs/...) are
// type-checked from their source in the tree, once per tree.
//
// It reads the tree only through io/fs; it must not import cmd or
// discovery.
package check
