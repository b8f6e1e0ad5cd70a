// Basic chaining (A → B) against the built-in docstore server: find the
// requests that failed with 503 (tool A, query_rows), summarise them in
// the snippet, and store only the summary as a new document (tool B,
// write_document). The 10,000-row log never reaches the model; only the
// printed lines do.
//
//	mcpfs run examples/chaining/main.go
package main

import (
	"fmt"
	"sort"
	"strings"

	"mcpfs/mcp"
	"mcpfs/servers/docstore"
)

func main() {
	rows, err := docstore.QueryRows(docstore.QueryRowsArgs{
		Id:    "access-log",
		Where: map[string]string{"status": "503"},
		Limit: mcp.Int(10000), // all of them: they stay in the snippet
	})
	if err != nil {
		fmt.Println("query_rows:", err)
		return
	}
	byPath := map[string]int{}
	for _, r := range rows.Rows {
		byPath[r["path"]]++
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Slice(paths, func(i, j int) bool {
		if byPath[paths[i]] != byPath[paths[j]] {
			return byPath[paths[i]] > byPath[paths[j]]
		}
		return paths[i] < paths[j]
	})
	var report strings.Builder
	fmt.Fprintf(&report, "503s by path (%d requests)\n", rows.Matched)
	for _, p := range paths {
		fmt.Fprintf(&report, "%6d %s\n", byPath[p], p)
	}
	saved, err := docstore.WriteDocument(docstore.WriteDocumentArgs{
		Id:    "report-503",
		Title: "503s by path",
		Text:  report.String(),
	})
	if err != nil {
		fmt.Println("write_document:", err)
		return
	}
	fmt.Printf("%d requests failed with 503 on %d paths; saved %s (%d bytes)\n", rows.Matched, len(paths), saved.Id, saved.Bytes)
}
