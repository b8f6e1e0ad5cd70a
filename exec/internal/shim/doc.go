// Package shim is compiled code that snippets reach only through the
// rewrite of exec/check: the interpreter (yaegi v0.16.1) hides the methods
// of interpreted types from the standard library once a value sits in a
// slice, map, struct field or interface, and names their types wrongly. The
// rewrite converts each value that fmt would format into a *Value (built by
// interpreted code that knows the static types), which formats itself
// exactly as fmt formats the original value in compiled Go.
//
// Snippets cannot import it: exec/check adds the import, as ImportPath,
// and the worker gives the interpreter Symbols.
package shim
