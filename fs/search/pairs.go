package search

import (
	"math"
	"sort"
)

// Learned re-ranking by word pairs: the first pairK hits of the ranking
// are ordered again by a linear model learned from labelled queries. Its
// features are, for a query and a candidate tool, every pair of a query
// word and a word of the tool's name ("folder" with "directory", "tell"
// with "post"), the candidate's score over the best one's (log), and the
// 28 features of rerank.go (coverage, action agreement, fields, ...).
// The weights are learned by an averaged perceptron: for each labelled
// query, while a wrong candidate of the first ten scores within a margin
// of the best wanted one, the wanted one's features gain and the wrong
// one's lose.
//
// Like the associations, the pairs name words, never a tool or a server:
// words that name a server of the catalog and its house words (a word a
// server puts in most of its tools' names: "browser", "file") take no
// part, at learning and at search time, and a pair must have met in at
// least two labelled queries (a model may leave out the 28 features).
//
// Measured as the associations' setting was (TestPairTransfer;
// docs/BENCHMARKS.md, "Fourteenth round"), it is off: on the query sets
// left out one at a time it gains six to eight points at @1, but on the
// queries of a server left out of the training it costs more than the
// associations may (transferSlack). The model is learned only by
// the tests (pairs_train_test.go) and given to an index in
// params.pairTable.

// pairK is how many of the first hits the model orders again.
const pairK = 10

// pairTable is a learned model: the weight of the score's logarithm, of
// each rerankFeatures entry, and of each (query stem, name stem) pair.
type pairTable struct {
	scale float64
	dense []float64
	pairs map[[2]string]float64
}

// pairWords are the query's distinct stems that name no server of the
// catalog.
func (x *Index) pairWords(query string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range terms(query) {
		if !x.servers[w] && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// pairNames are document i's name stems that are no server's name and
// no house word.
func (x *Index) pairNames(i int) []string {
	var out []string
	for _, t := range x.names[i] {
		if !x.servers[t] && !x.house[t] {
			out = append(out, t)
		}
	}
	return out
}

// pairCandidate is one of the first hits, as the model sees it.
type pairCandidate struct {
	hit   Hit
	base  float64 // log of its score over the best one's
	pairs [][2]string
	dense []float64
}

// pairCandidates returns the model's view of the first pairK hits.
func (x *Index) pairCandidates(query string, cs []concept, hits []Hit) []pairCandidate {
	n := min(len(hits), pairK)
	if n == 0 {
		return nil
	}
	vs := x.rerankVecs(query, cs, hits[:n])
	qw := x.pairWords(query)
	top := max(hits[0].Score, 1e-9)
	out := make([]pairCandidate, n)
	for r := range n {
		c := pairCandidate{hit: hits[r], base: math.Log(max(hits[r].Score/top, 1e-6)), dense: vs[r]}
		if i := x.rerankDoc(hits[r].Doc.Name); i >= 0 {
			for _, t := range x.pairNames(i) {
				for _, w := range qw {
					c.pairs = append(c.pairs, [2]string{w, t})
				}
			}
		}
		out[r] = c
	}
	return out
}

// score is the model's score of a candidate.
func (t *pairTable) score(c pairCandidate) float64 {
	s := t.scale * c.base
	for _, p := range c.pairs {
		s += t.pairs[p]
	}
	for k, v := range c.dense {
		if k < len(t.dense) {
			s += t.dense[k] * v
		}
	}
	return s
}

// pairRerank orders the first pairK hits again by the model, the rest
// left as they are.
func (x *Index) pairRerank(query string, cs []concept, hits []Hit, t *pairTable) []Hit {
	if t == nil || len(hits) < 2 || len(cs) == 0 {
		return hits
	}
	c := x.pairCandidates(query, cs, hits)
	s := make([]float64, len(c))
	for r := range c {
		s[r] = t.score(c[r])
	}
	idx := make([]int, len(c))
	for r := range idx {
		idx[r] = r
	}
	sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]] > s[idx[b]] })
	out := append([]Hit(nil), hits...)
	for r, k := range idx {
		out[r] = c[k].hit
	}
	return out
}
