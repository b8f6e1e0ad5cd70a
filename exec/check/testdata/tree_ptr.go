package main

import (
	"fmt"

	"mcpfs/mcp"
	"mcpfs/servers/docstore"
)

func main() {
	args := docstore.SearchArgs{Query: "deploy", Limit: mcp.Ptr(7), Mode: docstore.SearchModeWord}
	name := mcp.Ptr("x")
	fmt.Println(*args.Limit, *name, *mcp.Ptr(2.5))
}

// Output:
// 7 x 2.5
