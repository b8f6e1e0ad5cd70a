package search

import (
	"sort"
	"testing"
)

// FuzzSearch: any query, however odd, gives hits in order of score, each
// a document of the index, at most n of them.
func FuzzSearch(f *testing.F) {
	x := New(ToolDocs(testCatalog(f)))
	for _, q := range []string{"", "make a new folder", "open a web page", "GitHub PR", "look something up", "how long", "a_b-c+d", "ÄÖÜ 検索 🚀", "open an", "pull"} {
		f.Add(q, 5)
	}
	f.Fuzz(func(t *testing.T, q string, n int) {
		hits := x.Search(q, n)
		if n > 0 && len(hits) > n || len(hits) > x.Len() {
			t.Fatalf("Search(%q, %d): %d hits of %d documents", q, n, len(hits), x.Len())
		}
		if !sort.SliceIsSorted(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score }) {
			t.Fatalf("Search(%q): hits out of order", q)
		}
		for _, h := range hits {
			if h.Doc.Name == "" || h.Score < 0 {
				t.Fatalf("Search(%q): hit %+v", q, h)
			}
		}
	})
}
