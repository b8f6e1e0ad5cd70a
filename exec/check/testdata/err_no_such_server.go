package main

import (
	"fmt"

	"mcpfs/servers/docstor"
)

func main() { fmt.Println(docstor.X) }

// Error:
// snippet.go:6:2: package mcpfs/servers/docstor does not exist in the tree
// 	hint: available: mcpfs/servers/docstore
