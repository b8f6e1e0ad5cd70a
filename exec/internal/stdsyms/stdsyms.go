// Package stdsyms holds the interpreter's symbol tables of the standard
// packages that snippets may import (exec/check.Allowable), copied from
// yaegi's stdlib package by gen.go. Unlike yaegi's package, which builds
// the tables of the whole standard library in its init functions (and
// links every package of it), this one builds them on first use: only a
// snippet worker needs them, and every other mcpfs command starts without
// that work.
package stdsyms

//go:generate go run gen.go

import (
	"reflect"
	"sync"
)

var (
	// Symbols and MapTypes are yaegi's stdlib.Symbols and
	// stdlib.MapTypes for the allowable packages, filled by load.
	Symbols  = map[string]map[string]reflect.Value{}
	MapTypes = map[reflect.Value][]reflect.Type{}
	once     sync.Once
)

// Exports returns the symbols of the allowable standard packages (an
// interp.Exports), with the "." entry that gives the interpreter the
// special interface wrappers (MapTypes), as yaegi's stdlib.Symbols has
// it. The tables are built on the first call; the caller must not change
// them.
func Exports() map[string]map[string]reflect.Value {
	once.Do(func() {
		for _, load := range loaders {
			load()
		}
		Symbols["."] = map[string]reflect.Value{"MapTypes": reflect.ValueOf(MapTypes)}
	})
	return Symbols
}
