// Package check type-checks an agent-written Go snippet (a `package main`
// file) against the packages of an mcpfs tree and an allowlist of standard
// packages, and rewrites the Go that the snippet interpreter (yaegi
// v0.16.1, about Go 1.20, with silent differences from Go) runs wrongly
// into Go it runs correctly. What it cannot rewrite safely it reports as an
// Error at the original line:col, saying what to write instead; one pass
// reports every problem.
//
// Rewritten (every change stays on its line; helpers go at the end of the
// file, imports they need on the package line). Helpers that must be
// compiled live in exec/internal/shim (imported as mcpfs/internal/shim):
//   - fmt print functions: arguments whose types have String, Error,
//     Format or GoString methods anywhere inside (slices, maps, fields,
//     interfaces), and the snippet's types under %T and %#v, become
//     shim.Values that format as fmt/print.go does;
//   - json.Marshal/MarshalIndent/Encoder.Encode: MarshalJSON/MarshalText
//     methods anywhere inside, embedded structs the interpreter does not
//     flatten itself (flattened with Go's rules) and unexported fields; json.Unmarshal/Decode name struct types in
//     their errors, and json.Unmarshal calls UnmarshalJSON methods of the
//     snippet's types (rewrite_unmarshal.go);
//   - index and slice expressions check bounds, and panic calls carry the
//     line, so that a panic says Go's message at the snippet's line; a
//     function that defers returns zero results after a recovered panic;
//     recover returns the value, not a reflect.Value;
//   - deferred calls evaluate function, receiver and arguments at the defer;
//     method values bind the receiver's value; method expressions work;
//     methods promoted from embedded interfaces are called through the
//     field;
//   - type switches on errors and standard interfaces become comma-ok
//     chains; comma-ok assertions to interfaces guard a nil operand and go
//     through a type switch for the snippet's own interfaces; range over a
//     slice of channels becomes an indexed loop;
//   - range over an integer and over functions (iter.Seq/Seq2 become
//     function types), slices.Backward, slices.Chunk,
//     strings.SplitSeq/FieldsSeq/Lines, slices.Collect/Sorted/SortedFunc
//     and maps.Collect over any iterator;
//   - the min, max and clear builtins, and the slices, maps and cmp
//     functions yaegi lacks, with helpers generic over the enclosing
//     function's type parameters where needed; sync.OnceFunc, OnceValue
//     and OnceValues; mcp.Ptr;
//   - loop variables that a closure or pointer can see get per-iteration
//     copies (Go 1.22 semantics);
//   - calls of the snippet's generic functions get explicit type arguments;
//   - the import of os, which a snippet may use for os.Stdout and os.Stderr
//     only, becomes an import of the worker's package of those two
//     (mcpfs/internal/os, exec/internal/shim's OSSymbols): writers over
//     the run's own stdout and stderr, where fmt.Print writes;
//   - errors.As with a target type declared by interpreted code; the
//     snippet's error values given to fmt.Errorf's %w, errors.Is, errors.As
//     and errors.Unwrap become shim.Errs that carry their Error, Unwrap
//     and Is(error) bool methods.
//
// Refused with a hint: imports outside the allowlist and the tree, every
// member of os but Stdout and Stderr and their methods but Write and
// WriteString (check_os.go), os.Stdout or os.Stderr assigned, their
// address taken, or given where an empty
// interface is wanted (printed, or kept in an any: %v and type
// assertions would differ), and, where a snippet uses them, assertions from a writer
// to interfaces *os.File has and they lack (io.Closer, io.ReaderFrom),
// text/template's file parsing and templates over the snippet's types with
// methods (or over data holding interfaces that the snippet puts such
// values in, when a template may use the methods), fmt over data holding
// an any that the snippet puts a generic type's value with a String
// method in, decoding into types with UnmarshalText or through an array, an
// embedded struct or Decoder.Decode into types with UnmarshalJSON,
// errors.As into a value type whose Error method is on its pointer, two
// function types of the snippet's with the same signature asserted from
// an interface (the interpreter cannot tell them apart), type switch
// cases on standard interfaces that cannot become a comma-ok chain, errors.Is/As/Unwrap
// when the snippet declares As methods, Is methods of another signature or
// Unwrap() []error, and labels, goto and defer inside a range over a
// function.
//
// Type errors carry hints that name what to write instead, worked out from
// the types involved (hints.go, typecheck.go): mcp.Ptr for an optional
// field, the Args literal of a generated function, res, err := for two
// results, the method of a result type that gives what was wanted, the
// fields, functions and types of a package closest to a wrong name. For
// the standard library (hints_std.go) they read signatures, method sets
// and constants: the signature of a function called with the wrong
// arguments, another function or method of the package that takes the
// arguments as given (each candidate call type-checked with
// types.CheckExpr before it is named), the methods of a type that take the
// arguments given, a function of that name in another package, the
// constant of a named type for a string. The fix corpus (testdata/fixes,
// TestFixCorpus) checks that each message points at the line and names
// the fix; the held-out sets (testdata/heldout, TestHeldOutFixes) measure
// it on mistakes written before their round of rules.
//
// Refused as go vet refuses them (vet.go): fmt's format verbs against
// their arguments and their count, a format string given to Println, %w
// of a non-error, printed func values, json.Unmarshal or Decode into a
// non-pointer, a lock or WaitGroup parameter passed by value, a struct tag
// that is not key:"value", and errors.As given the pointer itself.
//
// Standard packages are type-checked from gc export data embedded in the
// binary (stdexport.zip, made by `go generate ./exec/check`), so checking
// needs no Go toolchain at run time. Tree packages (mcpfs/...) are
// type-checked from their source in the tree, once per tree.
//
// It reads the tree only through io/fs; it must not import cmd or
// discovery.
package check
