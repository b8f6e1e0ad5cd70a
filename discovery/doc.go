// Package discovery owns the user's MCP servers: it reads the MCP config
// formats people already have (Claude Desktop, Claude Code, Cursor, VS Code),
// connects to every server concurrently over stdio, streamable HTTP, SSE or
// in process, lists their tools losslessly, calls tools, and publishes what it
// knows as immutable, versioned Catalog snapshots.
//
// What a server sends is looked at before anything decodes it (frames.go:
// the stdio reader, and a guard on the HTTP client's responses): a message
// is bounded in size (Options.MaxMessageBytes) and depth (MaxJSONDepth),
// and notifications other than tools/list_changed pass at a bounded rate,
// so no server can grow mcpfs, overflow a decoder or keep it busy.
//
// It knows nothing of files, FUSE or Go code generation, and must not import
// fs, exec, skills or cmd.
package discovery
