// Package gen is the code generator: it turns a server snapshot into the Go
// files of servers/<server>/ (Server) and a catalog into the files at the
// root of the tree: README.md, go.mod and the runtime package mcp/ (Root).
//
// Generation is a pure function: no I/O, no clock, no randomness, no
// dependence on map order. The same snapshot always gives the same bytes,
// and every output is gofmt-stable Go that type-checks against the runtime,
// whatever the tools/list said. Tool names, descriptions and schemas are
// untrusted: names go through discovery/naming (the one place MCP names
// become Go names and file names), and text only ever lands in // comments,
// sanitised so it cannot end a comment, add a directive or a build
// constraint.
//
// Each tool becomes one file with:
//
//   - func <Func>(args <Func>Args) (<Func>Result, error), or (mcp.Result,
//     error) when the tool declares no outputSchema; the call sends exactly
//     the schema's property names;
//   - <Func>Args from the inputSchema: required fields as values, optional
//     ones as pointers (or nil-able slices, maps and interfaces) with
//     omitempty; nested objects as named structs, string enums as named
//     types with constants (plain strings in a result, unless the
//     arguments declare the same enum), $ref/$defs/definitions resolved (a cycle
//     becomes map[string]any), anyOf/oneOf [T, null] as *T and other
//     unions as any with the alternatives in the comment, allOf of objects
//     merged, additionalProperties as maps;
//   - an Extra map for properties whose names cannot be struct tags (sent
//     through mcp.CallExtra), and for schemas that allow more properties;
//   - <Func>Result from the outputSchema, reusing the arguments' nested
//     types where they are the same; or, for a tool without one whose
//     results mcpfs has learned (catalog.Tool.Learned, see fs/gen/shape),
//     a <Func>Result decoded with r.Decode(&v), the function still
//     returning mcp.Result.
//
// A tool file has no generated-code header (doc.go has it) and its
// function uses named results, to keep every file short. A file says only
// what a caller needs: the tool's description, its
// title when it says more than the name, its annotation hints, and each
// property's description and constraints. Whether a field is required
// is in its declaration (an optional one has omitempty), and what holds
// for every tool (pointers for optional values, mcp.Result) is in the
// tree's README, once.
//
// The runtime package is the real Go source in runtime/mcp, embedded.
//
// doc.go lists each tool with its first sentence, or, past 30 tools, their
// names only.
//
// Package gen imports discovery (for the snapshot types) and nothing of fs,
// exec, skills or cmd.
package gen
