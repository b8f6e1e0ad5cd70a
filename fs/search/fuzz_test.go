package search

import (
	"sort"
	"testing"
)

// FuzzSearch: any query, however odd, gives hits in order of score, each
// a document of the index, at most n of them; without the thesaurus and
// the word vectors, and with each (the word vectors are on by default):
// they only add hits.
func FuzzSearch(f *testing.F) {
	docs := ToolDocs(testCatalog(f))
	sim := noVectors
	sim.simWeight = 0.3
	x := newIndex(docs, noVectors)
	ons := map[string]*Index{"the thesaurus": newIndex(docs, wnOn), "the word vectors": New(docs), "the whole-query similarity": newIndex(docs, sim)}
	for _, q := range []string{"", "make a new folder", "open a web page", "GitHub PR", "look something up", "how long", "a_b-c+d", "ÄÖÜ 検索 🚀", "open an", "pull",
		"stash Bob's jotted notes", "relocating stuff stuff", "ies es s ing", "peek at the eatery nearby", "Bob"} {
		f.Add(q, 5)
	}
	f.Fuzz(func(t *testing.T, q string, n int) {
		off := x.Search(q, n)
		all := [][]Hit{off}
		for name, y := range ons {
			on := y.Search(q, n)
			if len(on) < len(off) {
				t.Fatalf("Search(%q, %d): %d hits with %s, %d without: it only adds", q, n, len(on), name, len(off))
			}
			all = append(all, on)
		}
		for _, hits := range all {
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
