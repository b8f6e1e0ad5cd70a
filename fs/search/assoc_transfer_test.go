package search

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
)

// What the associations learned from labelled queries are worth depends
// on whether the servers a user has are among those they were learned
// over. Two cross-validations tell the two cases apart:
//
//   - leave one query set out (in domain): each set is measured with a
//     table learned on the other sets, over the same twelve servers;
//   - leave one server out (transfer): the queries whose answer is a
//     server's tool are measured with a table learned on every other
//     query, so the table has never seen that server's tools wanted,
//     while the trained servers' tools compete with them, as in a
//     catalog that mixes servers the table knows with others.
//
// A setting is chosen on both (TestAssocTransfer): the best in domain
// among those that cost at most transferSlack points at @1, and as many
// at @5, on servers left out, beside the ranking without associations. The shipped setting
// stays while it meets that line and is within keepMargin of the best:
// settings that close differ by a handful of queries, and a rule that
// switches on each would follow noise.

// transferSlack is how many points of recall@1, and of recall@5, on
// servers left out of the training a learned part may cost, beside none.
const transferSlack = 1.0

// keepMargin is how far (in points of the mean of @1 and @5 in domain)
// the best setting must be ahead of the shipped one to replace it.
const keepMargin = 0.5

// trainSets are the query sets a table may be learned from: every set
// but the blind ones (blindSets), which measure the result.
var trainSets = []string{"queries", "holdout", "fresh", "unseen", "sealed", "final", "blind", "blind2", "blind3", "blind4", "train1", "train2", "train3", "train4", "train5", "train6", "train7", "train8", "train9", "train10", "train11", "train12", "train13", "train14", "train15", "train16", "train17", "train18", "train19", "train20", "train21", "train22", "train23", "train24", "train25", "train26", "train27", "train28", "train29", "train30", "train31", "train32", "train33"}

// fold is one split of a cross-validation.
type fold struct {
	name        string
	train, test []query
}

// transferFolds returns the leave-one-server-out folds of qs, one per
// server a query wants.
func transferFolds(qs []query) []fold {
	var servers []string
	seen := map[string]bool{}
	for _, q := range qs {
		for _, w := range q.want {
			s, _, _ := strings.Cut(w, ":")
			if !seen[s] {
				seen[s] = true
				servers = append(servers, s)
			}
		}
	}
	sort.Strings(servers)
	var out []fold
	for _, s := range servers {
		f := fold{name: s}
		for _, q := range qs {
			wants := false
			for _, w := range q.want {
				wants = wants || strings.HasPrefix(w, s+":")
			}
			if wants {
				f.test = append(f.test, q)
			} else {
				f.train = append(f.train, q)
			}
		}
		out = append(out, f)
	}
	return out
}

// setFolds returns the leave-one-set-out folds of sets.
func setFolds(sets map[string][]query, names []string) []fold {
	var out []fold
	for _, h := range names {
		f := fold{name: h, test: sets[h]}
		for _, s := range without(names, h) {
			f.train = append(f.train, sets[s]...)
		}
		out = append(out, f)
	}
	return out
}

// cvFig is the figure of a cross-validation: queries found first and
// in the first five, of n.
type cvFig struct{ at1, at5, n int }

func (f *cvFig) add(x *Index, qs []query) {
	rank := searchRanker(x)
	for _, q := range qs {
		got := rank(q.text)
		for i, g := range got {
			if contains(q.want, g) {
				if i == 0 {
					f.at1++
				}
				if i < 5 {
					f.at5++
				}
				break
			}
		}
	}
	f.n += len(qs)
}

// merge adds g's queries to f's.
func (f *cvFig) merge(g cvFig) {
	f.at1 += g.at1
	f.at5 += g.at5
	f.n += g.n
}

// transferCVs returns the twelve servers' documents, the ranking without
// associations over them, and the folds of both cross-validations over
// trainSets: "set" (a set left out in turn) and "server" (a server's
// queries left out in turn).
func transferCVs(tb testing.TB) ([]Doc, *Index, map[string][]fold) {
	docs := ToolDocs(testCatalog(tb))
	sets := map[string][]query{}
	var all []query
	for _, s := range trainSets {
		sets[s] = readQueries(tb, "testdata/"+s+".txt")
		all = append(all, sets[s]...)
	}
	return docs, newIndex(docs, noAssoc), map[string][]fold{"set": setFolds(sets, trainSets), "server": transferFolds(all)}
}

func (f cvFig) r1() float64 { return 100 * float64(f.at1) / float64(max(f.n, 1)) }
func (f cvFig) r5() float64 { return 100 * float64(f.at5) / float64(max(f.n, 1)) }
func (f cvFig) String() string {
	return fmt.Sprintf("%.1f/%.1f", f.r1(), f.r5())
}

// TestAssocTransfer measures settings of the associations in domain and
// on servers left out, and names the one chosen. It runs only with
// SEARCH_TUNE=1:
//
//	SEARCH_TUNE=1 go test ./fs/search -run '^TestAssocTransfer$' -v -timeout 30m
func TestAssocTransfer(t *testing.T) {
	if os.Getenv("SEARCH_TUNE") == "" {
		t.Skip("measuring every setting takes minutes: set SEARCH_TUNE=1 to run it")
	}
	docs, base, cvs := transferCVs(t)
	var off = map[string]*cvFig{}
	for name, fs := range cvs {
		off[name] = &cvFig{}
		for _, f := range fs {
			off[name].add(base, f.test)
		}
	}
	t.Logf("without associations: in domain %s, servers left out %s", off["set"], off["server"])
	var grid []assocSetting
	for _, m := range []assocMethod{{model1: true}, {model1: true, stems: true}} {
		for _, w := range []float64{0.2, 0.25, 0.3, 0.35, 0.5, 0.85} {
			for _, k := range []int{2, 3, 4} {
				for _, mn := range []int{1, 2} {
					for v := range 4 {
						grid = append(grid, assocSetting{method: m, weight: w, k: k, min: mn, any: true, soft: v&1 != 0, house: v&2 != 0})
					}
				}
			}
		}
	}
	tables := map[assocMethod]map[string][]*assocTable{}
	for _, s := range grid {
		if tables[s.method] != nil {
			continue
		}
		tables[s.method] = map[string][]*assocTable{}
		for name, fs := range cvs {
			for _, f := range fs {
				tables[s.method][name] = append(tables[s.method][name], trainAssoc(assocPairs(t, base, f.train, s.method), s.method))
			}
		}
	}
	figs := crossValidateGrid(len(grid), cvs, func(i int, name string, j int) *Index {
		s := grid[i]
		tab := tables[s.method][name][j]
		if s.house {
			tab = tab.withoutHouse(base)
		}
		return newIndex(docs, s.params(tab.trim(s.k, s.min)))
	})
	r := transferRule(figs, off, func(i int) bool { return grid[i].shipped() })
	for _, i := range r.order {
		mark := r.mark(i)
		if os.Getenv("SEARCH_ASSOC_ALL") != "" || mark == "*" || mark == "+" || i == r.order[0] {
			t.Logf("%s %-48s in domain %s, servers left out %s", mark, grid[i], figs[i]["set"], figs[i]["server"])
		}
	}
	switch {
	case r.shipped < 0:
		t.Logf("shipped: not in the grid")
	case r.chosen == r.shipped:
		t.Logf("shipped: %-48s in domain %s, servers left out %s: kept (meets the line, within %.1f of the best)", grid[r.shipped], figs[r.shipped]["set"], figs[r.shipped]["server"], keepMargin)
	default:
		t.Logf("shipped: %-48s in domain %s, servers left out %s: replace it with the setting marked *", grid[r.shipped], figs[r.shipped]["set"], figs[r.shipped]["server"])
	}
}

// crossValidateGrid measures each of n settings on every fold of cvs,
// two settings at a time: index(i, name, j) is the ranking of setting i
// for the j-th fold of cvs[name], which is measured on that fold's test
// queries.
func crossValidateGrid(n int, cvs map[string][]fold, index func(i int, name string, j int) *Index) []map[string]*cvFig {
	figs := make([]map[string]*cvFig, n)
	var wg sync.WaitGroup
	sem := make(chan bool, 2)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- true
			defer func() { <-sem }()
			out := map[string]*cvFig{}
			for name, fs := range cvs {
				fig := &cvFig{}
				for j, f := range fs {
					fig.add(index(i, name, j), f.test)
				}
				out[name] = fig
			}
			figs[i] = out
		}()
	}
	wg.Wait()
	return figs
}

// ruling is what the transfer rule makes of a grid's figures: the
// settings best first in domain (by the mean of @1 and @5), the best that
// meets the line on servers left out (within transferSlack of off's
// figures at @1 and at @5), the shipped one, and the one chosen: the shipped one
// while it meets the line and is within keepMargin of the best, else the
// best. An index is -1 when there is none.
type ruling struct {
	order                 []int
	best, shipped, chosen int
	meets                 func(i int) bool
}

func transferRule(figs []map[string]*cvFig, off map[string]*cvFig, shipped func(i int) bool) ruling {
	obj := func(f *cvFig) float64 { return (f.r1() + f.r5()) / 2 }
	r := ruling{order: make([]int, len(figs)), best: -1, shipped: -1}
	for i := range r.order {
		r.order[i] = i
	}
	sort.SliceStable(r.order, func(a, b int) bool { return obj(figs[r.order[a]]["set"]) > obj(figs[r.order[b]]["set"]) })
	r.meets = func(i int) bool {
		f, o := figs[i]["server"], off["server"]
		return f.r1() >= o.r1()-transferSlack && f.r5() >= o.r5()-transferSlack
	}
	for _, i := range r.order {
		if r.meets(i) && r.best < 0 {
			r.best = i
		}
		if shipped(i) {
			r.shipped = i
		}
	}
	r.chosen = r.best
	if r.shipped >= 0 && r.meets(r.shipped) && r.best >= 0 && obj(figs[r.best]["set"])-obj(figs[r.shipped]["set"]) <= keepMargin {
		r.chosen = r.shipped
	}
	return r
}

// mark is a setting's mark in a log: * chosen, + the best that meets the
// line, - below the line.
func (r ruling) mark(i int) string {
	switch {
	case i == r.chosen:
		return "*"
	case i == r.best:
		return "+"
	case !r.meets(i):
		return "-"
	}
	return " "
}
