// Package builtin holds the MCP servers compiled into mcpfs and served in
// process. They are used when the user has no MCP configuration, so that
// mcpfs works on a fresh machine with nothing else installed, and they give
// examples and benchmarks realistic data to chain tools over.
//
// There is one server, "docstore": a small in-memory document store with a
// few short notes, an operations handbook of more than 250 KB, and a CSV
// access log of 10,000 rows. Its tools list, read, search, query and write
// documents. Its seed data is generated from fixed seeds, so every run and
// every platform sees the same bytes; each server returned by New has its own
// state.
//
// Files: builtin.go registers the servers, tools.go defines the docstore
// tools, store.go holds documents and their state, data.go generates the
// seed documents.
//
// The package depends only on mcp-go; it must not import the rest of mcpfs.
package builtin
