package main

import (
	"fmt"

	"mcpfs/servers/docstore"
)

func main() {
	res, err := docstore.SearchDocs(docstore.SearchArgs{Query: "x"})
	fmt.Println(res, err)
}

// Error:
// snippet.go:10:23: undefined: docstore.SearchDocs
// 	hint: did you mean docstore.Search?
// 	      functions of mcpfs/servers/docstore: Search,
