// Package mcp is the runtime that the generated tool functions in
// mcpfs/servers/<server> call. A snippet rarely uses it directly; it gives
// the pointer helpers for optional arguments (String, Int, Float, Bool), the
// generic Result of tools without an output schema, ToolError, and Exit,
// which ends a snippet with an exit status of its own.
//
// Tool calls run inside `mcpfs run` (or the exec tool of `mcpfs serve`),
// which sets Transport before the snippet's main starts. Anywhere else a
// call returns ErrNoEngine.
package mcp
