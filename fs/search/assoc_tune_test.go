package search

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
)

// assocSetting is one setting TestAssoc measures: how the table is
// learned and how the ranking reads it.
type assocSetting struct {
	method    assocMethod
	weight    float64
	k, min    int
	any, soft bool
	// house skips the associations to the catalog's house words (the
	// table as TestAssocTransfer measures it).
	house bool
}

func (s assocSetting) String() string {
	which := "unknown words"
	if s.any {
		which = "any word"
	}
	how := "covers"
	if s.soft {
		how = "soft"
	}
	out := fmt.Sprintf("%s w %.2f k %d min %d %s %s", s.method, s.weight, s.k, s.min, which, how)
	if s.house {
		out += " no house words"
	}
	return out
}

func (s assocSetting) params(tab *assocTable) params {
	p := noAssoc
	p.assocWeight, p.assocK, p.assocMin, p.assocAny, p.assocSoft, p.assocHouse, p.assocTable = s.weight, s.k, s.min, s.any, s.soft, s.house, tab
	return p
}

// shipped reports whether s is the setting of assocOn and assocShipped.
func (s assocSetting) shipped() bool {
	p := assocOn
	return s.method == assocShipped && s.weight == p.assocWeight && s.k == p.assocK && s.min == p.assocMin &&
		s.any == p.assocAny && s.soft == p.assocSoft && s.house == p.assocHouse
}

// assocGrid is every setting TestAssoc measures.
func assocGrid() []assocSetting {
	var out []assocSetting
	for _, m := range []assocMethod{
		{model1: true, stems: true}, {model1: true, stems: false}, {model1: true, stems: true, stop: true}, {model1: true, stems: false, stop: true},
		{stems: true}, {stems: false},
	} {
		for _, w := range []float64{0.2, 0.35, 0.5, 0.7, 0.85} {
			for _, k := range []int{1, 3, 5} {
				for _, min := range []int{1, 2, 3} {
					for v := range 4 {
						out = append(out, assocSetting{method: m, weight: w, k: k, min: min, any: v&1 != 0, soft: v&2 != 0})
					}
				}
			}
		}
	}
	return out
}

// without returns sets without the ones named.
func without(sets []string, out ...string) []string {
	var r []string
	for _, s := range sets {
		if !contains(out, s) {
			r = append(r, s)
		}
	}
	return r
}

// TestAssoc measures the associations learned from labelled queries
// (assoc.go, assoc_train_test.go) with leave-one-set-out cross-validation
// over the five tuned sets (assocCVSets): for each set, a table learned on
// the other four is measured on it, beside the ranking without
// associations, at every setting of assocGrid. It reports the settings
// whose mean change on the held-out sets is largest, the best of each
// method, and a nested figure: for each held-out set, the setting is
// chosen by the same cross-validation within the other four (learned on
// three, measured on the fourth), then learned on the four and measured
// on the held-out set. It runs only with SEARCH_TUNE=1 (SEARCH_ASSOC_ALL=1
// prints every setting):
//
//	SEARCH_TUNE=1 go test ./fs/search -run '^TestAssoc$' -v -timeout 30m
func TestAssoc(t *testing.T) {
	if os.Getenv("SEARCH_TUNE") == "" {
		t.Skip("measuring every setting takes minutes: set SEARCH_TUNE=1 to run it")
	}
	docs := ToolDocs(testCatalog(t))
	base := newIndex(docs, noAssoc)
	sets := map[string][]query{}
	for _, s := range assocCVSets {
		sets[s] = readQueries(t, "testdata/"+s+".txt")
	}
	grid := assocGrid()
	// The training subsets: the four sets of each outer fold, the three
	// of each inner one; a table per method and subset.
	var subsets [][]string
	for _, h := range assocCVSets {
		subsets = append(subsets, without(assocCVSets, h))
		for _, i := range assocCVSets {
			if i > h {
				subsets = append(subsets, without(assocCVSets, h, i))
			}
		}
	}
	key := func(sub []string) string { return strings.Join(sub, "+") }
	tables := map[assocMethod]map[string]*assocTable{}
	for _, s := range grid {
		if tables[s.method] != nil {
			continue
		}
		tables[s.method] = map[string]*assocTable{}
		for _, sub := range subsets {
			var qs []query
			for _, n := range sub {
				qs = append(qs, sets[n]...)
			}
			tables[s.method][key(sub)] = trainAssoc(assocPairs(t, base, qs, s.method), s.method)
		}
	}
	// figs[i][subset][set]: setting i, learned on subset, on a set out of it.
	figs := make([]map[string]map[string]setFig, len(grid))
	var wg sync.WaitGroup
	sem := make(chan bool, 2)
	for i, s := range grid {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- true
			defer func() { <-sem }()
			figs[i] = map[string]map[string]setFig{}
			for _, sub := range subsets {
				x := newIndex(docs, s.params(tables[s.method][key(sub)]))
				m := map[string]setFig{}
				for _, h := range without(assocCVSets, sub...) {
					r1, r5 := setRecall(x, sets[h])
					m[h] = setFig{r1, r5}
				}
				figs[i][key(sub)] = m
			}
		}()
	}
	wg.Wait()
	off := map[string]setFig{}
	for _, s := range assocCVSets {
		r1, r5 := setRecall(base, sets[s])
		off[s] = setFig{r1, r5}
	}
	obj := func(f setFig) float64 { return (f.r1 + f.r5) / 2 }
	// cv is setting i's figure on each set held out of its table (outer
	// folds), and their mean change over off, in points.
	cv := func(i int) (map[string]setFig, float64) {
		m := map[string]setFig{}
		d := 0.0
		for _, h := range assocCVSets {
			f := figs[i][key(without(assocCVSets, h))][h]
			m[h] = f
			d += obj(f) - obj(off[h])
		}
		return m, 100 * d / float64(len(assocCVSets))
	}
	line := func(m map[string]setFig) string {
		var b strings.Builder
		for _, s := range assocCVSets {
			fmt.Fprintf(&b, " %s %.1f/%.1f", s, 100*m[s].r1, 100*m[s].r5)
		}
		return b.String()
	}
	offMean := 0.0
	for _, s := range assocCVSets {
		offMean += obj(off[s])
	}
	t.Logf("off:%s mean %.2f", line(off), 100*offMean/float64(len(assocCVSets)))
	order := make([]int, len(grid))
	deltas := make([]float64, len(grid))
	for i := range grid {
		order[i] = i
		_, deltas[i] = cv(i)
	}
	sort.SliceStable(order, func(a, b int) bool { return deltas[order[a]] > deltas[order[b]] })
	if os.Getenv("SEARCH_ASSOC_ALL") != "" {
		for _, i := range order {
			m, d := cv(i)
			t.Logf("%-52s%s change %+.2f", grid[i], line(m), d)
		}
	}
	t.Log("best settings, each set measured with a table learned on the other four:")
	for _, i := range order[:min(15, len(order))] {
		m, d := cv(i)
		t.Logf("  %-52s%s change %+.2f", grid[i], line(m), d)
	}
	seen := map[string]bool{}
	for _, i := range order {
		g := grid[i]
		for _, k := range []string{g.method.String(), fmt.Sprintf("any %v soft %v", g.any, g.soft)} {
			if !seen[k] {
				seen[k] = true
				m, d := cv(i)
				t.Logf("best of %-24s %-52s%s change %+.2f", k+":", grid[i], line(m), d)
			}
		}
	}
	neg := 0
	for _, d := range deltas {
		if d < 0 {
			neg++
		}
	}
	t.Logf("%d settings; %d lose on the held-out sets, median change %+.2f", len(grid), neg, median(deltas))
	// Nested: the setting chosen within the other four sets.
	nested := 0.0
	for _, h := range assocCVSets {
		rest := without(assocCVSets, h)
		best, bestScore := -1, 0.0
		for i := range grid {
			sc := 0.0
			for _, in := range rest {
				sc += obj(figs[i][key(without(assocCVSets, h, in))][in]) - obj(off[in])
			}
			if best < 0 || sc > bestScore+1e-9 {
				best, bestScore = i, sc
			}
		}
		f := figs[best][key(rest)][h]
		nested += obj(f) - obj(off[h])
		t.Logf("nested, %s held out: off %.1f/%.1f, chosen within the other four %.1f/%.1f (%s; %+.2f within them)",
			h, 100*off[h].r1, 100*off[h].r5, 100*f.r1, 100*f.r5, grid[best], 100*bestScore/float64(len(rest)))
	}
	t.Logf("nested cross-validation: mean change %+.2f points of (@1+@5)/2", 100*nested/float64(len(assocCVSets)))
	// The shipped setting: cross-validated, and learned on all five.
	for i, g := range grid {
		if g.shipped() {
			m, d := cv(i)
			t.Logf("assocOn (%s), cross-validated:%s change %+.2f", g, line(m), d)
		}
	}
	x := newIndex(docs, func() params { p := assocOn; p.assocTable = learnShipped(t); return p }())
	in := map[string]setFig{}
	for _, s := range assocCVSets {
		r1, r5 := setRecall(x, sets[s])
		in[s] = setFig{r1, r5}
	}
	t.Logf("assocOn, learned on all five, in sample:%s", line(in))
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
