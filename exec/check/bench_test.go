package check

import (
	"sync"
	"testing"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/fs"
)

// typical is a snippet as agents write them: a tool call, a loop, a sort
// and a summary.
const typical = `package main

import (
	"fmt"
	"slices"
	"strings"

	"mcpfs/mcp"
	"mcpfs/servers/docstore"
)

func main() {
	res, err := docstore.Search(docstore.SearchArgs{Query: "deploy", Limit: mcp.Int(50)})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	byDoc := map[string]int{}
	for _, h := range res.Hits {
		byDoc[h.Id]++
	}
	ids := make([]string, 0, len(byDoc))
	for id := range byDoc {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for i := range min(len(ids), 5) {
		fmt.Println(ids[i], byDoc[ids[i]], strings.Repeat("*", byDoc[ids[i]]))
	}
}
`

// BenchmarkCheckWarm checks a typical snippet against a tree whose
// packages are already type-checked.
func BenchmarkCheckWarm(b *testing.B) {
	tree := docstoreTree(b)
	if _, err := Check("snippet.go", []byte(typical), tree, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Check("snippet.go", []byte(typical), tree, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckCold checks a typical snippet against a new tree each
// time (the tree's packages are type-checked from source again; the
// standard packages stay loaded).
func BenchmarkCheckCold(b *testing.B) {
	cat := docstoreTree(b).(*fs.Tree).Catalog()
	b.ReportAllocs()
	for b.Loop() {
		tree := fs.New(&discovery.Catalog{Servers: cat.Servers}, fs.Options{})
		if _, err := Check("snippet.go", []byte(typical), tree, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStdFirst measures what the first check in a process pays for
// the standard packages of the typical snippet: indexing the embedded
// archive, unpacking and importing fmt, slices and strings (and the
// runtime package's imports).
func BenchmarkStdFirst(b *testing.B) {
	src := []byte("package main\nimport (\n\t\"fmt\"\n\t\"slices\"\n\t\"strings\"\n\t\"context\"\n\t\"encoding/json\"\n\t\"errors\"\n)\nvar _ = context.Background\nvar _ = json.Marshal\nvar _ = errors.New\nvar _ = strings.ToUpper\nvar _ = slices.Sort[[]int]\nfunc main() { fmt.Println() }\n")
	for b.Loop() {
		universe.mu.Lock()
		universe.fset, universe.std, universe.trees = nil, nil, nil
		stdOnce = sync.Once{}
		universe.mu.Unlock()
		if _, err := Check("snippet.go", src, nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
