package search

import (
	"sort"
	"testing"
)

// FuzzSearch: any query, however odd, gives hits in order of score, each
// a document of the index, at most n of them; with the thesaurus off (the
// default) and on.
func FuzzSearch(f *testing.F) {
	docs := ToolDocs(testCatalog(f))
	x, wn := New(docs), newIndex(docs, wnOn)
	for _, q := range []string{"", "make a new folder", "open a web page", "GitHub PR", "look something up", "how long", "a_b-c+d", "ÄÖÜ 検索 🚀", "open an", "pull",
		"stash Bob's jotted notes", "relocating stuff stuff", "ies es s ing"} {
		f.Add(q, 5)
	}
	f.Fuzz(func(t *testing.T, q string, n int) {
		off, on := x.Search(q, n), wn.Search(q, n)
		if len(on) < len(off) {
			t.Fatalf("Search(%q, %d): %d hits with the thesaurus on, %d off: it only adds", q, n, len(on), len(off))
		}
		for _, hits := range [][]Hit{off, on} {
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
		}
	})
}
