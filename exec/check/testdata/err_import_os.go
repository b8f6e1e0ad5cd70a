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
// snippet.go:5:2: import "os" is not allowed in snippets
// 	hint: for files use the tools of a filesystem server (mcpfs/servers/...); print results with fmt
