// Command mcpfs presents every tool of the user's MCP servers as a typed Go
// function in a generated package, so that an agent discovers tools with
// ls, cat and grep and runs one Go snippet instead of loading every schema
// into its context.
//
// Usage:
//
//	mcpfs ls [PATH]        list the tree (servers/ shows each server's state)
//	mcpfs cat PATH...      print files of the tree
//	mcpfs export DIR       write the tree as plain files (a Go module)
//	mcpfs builtin NAME     serve a built-in MCP server over stdio
//	mcpfs version          print the version
//
// With no config file, mcpfs uses a built-in demo server, docstore.
package main

import (
	"os"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
