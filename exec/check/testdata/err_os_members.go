package main

import (
	"fmt"
	"os"
)

func main() {
	data, err := os.ReadFile("/etc/hostname")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(string(data), len(os.Args), os.Getenv("HOME"))
	os.Stdout.Close()
}

// Error:
// snippet.go:9:18: os.ReadFile is not available in snippets: of package os, a snippet has os.Stdout and os.Stderr only
// 	hint: for files use the tools of a filesystem server (mcpfs/servers/...); a snippet's os has only os.Stdout and os.Stderr, to write to
// snippet.go:12:6: os.Exit is not available in snippets: of package os, a snippet has os.Stdout and os.Stderr only
// 	hint: end the snippet with mcp.Exit(code) (import "mcpfs/mcp"), which sets mcpfs run's exit status
// snippet.go:14:35: os.Args is not available in snippets: of package os, a snippet has os.Stdout and os.Stderr only
// 	hint: a snippet has no arguments: write the values in the snippet
// snippet.go:14:45: os.Getenv is not available in snippets: of package os, a snippet has os.Stdout and os.Stderr only
// 	hint: a snippet has no environment: write the value in the snippet
// snippet.go:15:12: os.Stdout.Close is not available in snippets: os.Stdout is a writer there (Write, WriteString)
// 	hint: drop the call: the output is closed when main returns
