package search

import (
	"math"
	"sort"
	"strings"
)

// feedback returns the concepts of pseudo-relevance feedback (RM3): the
// terms that weigh most in the first fbDocs hits of a first ranking, each
// weighted by the hit's share of their scores and by the term's idf, that
// the query does not already ask for. Each is a concept of its own, at
// fbWeight times its weight relative to the heaviest.
func (x *Index) feedback(cs []concept, hits []Hit) []concept {
	asked := map[string]bool{}
	for _, c := range cs {
		for _, a := range c.alts {
			for _, t := range a.terms {
				asked[t] = true
			}
		}
	}
	top := hits[:min(len(hits), x.p.fbDocs)]
	total := 0.0
	for _, h := range top {
		total += h.Score
	}
	if total <= 0 {
		return nil
	}
	byName := map[string]int{}
	for i := range x.docs {
		byName[x.docs[i].Name] = i
	}
	w := map[string]float64{}
	for _, h := range top {
		i := byName[h.Doc.Name]
		sum := 0.0
		for _, f := range x.docTerms[i] {
			sum += f
		}
		for t, f := range x.docTerms[i] {
			if !asked[t] && !x.servers[t] {
				w[t] += h.Score / total * f / sum * x.terms[t].idf
			}
		}
	}
	ts := make([]string, 0, len(w))
	for t := range w {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool {
		if w[ts[i]] != w[ts[j]] {
			return w[ts[i]] > w[ts[j]]
		}
		return ts[i] < ts[j]
	})
	ts = ts[:min(len(ts), x.p.fbTerms)]
	var out []concept
	for _, t := range ts {
		out = append(out, concept{alts: []alt{{terms: []string{t}, weight: x.p.fbWeight * w[t] / w[ts[0]]}}, expansion: true})
	}
	return out
}

// cooccurring returns, for a term of the index, the coTerms terms that
// most often occur in the same documents as it across the catalog (by
// cosine of their document sets, in at least two documents together), at
// coWeight times that cosine: words the catalog's own descriptions use
// together ("issue" and "comment", "graph" and "entity") stand in for each
// other a little.
func (x *Index) cooccurring(t string) []alt {
	co := map[string]int{}
	df := func(u string) int { return len(x.terms[u].freq) }
	if x.p.coSentences {
		df = func(u string) int { return len(x.inUnits[u]) }
		for _, i := range x.inUnits[t] {
			for u := range x.units[i] {
				if u != t {
					co[u]++
				}
			}
		}
	} else {
		for i := range x.terms[t].freq {
			for u := range x.docTerms[i] {
				if u != t {
					co[u]++
				}
			}
		}
	}
	type cand struct {
		t   string
		cos float64
	}
	var cs []cand
	for u, c := range co {
		if c < 2 || x.servers[u] {
			continue
		}
		cs = append(cs, cand{u, float64(c) / math.Sqrt(float64(df(t))*float64(df(u)))})
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].cos != cs[j].cos {
			return cs[i].cos > cs[j].cos
		}
		return cs[i].t < cs[j].t
	})
	var out []alt
	for _, c := range cs[:min(len(cs), x.p.coTerms)] {
		out = append(out, alt{terms: []string{c.t}, weight: x.p.coWeight * c.cos})
	}
	return out
}

// gramAlts returns, for a word the index does not know, the terms whose
// character trigrams (of the word with its ends marked) it shares at
// least gramMin of, by Dice's coefficient, at gramWeight times it: forms
// the stemmer does not reduce ("summarize"/"summary", "geocoding"/
// "geocode") and misspellings meet.
func (x *Index) gramAlts(t string) []alt {
	if len(t) < minPrefix || !isLetters(t) {
		return nil
	}
	g := trigrams(t)
	var out []alt
	for _, u := range x.sorted {
		if len(u) < 3 || !isLetters(u) {
			continue
		}
		h := trigrams(u)
		shared := 0
		for k := range g {
			if h[k] {
				shared++
			}
		}
		if d := 2 * float64(shared) / float64(len(g)+len(h)); d >= x.p.gramMin {
			out = append(out, alt{terms: []string{u}, weight: x.p.gramWeight * d})
		}
	}
	return out
}

func trigrams(w string) map[string]bool {
	w = "#" + w + "#"
	out := map[string]bool{}
	for i := 0; i+3 <= len(w); i++ {
		out[strings.Clone(w[i:i+3])] = true
	}
	return out
}

// sentences splits text at sentence ends and line breaks.
func sentences(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return r == '.' || r == '\n' || r == ';' || r == '!' || r == '?' })
}
