package search

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestTune fits the ranking's numbers (params: BM25F weights and b, k1,
// feedback, co-occurrence and trigram settings) by coordinate ascent on
// recall, with leave-one-set-out cross-validation over the query sets
// (blind.txt never takes part): for each set, the numbers fitted on the
// others are measured on it, beside defaults; then the numbers fitted on
// all sets are printed, to be copied into defaults. It takes minutes, so
// it runs only with SEARCH_TUNE=1:
//
//	SEARCH_TUNE=1 go test ./fs/search -run TestTune -v -timeout 30m
func TestTune(t *testing.T) {
	if os.Getenv("SEARCH_TUNE") == "" {
		t.Skip("fitting the ranking takes minutes: set SEARCH_TUNE=1 to run it")
	}
	docs := ToolDocs(testCatalog(t))
	sets := map[string][]query{}
	for _, s := range tuneSets {
		sets[s] = readQueries(t, "testdata/"+s+".txt")
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	lines := map[string]string{}
	for _, held := range append([]string{""}, tuneSets...) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var fit []string
			for _, s := range tuneSets {
				if s != held {
					fit = append(fit, s)
				}
			}
			p := fitParams(docs, sets, fit)
			var line string
			if held == "" {
				line = "fitted on all sets: " + p.String() + "\n" + ablation(docs, sets, p)
			} else {
				d1, d5 := setRecall(newIndex(docs, defaults), sets[held])
				r1, r5 := setRecall(newIndex(docs, p), sets[held])
				line = fmt.Sprintf("%s held out: defaults %.1f%%/%.1f%%, fitted on the others %.1f%%/%.1f%% (%s)", held, 100*d1, 100*d5, 100*r1, 100*r5, p)
			}
			mu.Lock()
			lines[held] = line
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, s := range tuneSets {
		t.Log(lines[s])
	}
	t.Log(lines[""])
}

// tuneSets are the query sets the numbers are fitted on.
var tuneSets = []string{"queries", "holdout", "fresh", "unseen", "sealed", "final"}

// ablation reports every set's recall with p, and with each technique of
// p turned off in turn.
func ablation(docs []Doc, sets map[string][]query, p params) string {
	var b strings.Builder
	off := []struct {
		name string
		p    params
	}{{"fitted", p}, {"no feedback", p}, {"no co-occurrence", p}, {"no trigrams", p}, {"hand-set BM25F numbers", p}, {"old defaults", defaults}}
	off[1].p.fbWeight = 0
	off[2].p.coWeight = 0
	off[3].p.gramWeight = 0
	off[4].p.weight, off[4].p.b, off[4].p.k1 = defaults.weight, defaults.b, defaults.k1
	for _, o := range off {
		x := newIndex(docs, o.p)
		fmt.Fprintf(&b, "%-24s", o.name)
		for _, s := range tuneSets {
			r1, r5 := setRecall(x, sets[s])
			fmt.Fprintf(&b, " %s %.1f/%.1f", s, 100*r1, 100*r5)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (p params) String() string {
	var b strings.Builder
	for f := range fields {
		fmt.Fprintf(&b, "%s %.2g/%.2g ", fieldNames[f], p.weight[f], p.b[f])
	}
	fmt.Fprintf(&b, "k1 %.2g fb %d/%d/%.2g co %d/%.2g sentences %v backoff %v gram %.2g/%.2g",
		p.k1, p.fbDocs, p.fbTerms, p.fbWeight, p.coTerms, p.coWeight, p.coSentences, p.coBackoff, p.gramMin, p.gramWeight)
	return b.String()
}

func setRecall(x *Index, qs []query) (r1, r5 float64) {
	r1, r5, _ = recall(qs, searchRanker(x))
	return r1, r5
}

// objective is the mean over sets of (recall@1 + recall@5) / 2.
func objective(docs []Doc, sets map[string][]query, fit []string, p params) float64 {
	x := newIndex(docs, p)
	sum := 0.0
	for _, s := range fit {
		r1, r5 := setRecall(x, sets[s])
		sum += (r1 + r5) / 2
	}
	return sum / float64(len(fit))
}

// fitParams is coordinate ascent from defaults with the techniques off:
// each number in turn takes the candidate value that raises the objective
// most, two passes.
func fitParams(docs []Doc, sets map[string][]query, fit []string) params {
	p := defaults
	p.fbDocs, p.fbTerms, p.coTerms, p.gramMin = 3, 5, 3, 0.5
	type knob struct {
		vals []float64
		set  func(*params, float64)
	}
	var knobs []knob
	for f := range fields {
		w := defaults.weight[f]
		knobs = append(knobs,
			knob{[]float64{0, w / 2, w * 0.75, w, w * 1.33, w * 2}, func(p *params, v float64) { p.weight[f] = v }},
			knob{[]float64{0, 0.25, 0.5, 0.75, 1}, func(p *params, v float64) { p.b[f] = v }})
	}
	knobs = append(knobs,
		knob{[]float64{0.6, 0.9, 1.2, 1.6, 2.0}, func(p *params, v float64) { p.k1 = v }},
		knob{[]float64{0, 0.1, 0.2, 0.3, 0.5}, func(p *params, v float64) { p.fbWeight = v }},
		knob{[]float64{1, 2, 3, 5}, func(p *params, v float64) { p.fbDocs = int(v) }},
		knob{[]float64{3, 5, 10, 20}, func(p *params, v float64) { p.fbTerms = int(v) }},
		knob{[]float64{0, 0.1, 0.2, 0.4}, func(p *params, v float64) { p.coWeight = v }},
		knob{[]float64{2, 3, 5, 10}, func(p *params, v float64) { p.coTerms = int(v) }},
		knob{[]float64{0, 1}, func(p *params, v float64) { p.coSentences = v == 1 }},
		knob{[]float64{0, 1}, func(p *params, v float64) { p.coBackoff = v == 1 }},
		knob{[]float64{0, 0.2, 0.4}, func(p *params, v float64) { p.gramWeight = v }},
		knob{[]float64{0.4, 0.5, 0.6, 0.7}, func(p *params, v float64) { p.gramMin = v }},
	)
	best := objective(docs, sets, fit, p)
	for pass := 0; pass < 2; pass++ {
		for _, k := range knobs {
			for _, v := range k.vals {
				q := p
				k.set(&q, v)
				if o := objective(docs, sets, fit, q); o > best+1e-9 {
					best, p = o, q
				}
			}
		}
	}
	return p
}

// TestTechniques measures each expansion technique alone over defaults,
// at a few settings, on every set (blind.txt left out). It runs only with
// SEARCH_TUNE=1.
func TestTechniques(t *testing.T) {
	if os.Getenv("SEARCH_TUNE") == "" {
		t.Skip("measuring every setting takes minutes: set SEARCH_TUNE=1 to run it")
	}
	docs := ToolDocs(testCatalog(t))
	sets := map[string][]query{}
	for _, s := range tuneSets {
		sets[s] = readQueries(t, "testdata/"+s+".txt")
	}
	type run struct {
		name string
		set  func(*params)
	}
	var runs []run
	runs = append(runs, run{"defaults", func(*params) {}})
	for _, d := range []int{1, 3, 5} {
		for _, n := range []int{5, 10, 20} {
			for _, w := range []float64{0.1, 0.3} {
				runs = append(runs, run{fmt.Sprintf("feedback %d docs %d terms %.1f", d, n, w), func(p *params) { p.fbDocs, p.fbTerms, p.fbWeight = d, n, w }})
			}
		}
	}
	for _, n := range []int{2, 5, 10} {
		for _, w := range []float64{0.1, 0.3, 0.6} {
			runs = append(runs, run{fmt.Sprintf("co-occurrence %d terms %.1f", n, w), func(p *params) { p.coTerms, p.coWeight = n, w }})
		}
	}
	for _, sent := range []bool{false, true} {
		for _, n := range []int{3, 10} {
			for _, w := range []float64{0.3, 0.6} {
				runs = append(runs, run{fmt.Sprintf("co-occ backoff sent=%v %d %.1f", sent, n, w), func(p *params) { p.coTerms, p.coWeight, p.coSentences, p.coBackoff = n, w, sent, true }})
			}
		}
		for _, n := range []int{3, 10} {
			runs = append(runs, run{fmt.Sprintf("co-occ sent=%v %d 0.3", sent, n), func(p *params) { p.coTerms, p.coWeight, p.coSentences = n, 0.3, sent }})
		}
	}
	for _, m := range []float64{0.4, 0.5, 0.6} {
		for _, w := range []float64{0.3, 0.6} {
			runs = append(runs, run{fmt.Sprintf("trigrams Dice>=%.1f %.1f", m, w), func(p *params) { p.gramMin, p.gramWeight = m, w }})
		}
	}
	for _, r := range runs {
		p := defaults
		r.set(&p)
		x := newIndex(docs, p)
		var b strings.Builder
		fmt.Fprintf(&b, "%-34s", r.name)
		for _, s := range tuneSets {
			r1, r5 := setRecall(x, sets[s])
			fmt.Fprintf(&b, " %s %.1f/%.1f", s, 100*r1, 100*r5)
		}
		t.Log(b.String())
	}
}

// wnSets are the sets the thesaurus's settings may be chosen on; final.txt
// and blind.txt only report.
var wnSets = []string{"queries", "holdout", "fresh", "unseen", "sealed"}

// wnGrid is every setting of the thesaurus TestWordNet measures.
func wnGrid() []params {
	var out []params
	for _, syn := range []float64{0.2, 0.3, 0.4, 0.6} {
		for _, hyper := range []float64{0, 0.1, 0.2, 0.4} {
			if hyper >= syn {
				continue
			}
			for _, senses := range []int{1, 2, 3} {
				for _, decay := range []float64{0.5, 1} {
					if senses == 1 && decay != 1 {
						continue
					}
					for flags := range 16 {
						p := noVectors
						p.wnSyn, p.wnHyper, p.wnSenses, p.wnDecay = syn, hyper, senses, decay
						p.wnAlways, p.wnVocab, p.wnSoft, p.wnWeak = flags&1 != 0, flags&2 != 0, flags&4 != 0, flags&8 != 0
						if p.wnAlways && p.wnWeak {
							continue
						}
						out = append(out, p)
					}
				}
			}
		}
	}
	return out
}

func (p params) wnString() string {
	if p.wnSyn+p.wnHyper == 0 {
		return "off"
	}
	return fmt.Sprintf("syn %.1f hyper %.1f senses %d decay %.1f always %v weak %v vocab %v soft %v", p.wnSyn, p.wnHyper, p.wnSenses, p.wnDecay, p.wnAlways, p.wnWeak, p.wnVocab, p.wnSoft)
}

// TestWordNet measures the thesaurus (wordnet.go) at every setting of
// wnGrid on the sets of wnSets, with leave-one-set-out cross-validation:
// for each set, the setting that scores best (mean of (@1+@5)/2) on the
// other four is measured on it, beside the thesaurus off; the same with
// the choice kept to words no document and no vocabulary line knows; then
// the setting best on all five, and wnOn without the vocabulary. It runs
// only with SEARCH_TUNE=1 (SEARCH_WN_ALL=1 prints every setting,
// SEARCH_WN_NOVOCAB=1 makes the whole choice without the vocabulary, and
// SEARCH_WN_REPORT=1 adds wnOn on every set, final.txt and blind.txt
// included, which take no part in any choice):
//
//	SEARCH_TUNE=1 SEARCH_WN_REPORT=1 go test ./fs/search -run TestWordNet -v -timeout 30m
func TestWordNet(t *testing.T) {
	if os.Getenv("SEARCH_TUNE") == "" {
		t.Skip("measuring every setting takes minutes: set SEARCH_TUNE=1 to run it")
	}
	docs := ToolDocs(testCatalog(t))
	sets := map[string][]query{}
	for _, s := range querySets {
		sets[s] = readQueries(t, "testdata/"+s+".txt")
	}
	off := noVectors
	off.wnSyn, off.wnHyper = 0, 0
	grid := append([]params{off}, wnGrid()...)
	if os.Getenv("SEARCH_WN_NOVOCAB") != "" {
		// The same choice without the vocabulary, which was written on
		// these sets: the thesaurus in its place, with far more words
		// to expand.
		for i := range grid {
			grid[i].noVocab = true
		}
		off.noVocab = true
	}
	figs := measureGrid(docs, grid, sets)
	score := figs.score
	best := func(on []string) int {
		b := 0
		for i := range grid {
			if score(i, on) > score(b, on)+1e-9 {
				b = i
			}
		}
		return b
	}
	line := figs.line
	if os.Getenv("SEARCH_WN_ALL") != "" {
		for i := range grid {
			t.Logf("%-62s%s mean %.2f", grid[i].wnString(), line(i, wnSets), 100*score(i, wnSets))
		}
	}
	t.Logf("off:%s mean %.2f", line(0, wnSets), 100*score(0, wnSets))
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
		t.Logf("%s held out: off%s, chosen on the others%s (%s)", held, line(0, []string{held}), line(b, []string{held}), grid[b].wnString())
	}
	t.Logf("mean change on the held-out folds: %+.2f points of (@1+@5)/2", 100*delta/float64(len(wnSets)))
	// The same, the choice restricted to the design: only words no
	// document and no vocabulary line knows (wnAlways off).
	only := func(on []string) int {
		b := 0
		for i := range grid {
			if !grid[i].wnAlways && score(i, on) > score(b, on)+1e-9 {
				b = i
			}
		}
		return b
	}
	delta = 0
	for _, held := range wnSets {
		var fit []string
		for _, s := range wnSets {
			if s != held {
				fit = append(fit, s)
			}
		}
		b := only(fit)
		delta += score(b, []string{held}) - score(0, []string{held})
		t.Logf("%s held out, unknown words only: chosen on the others%s (%s)", held, line(b, []string{held}), grid[b].wnString())
	}
	t.Logf("mean change on the held-out folds, unknown words only: %+.2f points", 100*delta/float64(len(wnSets)))
	t.Logf("chosen on all five, unknown words only: %s:%s mean %.2f", grid[only(wnSets)].wnString(), line(only(wnSets), wnSets), 100*score(only(wnSets), wnSets))
	b := best(wnSets)
	t.Logf("chosen on all five: %s:%s mean %.2f", grid[b].wnString(), line(b, wnSets), 100*score(b, wnSets))
	// Without the vocabulary, which was written on these sets: how much of
	// what it gives does the thesaurus give in its place?
	for _, p := range []params{off, wnOn} {
		p.noVocab = true
		x := newIndex(docs, p)
		var sb strings.Builder
		for _, s := range wnSets {
			r1, r5 := setRecall(x, sets[s])
			fmt.Fprintf(&sb, " %s %.1f/%.1f", s, 100*r1, 100*r5)
		}
		t.Logf("no vocabulary, thesaurus %s:%s", p.wnString(), sb.String())
	}
	if os.Getenv("SEARCH_WN_REPORT") != "" {
		for _, p := range []params{off, wnOn} {
			x := newIndex(docs, p)
			var sb strings.Builder
			for _, s := range querySets {
				r1, r5 := setRecall(x, sets[s])
				fmt.Fprintf(&sb, " %s %.1f/%.1f", s, 100*r1, 100*r5)
			}
			t.Logf("every set, %s:%s", p.wnString(), sb.String())
		}
	}
}

// setFig is a setting's recall@1 and @5 on one query set.
type setFig struct{ r1, r5 float64 }

// gridFigs are the figures of each setting of a grid, by query set.
type gridFigs []map[string]setFig

// measureGrid measures each setting of grid on the sets of wnSets, two
// settings at a time.
func measureGrid(docs []Doc, grid []params, sets map[string][]query) gridFigs {
	figs := make(gridFigs, len(grid))
	var wg sync.WaitGroup
	sem := make(chan bool, 2)
	for i, p := range grid {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- true
			defer func() { <-sem }()
			x := newIndex(docs, p)
			m := map[string]setFig{}
			for _, s := range wnSets {
				r1, r5 := setRecall(x, sets[s])
				m[s] = setFig{r1, r5}
			}
			figs[i] = m
		}()
	}
	wg.Wait()
	return figs
}

// score is the mean of (@1+@5)/2 of setting i over the sets on.
func (g gridFigs) score(i int, on []string) float64 {
	sum := 0.0
	for _, s := range on {
		sum += (g[i][s].r1 + g[i][s].r5) / 2
	}
	return sum / float64(len(on))
}

// line lists setting i's figures on the sets on.
func (g gridFigs) line(i int, on []string) string {
	var b strings.Builder
	for _, s := range on {
		fmt.Fprintf(&b, " %s %.1f/%.1f", s, 100*g[i][s].r1, 100*g[i][s].r5)
	}
	return b.String()
}
