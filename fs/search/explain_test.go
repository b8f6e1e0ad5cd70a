package search

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestExplain prints, for the queries in $SEARCH_EXPLAIN (separated by
// "|"), the first hits with each concept's contribution: a tool for
// seeing why a ranking is what it is.
func TestExplain(t *testing.T) {
	qs := os.Getenv("SEARCH_EXPLAIN")
	if qs == "" {
		t.Skip("set SEARCH_EXPLAIN to queries separated by |")
	}
	x := New(ToolDocs(testCatalog(t)))
	for _, q := range strings.Split(qs, "|") {
		cs := x.concepts(q)
		var names []string
		for _, c := range cs {
			var alts []string
			for _, a := range c.alts {
				alts = append(alts, fmt.Sprintf("%s*%.1f", strings.Join(a.terms, "+"), a.weight))
			}
			names = append(names, "["+strings.Join(alts, " ")+"]")
		}
		t.Logf("%q: %s", q, strings.Join(names, " "))
		for _, h := range x.Search(q, 6) {
			i := x.docIndex(h.Doc.Name)
			var parts []string
			for _, c := range cs {
				best := make([]float64, len(x.docs))
				for _, a := range c.alts {
					x.score(a, best)
				}
				parts = append(parts, fmt.Sprintf("%.2f", best[i]))
			}
			t.Logf("  %6.2f %-40s %s", h.Score, h.Doc.Server+":"+h.Doc.Tool, strings.Join(parts, " "))
		}
	}
}

func (x *Index) docIndex(name string) int {
	for i, d := range x.docs {
		if d.Name == name {
			return i
		}
	}
	return -1
}
