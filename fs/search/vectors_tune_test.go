package search

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// vecGrid is every setting of the word vectors TestVectors measures: the
// nearest catalog words of unknown (or all) query words, the whole-query
// similarity, and both together.
func vecGrid() []params {
	var exp []params
	for _, k := range []int{1, 3, 5} {
		for _, m := range []float64{0.4, 0.5, 0.6} {
			for _, w := range []float64{0.1, 0.2, 0.3, 0.5} {
				for _, always := range []bool{false, true} {
					p := noVectors
					p.vecK, p.vecMin, p.vecWeight, p.vecAlways = k, m, w, always
					exp = append(exp, p)
				}
			}
		}
	}
	out := append([]params(nil), exp...)
	for _, s := range []float64{0.05, 0.1, 0.2, 0.3, 0.5} {
		p := noVectors
		p.simWeight = s
		out = append(out, p)
		for _, e := range exp {
			e.simWeight = s
			out = append(out, e)
		}
	}
	return out
}

func (p params) vecString() string {
	if p.vecWeight == 0 && p.simWeight == 0 {
		return "off"
	}
	var parts []string
	if p.vecWeight > 0 {
		parts = append(parts, fmt.Sprintf("nearest %d ≥%.1f at %.1f always %v", p.vecK, p.vecMin, p.vecWeight, p.vecAlways))
	}
	if p.simWeight > 0 {
		parts = append(parts, fmt.Sprintf("similarity %.2f", p.simWeight))
	}
	return strings.Join(parts, ", ")
}

// TestVectors measures the word vectors (vectors.go) at every setting of
// vecGrid on the sets of wnSets, with leave-one-set-out cross-validation:
// for each set, the setting that scores best (mean of (@1+@5)/2) on the
// other four is measured on it, beside the vectors off; the same with the
// choice kept to each variant (nearest words of unknown query words only,
// of any query word, whole-query similarity only); then the setting best
// on all five. It runs only with SEARCH_TUNE=1 (SEARCH_VEC_ALL=1 prints
// every setting; SEARCH_VEC_REPORT=1 adds vecOn on every set, final.txt,
// blind.txt and blind2.txt included, which take no part in any choice and
// whose misses are not printed; vecOn has the setting chosen):
//
//	SEARCH_TUNE=1 SEARCH_VEC_REPORT=1 go test ./fs/search -run TestVectors$ -v -timeout 30m
func TestVectors(t *testing.T) {
	if os.Getenv("SEARCH_TUNE") == "" {
		t.Skip("measuring every setting takes minutes: set SEARCH_TUNE=1 to run it")
	}
	docs := ToolDocs(testCatalog(t))
	sets := map[string][]query{}
	for _, s := range wnSets {
		sets[s] = readQueries(t, "testdata/"+s+".txt")
	}
	off := noVectors
	grid := append([]params{off}, vecGrid()...)
	figs := measureGrid(docs, grid, sets)
	score := figs.score
	line := figs.line
	if os.Getenv("SEARCH_VEC_ALL") != "" {
		for i := range grid {
			t.Logf("%-58s%s mean %.2f", grid[i].vecString(), line(i, wnSets), 100*score(i, wnSets))
		}
	}
	t.Logf("off:%s mean %.2f", line(0, wnSets), 100*score(0, wnSets))
	for _, variant := range []struct {
		name string
		ok   func(p params) bool
	}{
		{"any setting", func(params) bool { return true }},
		{"nearest words of unknown query words only", func(p params) bool { return p.simWeight == 0 && !p.vecAlways }},
		{"nearest words of any query word only", func(p params) bool { return p.simWeight == 0 && p.vecAlways }},
		{"whole-query similarity only", func(p params) bool { return p.vecWeight == 0 }},
	} {
		best := func(on []string) int {
			b := 0
			for i := range grid {
				if i > 0 && variant.ok(grid[i]) && score(i, on) > score(b, on)+1e-9 {
					b = i
				}
			}
			return b
		}
		delta := 0.0
		for _, held := range wnSets {
			var fit []string
			for _, s := range wnSets {
				if s != held {
					fit = append(fit, s)
				}
			}
			b := best(fit)
			delta += score(b, []string{held}) - score(0, []string{held})
			t.Logf("%s, %s held out: off%s, chosen on the others%s (%s)", variant.name, held, line(0, []string{held}), line(b, []string{held}), grid[b].vecString())
		}
		t.Logf("%s: mean change on the held-out folds %+.2f points of (@1+@5)/2", variant.name, 100*delta/float64(len(wnSets)))
		b := best(wnSets)
		t.Logf("%s, chosen on all five: %s:%s mean %.2f", variant.name, grid[b].vecString(), line(b, wnSets), 100*score(b, wnSets))
	}
	if os.Getenv("SEARCH_VEC_REPORT") != "" {
		for _, s := range querySets {
			if sets[s] == nil {
				sets[s] = readQueries(t, "testdata/"+s+".txt")
			}
		}
		for _, p := range []params{off, vecOn} {
			x := newIndex(docs, p)
			var sb strings.Builder
			for _, s := range querySets {
				r1, r5 := setRecall(x, sets[s])
				fmt.Fprintf(&sb, " %s %.1f/%.1f", s, 100*r1, 100*r5)
			}
			t.Logf("every set, %s:%s", p.vecString(), sb.String())
		}
	}
}
