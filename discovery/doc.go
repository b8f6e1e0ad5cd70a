// Package discovery owns the user's MCP servers: it reads the MCP config
// formats people already have (Claude Desktop, Claude Code, Cursor, VS Code),
// connects to every server concurrently over stdio, streamable HTTP, SSE or
// in process, lists their tools losslessly, calls tools, and publishes what it
// knows as immutable, versioned Catalog snapshots.
//
// It knows nothing of files, FUSE or Go code generation, and must not import
// fs, exec, skills or cmd.
package discovery
