package search

import (
	"math"
	"sort"
)

// Learned re-ranking of the first ten (docs/BENCHMARKS.md, "Learned
// re-ranking of the first ten"): the first rerankK hits of the ranking
// are ordered again by a linear model over features of each (query,
// candidate) pair that the ranking already has or cheaply computes. The
// model is off unless params.rerank is set and rerankWeights holds one
// weight per feature.

// rerankK is how many of the first hits the model orders again.
const rerankK = 10

// rerankFeatures names the features, in the order of rerankVec.
var rerankFeatures = []string{
	"score/top", "log score/top", "first", "1/(rank+1)",
	"coverage", "literal", "vocabulary", "unknown word",
	"name coverage", "whole name coverage", "name words asked", "name length",
	"action agrees", "action and object agree", "action differs",
	"family variant", "named server's", "other server's",
	"name field", "title field", "summary field", "description field", "argument names", "argument text", "server field",
	"pairs", "log description length", "deprecated",
}

// rerankWeights are the model's weights, one per rerankFeatures entry,
// fitted on the five tuned query sets (TestRerank). Empty: the model is
// not used.
var rerankWeights []float64

// rerankTerms are, per document and field, its terms (for the fields'
// features).
type rerankTerms [][nFields]map[string]bool

func (x *Index) fieldTerms() rerankTerms {
	x.rrOnce.Do(func() {
		x.rrTerms = make(rerankTerms, len(x.docs))
		for i := range x.docs {
			for f, fd := range fields {
				m := map[string]bool{}
				for _, t := range terms(fd(&x.docs[i])) {
					m[t] = true
				}
				x.rrTerms[i][f] = m
			}
		}
	})
	return x.rrTerms
}

// rerankDoc returns the index in x.docs of the document named name (the
// docs are sorted by name), or -1.
func (x *Index) rerankDoc(name string) int {
	i := sort.Search(len(x.docs), func(i int) bool { return x.docs[i].Name >= name })
	if i < len(x.docs) && x.docs[i].Name == name {
		return i
	}
	return -1
}

// rerankVecs returns the features of the first rerankK hits.
func (x *Index) rerankVecs(query string, cs []concept, hits []Hit) [][]float64 {
	var asked []concept
	for _, c := range cs {
		if !c.expansion {
			asked = append(asked, c)
		}
	}
	named := x.namedServers(asked)
	npairs := wordPairs(cs)
	// The query's action, as the ordering signals read it.
	qa := x.queryActionAlways(query, asked)
	ft := x.fieldTerms()
	n := min(len(hits), rerankK)
	out := make([][]float64, n)
	top := hits[0].Score
	if top <= 0 {
		top = 1
	}
	na := float64(max(len(asked), 1))
	for r := 0; r < n; r++ {
		v := make([]float64, len(rerankFeatures))
		out[r] = v
		i := x.rerankDoc(hits[r].Doc.Name)
		ratio := max(hits[r].Score/top, 1e-6)
		v[0], v[1] = ratio, math.Log(ratio)
		if r == 0 {
			v[2] = 1
		}
		v[3] = 1 / float64(r+1)
		if i < 0 {
			continue
		}
		d := &x.docs[i]
		inDoc := func(ts []string) bool {
			for _, t := range ts {
				if x.terms[t] == nil || x.terms[t].freq[i] == 0 {
					return false
				}
			}
			return len(ts) > 0
		}
		var matched, literal, vocab, unknown float64
		var inField [nFields]float64
		for _, c := range asked {
			best := 0.0
			for _, a := range c.alts {
				if inDoc(a.terms) && a.weight > best {
					best = a.weight
				}
			}
			if best == 0 {
				continue
			}
			matched++
			switch {
			case c.word && inDoc(c.alts[0].terms):
				literal++
			case !x.has(c.alts[0].terms) && c.word:
				unknown++
			default:
				vocab++
			}
			for f := range fields {
				for _, a := range c.alts {
					ok := len(a.terms) > 0
					for _, t := range a.terms {
						ok = ok && ft[i][f][t]
					}
					if ok {
						inField[f] += a.weight
						break
					}
				}
			}
		}
		v[4], v[5], v[6], v[7] = matched/na, literal/na, vocab/na, unknown/na
		v[8] = nameCoverage(x.names[i], asked)
		v[9] = nameCoverage(x.fullNames[i], asked)
		words := 0
		for _, t := range x.fullNames[i] {
			for _, c := range asked {
				hit := false
				for _, a := range c.alts {
					hit = hit || contains(a.terms, t)
				}
				if hit {
					words++
					break
				}
			}
		}
		v[10], v[11] = float64(words), float64(len(x.fullNames[i]))
		if qa != noAction {
			da, at := nameAction(x.fullNames[i])
			switch {
			case da == noAction:
			case !x.agree(qa, da):
				v[14] = 1
			default:
				v[12] = 1
				for j, t := range x.fullNames[i] {
					if j == at {
						continue
					}
					for _, c := range asked {
						for _, a := range c.alts {
							if contains(a.terms, t) {
								v[13] = 1
							}
						}
					}
				}
			}
		}
		if len(x.extends[i]) > 0 && x.familyFactorOf(i, asked) {
			v[15] = 1
		}
		if len(named) > 0 {
			if x.namesServer(i, named) {
				v[16] = 1
			} else {
				v[17] = 1
			}
		}
		for f := 0; f < 7; f++ {
			v[18+f] = inField[f] / na
		}
		if npairs > 0 {
			v[25] = float64(x.pairCount(i, cs)) / float64(npairs)
		}
		v[26] = math.Log(1 + float64(len(terms(d.Description))))
		if d.Deprecated {
			v[27] = 1
		}
	}
	return out
}

// queryActionAlways is queryAction with questions read as reading,
// whatever the ordering's setting.
func (x *Index) queryActionAlways(query string, cs []concept) action {
	if rs := runs(query); len(rs) > 0 && len(rs[0]) == 1 && questionWords[rs[0][0]] {
		return readAction
	}
	return x.queryAction(query, cs)
}

// familyFactorOf reports whether document i is a family's variant whose
// added words the query does not ask for.
func (x *Index) familyFactorOf(i int, cs []concept) bool {
	for _, t := range x.extends[i] {
		for _, c := range cs {
			for _, a := range c.alts {
				if contains(a.terms, t) {
					return false
				}
			}
		}
	}
	return true
}

// rerank orders the first rerankK hits again by w · features, the rest
// left as they are.
func (x *Index) rerank(query string, cs []concept, hits []Hit, w []float64) []Hit {
	if len(hits) < 2 || len(w) != len(rerankFeatures) || len(cs) == 0 {
		return hits
	}
	vs := x.rerankVecs(query, cs, hits)
	type scored struct {
		h Hit
		s float64
	}
	ss := make([]scored, len(vs))
	for r, v := range vs {
		s := 0.0
		for k := range v {
			s += w[k] * v[k]
		}
		ss[r] = scored{hits[r], s}
	}
	sort.SliceStable(ss, func(a, b int) bool { return ss[a].s > ss[b].s })
	out := append([]Hit(nil), hits...)
	for r := range ss {
		out[r] = ss[r].h
	}
	return out
}
