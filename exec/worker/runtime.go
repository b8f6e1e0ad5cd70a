package worker

import (
	"reflect"

	"github.com/traefik/yaegi/interp"

	"github.com/mcpfs/mcpfs/fs/gen/runtime/mcp"
)

// RuntimeImport is the import path under which snippets and the generated
// packages see the runtime package (fs/gen.RuntimeImport).
const RuntimeImport = "mcpfs/mcp"

// runtimeSymbols is the runtime package fs/gen/runtime/mcp as the
// interpreter sees it: compiled into this binary rather than interpreted
// from the tree's copy of its source, so that encoding arguments and
// decoding results run at native speed. Only the generated wrappers stay
// interpreted. The tree still serves the source (for reading and for
// exec/check); both come from the same package in the same binary, and
// TestRuntimeSymbols keeps this table in step with its exported names.
var runtimeSymbols = interp.Exports{RuntimeImport + "/mcp": {
	// functions and variables
	"AsToolError": reflect.ValueOf(mcp.AsToolError),
	"Bool":        reflect.ValueOf(mcp.Bool),
	"Call":        reflect.ValueOf(mcp.Call),
	"CallContext": reflect.ValueOf(mcp.CallContext),
	"CallExtra":   reflect.ValueOf(mcp.CallExtra),
	"ErrNoEngine": reflect.ValueOf(&mcp.ErrNoEngine).Elem(),
	"Exit":        reflect.ValueOf(mcp.Exit),
	"Exiter":      reflect.ValueOf(&mcp.Exiter).Elem(),
	"Float":       reflect.ValueOf(mcp.Float),
	"Int":         reflect.ValueOf(mcp.Int),
	"Merge":       reflect.ValueOf(mcp.Merge),
	"String":      reflect.ValueOf(mcp.String),
	"Transport":   reflect.ValueOf(&mcp.Transport).Elem(),

	// types
	"Content":   reflect.ValueOf((*mcp.Content)(nil)),
	"Result":    reflect.ValueOf((*mcp.Result)(nil)),
	"ToolError": reflect.ValueOf((*mcp.ToolError)(nil)),
}}
