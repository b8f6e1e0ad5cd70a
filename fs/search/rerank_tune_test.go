package search

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
)

// rrQuery is one query's first rerankK hits: their features and which
// of them the query wants.
type rrQuery struct {
	vecs [][]float64
	want []bool
}

// rrExamples ranks every query of sets with x (the re-ranker off) and
// keeps its first hits' features.
func rrExamples(x *Index, qs []query) []rrQuery {
	var out []rrQuery
	for _, q := range qs {
		hits := x.Search(q.text, 0)
		e := rrQuery{}
		if len(hits) > 0 {
			e.vecs = x.rerankVecs(q.text, x.concepts(q.text), hits)
		}
		for r := range e.vecs {
			e.want = append(e.want, contains(q.want, hits[r].Doc.Server+":"+hits[r].Doc.Tool))
		}
		out = append(out, e)
	}
	return out
}

// rrRecall is the share of queries with a wanted hit first and in the
// first five, ordered by w (nil: the first ranking's order).
func rrRecall(es []rrQuery, w []float64) (r1, r5 float64) {
	for _, e := range es {
		order := make([]int, len(e.vecs))
		s := make([]float64, len(e.vecs))
		for r, v := range e.vecs {
			order[r] = r
			for k := range w {
				s[r] += w[k] * v[k]
			}
		}
		if w != nil {
			sort.SliceStable(order, func(a, b int) bool { return s[order[a]] > s[order[b]] })
		}
		for pos, r := range order {
			if e.want[r] {
				if pos == 0 {
					r1++
				}
				if pos < 5 {
					r5++
				}
				break
			}
		}
	}
	n := float64(len(es))
	return r1 / n, r5 / n
}

// rrFit fits w by pairwise logistic regression: for each query with a
// wanted hit among its first ones, each wanted hit against each other,
// the pairs of a query weighing 1 together, with an L2 penalty of lambda
// on the weights of standardised features. It returns the weights of the
// raw features.
func rrFit(es []rrQuery, lambda float64, top bool) []float64 {
	nf := len(rerankFeatures)
	mean, sd := make([]float64, nf), make([]float64, nf)
	rows := 0
	for _, e := range es {
		for _, v := range e.vecs {
			rows++
			for k := range v {
				mean[k] += v[k]
			}
		}
	}
	for k := range mean {
		mean[k] /= float64(max(rows, 1))
	}
	for _, e := range es {
		for _, v := range e.vecs {
			for k := range v {
				sd[k] += (v[k] - mean[k]) * (v[k] - mean[k])
			}
		}
	}
	for k := range sd {
		sd[k] = math.Sqrt(sd[k] / float64(max(rows, 1)))
	}
	type pair struct {
		d []float64
		w float64
	}
	var pairs []pair
	nq := 0
	for _, e := range es {
		var ps []pair
		for a := range e.vecs {
			for b := range e.vecs {
				if !e.want[a] || e.want[b] {
					continue
				}
				d := make([]float64, nf)
				for k := range d {
					if sd[k] > 1e-9 {
						d[k] = (e.vecs[a][k] - e.vecs[b][k]) / sd[k]
					}
				}
				pw := 1.0
				if top {
					pw = 1 / float64(b+1)
				}
				ps = append(ps, pair{d: d, w: pw})
			}
		}
		if len(ps) == 0 {
			continue
		}
		nq++
		sum := 0.0
		for _, p := range ps {
			sum += p.w
		}
		for i := range ps {
			ps[i].w /= sum
		}
		pairs = append(pairs, ps...)
	}
	w := make([]float64, nf)
	grad := make([]float64, nf)
	step := 0.5
	for it := 0; it < 3000; it++ {
		for k := range grad {
			grad[k] = 2 * lambda * w[k]
		}
		for _, p := range pairs {
			z := 0.0
			for k := range w {
				z += w[k] * p.d[k]
			}
			g := -p.w / float64(nq) / (1 + math.Exp(z))
			for k := range w {
				grad[k] += g * p.d[k]
			}
		}
		for k := range w {
			w[k] -= step * grad[k]
		}
	}
	raw := make([]float64, nf)
	for k := range w {
		if sd[k] > 1e-9 {
			raw[k] = w[k] / sd[k]
		}
	}
	return raw
}

var rrLambdas = []float64{0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3}

// rrChoose picks lambda by leave-one-set-out cross-validation over the
// sets of fit (mean of (@1+@5)/2 on the held-out set).
func rrChoose(ex map[string][]rrQuery, fit []string, top bool) float64 {
	best, bestScore := rrLambdas[0], -1.0
	for _, l := range rrLambdas {
		sum := 0.0
		for _, held := range fit {
			var train []rrQuery
			for _, s := range fit {
				if s != held {
					train = append(train, ex[s]...)
				}
			}
			r1, r5 := rrRecall(ex[held], rrFit(train, l, top))
			sum += (r1 + r5) / 2
		}
		if sum > bestScore+1e-9 {
			best, bestScore = l, sum
		}
	}
	return best
}

// TestRerank measures the learned re-ranking of the first ten hits
// (rerank.go) on the five tuned sets (wnSets) by leave-one-set-out
// cross-validation: for each set, the model is fitted on the other four
// (its L2 penalty chosen by an inner leave-one-set-out over those four)
// and measured on it, against the first ranking. Then the model fitted
// on all five, as a table for rerankWeights. It runs only with
// SEARCH_TUNE=1:
//
//	SEARCH_TUNE=1 go test ./fs/search -run TestRerank -v
func TestRerank(t *testing.T) {
	if os.Getenv("SEARCH_TUNE") == "" {
		t.Skip("fitting the re-ranker takes a while: set SEARCH_TUNE=1 to run it")
	}
	p := defaults
	p.rerank = false
	x := newIndex(ToolDocs(testCatalog(t)), p)
	full := map[string][]rrQuery{}
	for _, s := range wnSets {
		full[s] = rrExamples(x, readQueries(t, "testdata/"+s+".txt"))
	}
	for _, variant := range []struct {
		name string
		keep func(k int) bool
		top  bool
	}{
		{"every feature", func(int) bool { return true }, false},
		// Pairs against a hit the first ranking put higher weigh more
		// (1/(its rank+1)): the order near the top counts most.
		{"every feature, pairs weighted to the top", func(int) bool { return true }, true},
		// The ranking's own signals only: score, rank, coverage and its
		// kinds, the name, the action, the family, the server; not the
		// fields, pairs, lengths.
		{"the ranking's signals only", func(k int) bool { return k < 18 }, false},
	} {
		t.Logf("%s:", variant.name)
		ex := map[string][]rrQuery{}
		for s, es := range full {
			for _, e := range es {
				m := rrQuery{want: e.want}
				for _, v := range e.vecs {
					mv := make([]float64, len(v))
					for k := range v {
						if variant.keep(k) {
							mv[k] = v[k]
						}
					}
					m.vecs = append(m.vecs, mv)
				}
				ex[s] = append(ex[s], m)
			}
		}
		rrReport(t, ex, variant.top)
	}
}

func rrReport(t *testing.T, ex map[string][]rrQuery, top bool) {
	var b1, b5, l1, l5 float64
	t.Logf("%-8s %7s %13s %13s %s", "held out", "queries", "first @1/@5", "learned @1/@5", "lambda")
	for _, held := range wnSets {
		var fit []string
		var train []rrQuery
		for _, s := range wnSets {
			if s != held {
				fit = append(fit, s)
				train = append(train, ex[s]...)
			}
		}
		lambda := rrChoose(ex, fit, top)
		w := rrFit(train, lambda, top)
		f1, f5 := rrRecall(ex[held], nil)
		r1, r5 := rrRecall(ex[held], w)
		b1, b5, l1, l5 = b1+f1, b5+f5, l1+r1, l5+r5
		t.Logf("%-8s %7d %6.1f/%5.1f %6.1f/%5.1f %g", held, len(ex[held]), 100*f1, 100*f5, 100*r1, 100*r5, lambda)
	}
	n := float64(len(wnSets))
	t.Logf("%-8s %7s %6.1f/%5.1f %6.1f/%5.1f (mean of the folds; change %+.1f/%+.1f points)", "mean", "", 100*b1/n, 100*b5/n, 100*l1/n, 100*l5/n, 100*(l1-b1)/n, 100*(l5-b5)/n)
	var all []rrQuery
	for _, s := range wnSets {
		all = append(all, ex[s]...)
	}
	lambda := rrChoose(ex, wnSets, top)
	w := rrFit(all, lambda, top)
	var sb strings.Builder
	for k, v := range w {
		fmt.Fprintf(&sb, "\t%.4g, // %s\n", v, rerankFeatures[k])
	}
	r1, r5 := rrRecall(all, w)
	f1, f5 := rrRecall(all, nil)
	t.Logf("fitted on all five (lambda %g), in sample %.1f/%.1f against %.1f/%.1f:\n%s", lambda, 100*r1, 100*r5, 100*f1, 100*f5, sb.String())
}

// TestRerankOrders checks the hook: with the re-ranker on and weights that
// prefer a lower first rank, the first ten hits come in reverse and the
// rest stay where they were; with no weights, nothing moves.
func TestRerankOrders(t *testing.T) {
	docs := ToolDocs(testCatalog(t))
	q := "list the files in a folder"
	want := New(docs).Search(q, 0)
	if len(want) <= rerankK {
		t.Fatalf("%q finds %d tools, want more than %d for this test", q, len(want), rerankK)
	}
	p := defaults
	p.rerank = true
	x := newIndex(docs, p)
	if got := x.Search(q, 0); got[0].Doc.Name != want[0].Doc.Name {
		t.Errorf("no weights: first %s, want %s", got[0].Doc.Name, want[0].Doc.Name)
	}
	w := make([]float64, len(rerankFeatures))
	w[3] = -1 // 1/(rank+1)
	got := x.rerank(q, x.concepts(q), want, w)
	for r := range got {
		exp := want[r]
		if r < rerankK {
			exp = want[rerankK-1-r]
		}
		if got[r].Doc.Name != exp.Doc.Name {
			t.Errorf("hit %d: %s, want %s", r, got[r].Doc.Name, exp.Doc.Name)
		}
	}
}
