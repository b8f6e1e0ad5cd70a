package main

import (
	"strings"
	"testing"
)

func TestRecallTable(t *testing.T) {
	secs := []goBenchSection{{Results: []goBenchResult{{Name: "BenchmarkRecall-2", Metrics: []string{
		"60000 ns/op", "157.00 queries-queries", "91.72 queries-recall@1%", "99.36 queries-recall@5%",
		"63.06 queries-bm25-recall@1%", "82.80 queries-bm25-recall@5%",
	}}}}}
	got := recallTable(secs)
	if want := "| queries.txt, tuned on | 157 | 91.7% | 99.4% | 63.1% | 82.8% |"; !strings.Contains(got, want) {
		t.Errorf("got\n%s\nwant a row %s", got, want)
	}
	if !strings.Contains(got, "| sealed.txt, written after the second round's changes | – | – | – | – | – |") {
		t.Errorf("got\n%s\nwant a row of dashes for a set that did not run", got)
	}
	if recallTable(nil) != "" {
		t.Error("recallTable(nil): want no table")
	}
}
