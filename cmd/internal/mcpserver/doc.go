// Package mcpserver is mcpfs's MCP server face: one MCP server that gives
// an agent every configured server through code. It offers a few small
// tools instead of every upstream schema:
//
//   - exec runs a Go snippet that imports mcpfs/servers/<server> packages
//     and returns what it printed, positioned errors, the tool calls it
//     made and how long it took; a large output comes back as a head, its
//     size and the file that keeps the rest;
//   - search_tools ranks the tools of every server (and saved skills) for a
//     query worded as a need, with fs/search, at three levels of detail:
//     names, one-line summaries, or full Go declarations;
//   - list_dir and read_file read the tree for clients without a file
//     system, so discovery works like ls and cat. The tree is also
//     offered as MCP resources (mcpfs://tree/{path}).
//
// The server speaks stdio (ServeStdio) and streamable HTTP (Handler). The
// HTTP face is safe by default: it wants a bearer token, refuses requests
// whose Host or Origin is not allowed (DNS rebinding) with 403 and bodies
// over a limit with 413, all before anything reaches the MCP layer, and it
// never forwards the token anywhere.
//
// The package owns no connections: an Engine (the long-lived mcpfs
// process) supplies the current tree and runs snippets. It must not import
// cmd.
package mcpserver
