package search

import (
	"fmt"
	"os"
	"testing"
)

func TestZZMisses(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip("ZZ")
	}
	docs, x, _ := transferCVs(t)
	_ = docs
	rank := searchRanker(x)
	f, _ := os.Create("/tmp/lead/misses.txt")
	defer f.Close()
	n, m := 0, 0
	for _, s := range trainSets {
		for _, q := range readQueries(t, "testdata/"+s+".txt") {
			got := rank(q.text)
			pos := -1
			for i, g := range got {
				if contains(q.want, g) {
					pos = i
					break
				}
			}
			n++
			if pos != 0 {
				m++
				first := ""
				if len(got) > 0 {
					first = got[0]
				}
				fmt.Fprintf(f, "%s\t%d\t%s\twant %v\tfirst %s\n", s, pos+1, q.text, q.want, first)
			}
		}
	}
	t.Logf("%d of %d missed @1", m, n)
}
