package main

import "fmt"

func main() {
	res, err := docstore.ListDocuments(docstore.ListDocumentsArgs{})
	fmt.Println(res, err)
}

// Error:
// snippet.go:6:14: undefined: docstore
// 	hint: add import "mcpfs/servers/docstore"
