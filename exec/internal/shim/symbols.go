package shim

import (
	"reflect"

	"github.com/traefik/yaegi/interp"
)

// Symbols is this package as the interpreter imports it (ImportPath).
var Symbols = interp.Exports{ImportPath + "/shim": {
	"Array":     reflect.ValueOf(Array),
	"Basic":     reflect.ValueOf(Basic),
	"Errorf":    reflect.ValueOf(Errorf),
	"Interface": reflect.ValueOf(Interface),
	"Map":       reflect.ValueOf(Map),
	"Pointer":   reflect.ValueOf(Pointer),
	"Recovered": reflect.ValueOf(Recovered),
	"Slice":     reflect.ValueOf(Slice),
	"Sprintf":   reflect.ValueOf(Sprintf),
	"Struct":    reflect.ValueOf(Struct),

	"Kind":  reflect.ValueOf((*Kind)(nil)),
	"Value": reflect.ValueOf((*Value)(nil)),
}}
