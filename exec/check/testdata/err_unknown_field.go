package main

import (
	"fmt"

	"mcpfs/servers/docstore"
)

func main() {
	res, err := docstore.Search(docstore.SearchArgs{Query: "x", Max: 3})
	fmt.Println(res, err)
}

// Error:
// snippet.go:10:62: unknown field Max in struct literal of type docstore.SearchArgs
// 	hint: fields of docstore.SearchArgs: Id *string, Limit *int, Mode docstore.SearchMode, Query string
