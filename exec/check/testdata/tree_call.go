package main

import (
	"errors"
	"fmt"

	"mcpfs/mcp"
	"mcpfs/servers/docstore"
)

func main() {
	args := docstore.SearchArgs{Query: "deploy", Limit: mcp.Int(min(5, 10)), Mode: docstore.SearchModeWord}
	fmt.Println(args.Query, *args.Limit, args.Mode)
	_, err := docstore.Search(args)
	var te *mcp.ToolError
	fmt.Println(errors.Is(err, mcp.ErrNoEngine), errors.As(err, &te))
	var hits []docstore.SearchResultHit
	for i := range 3 {
		hits = append(hits, docstore.SearchResultHit{Id: "doc", Line: i + 1})
	}
	fmt.Println(len(hits), hits[2].Line)
}

// Output:
// deploy 5 word
// true false
// 3 3
