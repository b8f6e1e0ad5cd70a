package shim

import (
	"io"
	"reflect"

	"github.com/traefik/yaegi/interp"

	osfile "github.com/mcpfs/mcpfs/exec/internal/shim/osfile"
)

// Symbols is this package as the interpreter imports it (ImportPath).
var Symbols = interp.Exports{ImportPath + "/shim": {
	"At":         reflect.ValueOf(At),
	"AtErr":      reflect.ValueOf(AtErr),
	"Array":      reflect.ValueOf(Array),
	"Basic":      reflect.ValueOf(Basic),
	"ByPos":      reflect.ValueOf(ByPos),
	"Decode":     reflect.ValueOf(Decode),
	"Unmarshal":  reflect.ValueOf(Unmarshal),
	"WrapErr":    reflect.ValueOf(WrapErr),
	"WrapErrIs":  reflect.ValueOf(WrapErrIs),
	"Unwrapped":  reflect.ValueOf(Unwrapped),
	"Errorf":     reflect.ValueOf(Errorf),
	"GoPanic":    reflect.ValueOf(GoPanic),
	"Index":      reflect.ValueOf(Index),
	"Interface":  reflect.ValueOf(Interface),
	"JSONValue":  reflect.ValueOf(JSONValue),
	"Key":        reflect.ValueOf(Key),
	"Join":       reflect.ValueOf(Join),
	"Map":        reflect.ValueOf(Map),
	"Members":    reflect.ValueOf(Members),
	"Order":      reflect.ValueOf(Order),
	"Pointer":    reflect.ValueOf(Pointer),
	"Recovered":  reflect.ValueOf(Recovered),
	"Slice":      reflect.ValueOf(Slice),
	"SliceCheck": reflect.ValueOf(SliceCheck),
	"Stop":       reflect.ValueOf(Stop),
	"Stopped":    reflect.ValueOf(Stopped),
	"Unstop":     reflect.ValueOf(Unstop),
	"Sprintf":    reflect.ValueOf(Sprintf),
	"Struct":     reflect.ValueOf(Struct),
	"TypeError":  reflect.ValueOf(TypeError),
	"TypeAt":     reflect.ValueOf(TypeAt),
	"Prefix":     reflect.ValueOf(Prefix),
	"Context":    reflect.ValueOf(Context),

	"Err":          reflect.ValueOf((*Err)(nil)),
	"File":         reflect.ValueOf((*File)(nil)),
	"JSON":         reflect.ValueOf((*JSON)(nil)),
	"Located":      reflect.ValueOf((*Located)(nil)),
	"Kind":         reflect.ValueOf((*Kind)(nil)),
	"RuntimeError": reflect.ValueOf((*RuntimeError)(nil)),
	"Text":         reflect.ValueOf((*Text)(nil)),
	"Value":        reflect.ValueOf((*Value)(nil)),
}}

// OSSymbols is the package a snippet's import of "os" becomes (OSPath):
// Stdout and Stderr write to stdout and stderr, which must be the writers
// the interpreter prints to (interp.Options.Stdout and Stderr), so that
// their output is captured, ordered and limited as fmt.Print's is; File is
// their type, for the names the rewrite writes.
func OSSymbols(stdout, stderr io.Writer) interp.Exports {
	return interp.Exports{OSPath + "/os": {
		"Stdout": reflect.ValueOf(osfile.New(stdout)),
		"Stderr": reflect.ValueOf(osfile.New(stderr)),
		"File":   reflect.ValueOf((*File)(nil)),
	}}
}
