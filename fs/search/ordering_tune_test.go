package search

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestNearMisses prints, for the five older sets only (wnSets), the
// queries whose wanted tool is in the first five but not first, with the
// first hits (with SEARCH_ORDER_OFF=1, without the ordering signals). It runs only with
// SEARCH_TUNE=1.
func TestNearMisses(t *testing.T) {
	if os.Getenv("SEARCH_TUNE") == "" {
		t.Skip("a report for tuning: set SEARCH_TUNE=1 to run it")
	}
	p := defaults
	if os.Getenv("SEARCH_ORDER_OFF") != "" {
		p = noOrdering
	}
	x := newIndex(ToolDocs(testCatalog(t)), p)
	for _, s := range wnSets {
		for _, q := range readQueries(t, "testdata/"+s+".txt") {
			got := searchRanker(x)(q.text)
			pos := -1
			for i, g := range got {
				if contains(q.want, g) {
					pos = i
					break
				}
			}
			if pos > 0 && pos < 5 {
				t.Logf("%s: %q #%d want %v top %v", s, q.text, pos+1, q.want, got[:pos+1])
			}
		}
	}
}

// orderGrid is every setting of the ordering signals TestOrdering
// measures, each signal alone and a few together.
func orderGrid() []params {
	var out []params
	for _, bonus := range []float64{0, 0.1, 0.2, 0.4} {
		for _, pen := range []float64{0, 0.1, 0.2, 0.4, 0.6, 0.8} {
			for _, q := range []bool{false, true} {
				for _, v := range []int{0, 1, 2, 3} {
					if bonus == 0 && pen == 0 {
						continue
					}
					p := noOrdering
					p.aoBonus, p.aoPenalty, p.aoQuestion = bonus, pen, q
					p.aoSplit, p.aoFullName = v&1 != 0, v&2 != 0
					out = append(out, p)
				}
			}
		}
	}
	for _, f := range []float64{0.05, 0.1, 0.2, 0.3, 0.5} {
		p := noOrdering
		p.famPenalty = f
		out = append(out, p)
	}
	for _, b := range []float64{0.1, 0.2, 0.4} {
		for _, w := range []int{1, 2, 3, 5} {
			p := noOrdering
			p.proxBoost, p.proxWindow = b, w
			out = append(out, p)
		}
	}
	for _, bonus := range []float64{0, 0.1, 0.2, 0.4} {
		for _, pen := range []float64{0.2, 0.4, 0.6, 0.8} {
			for _, f := range []float64{0, 0.1, 0.2} {
				for _, b := range []float64{0, 0.2} {
					if f == 0 && b == 0 {
						continue
					}
					for _, v := range []int{0, 1, 2, 3} {
						p := noOrdering
						p.aoBonus, p.aoPenalty, p.aoQuestion, p.famPenalty, p.proxBoost, p.proxWindow = bonus, pen, true, f, b, 3
						p.aoSplit, p.aoFullName = v&1 != 0, v&2 != 0
						out = append(out, p)
					}
				}
			}
		}
	}
	return out
}

func (p params) orderString() string {
	var parts []string
	if p.aoBonus > 0 || p.aoPenalty > 0 {
		parts = append(parts, fmt.Sprintf("action bonus %.1f penalty %.1f question %v split %v full name %v", p.aoBonus, p.aoPenalty, p.aoQuestion, p.aoSplit, p.aoFullName))
	}
	if p.famPenalty > 0 {
		parts = append(parts, fmt.Sprintf("family %.2f", p.famPenalty))
	}
	if p.proxBoost > 0 {
		parts = append(parts, fmt.Sprintf("proximity %.1f within %d", p.proxBoost, p.proxWindow))
	}
	if len(parts) == 0 {
		return "off"
	}
	return strings.Join(parts, ", ")
}

// TestOrdering measures the ordering signals (ordering.go) at every
// setting of orderGrid on the five older sets (wnSets), with
// leave-one-set-out cross-validation: for each set, the setting that
// scores best (mean of (@1+@5)/2) on the other four is measured on it,
// beside the signals off; per signal alone and for any setting. Then the
// setting best on all five. It runs only with SEARCH_TUNE=1
// (SEARCH_ORDER_ALL=1 prints every setting; SEARCH_ORDER_REPORT=1 adds
// off and orderOn on every set, the four untuned ones included, which
// take no part in any choice and whose misses are not printed):
//
//	SEARCH_TUNE=1 go test ./fs/search -run TestOrdering -v
func TestOrdering(t *testing.T) {
	if os.Getenv("SEARCH_TUNE") == "" {
		t.Skip("measuring every setting takes a while: set SEARCH_TUNE=1 to run it")
	}
	docs := ToolDocs(testCatalog(t))
	sets := map[string][]query{}
	for _, s := range wnSets {
		sets[s] = readQueries(t, "testdata/"+s+".txt")
	}
	grid := append([]params{noOrdering}, orderGrid()...)
	figs := measureGrid(docs, grid, sets)
	score := figs.score
	line := figs.line
	if os.Getenv("SEARCH_ORDER_ALL") != "" {
		for i := range grid {
			t.Logf("%-60s%s mean %.2f", grid[i].orderString(), line(i, wnSets), 100*score(i, wnSets))
		}
	}
	t.Logf("off:%s mean %.2f", line(0, wnSets), 100*score(0, wnSets))
	only := func(ao, fam, prox bool) func(p params) bool {
		return func(p params) bool {
			return (p.aoBonus+p.aoPenalty > 0) == ao && (p.famPenalty > 0) == fam && (p.proxBoost > 0) == prox
		}
	}
	for _, variant := range []struct {
		name string
		ok   func(p params) bool
	}{
		{"any setting", func(params) bool { return true }},
		{"action only", only(true, false, false)},
		{"family only", only(false, true, false)},
		{"proximity only", only(false, false, true)},
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
			t.Logf("%s, %s held out: off%s, chosen on the others%s (%s)", variant.name, held, line(0, []string{held}), line(b, []string{held}), grid[b].orderString())
		}
		t.Logf("%s: mean change on the held-out folds %+.2f points of (@1+@5)/2", variant.name, 100*delta/float64(len(wnSets)))
		b := best(wnSets)
		t.Logf("%s, chosen on all five: %s:%s mean %.2f", variant.name, grid[b].orderString(), line(b, wnSets), 100*score(b, wnSets))
	}
	if os.Getenv("SEARCH_ORDER_REPORT") != "" {
		for _, s := range querySets {
			if sets[s] == nil {
				sets[s] = readQueries(t, "testdata/"+s+".txt")
			}
		}
		for _, p := range []params{noOrdering, orderOn} {
			x := newIndex(docs, p)
			var sb strings.Builder
			for _, s := range querySets {
				r1, r5 := setRecall(x, sets[s])
				fmt.Fprintf(&sb, " %s %.1f/%.1f", s, 100*r1, 100*r5)
			}
			t.Logf("every set, %s:%s", p.orderString(), sb.String())
		}
	}
}
