package main

import (
	"fmt"
	"os"
)

func main() {
	data, _ := os.ReadFile("/etc/hostname")
	fmt.Println(string(data))
}

// Error:
// snippet.go:9:16: os.ReadFile is not available in snippets: of package os, a snippet has os.Stdout and os.Stderr only
// 	hint: for files use the tools of a filesystem server (mcpfs/servers/...); a snippet's os has only os.Stdout and os.Stderr, to write to
