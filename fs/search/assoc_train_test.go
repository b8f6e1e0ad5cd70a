package search

import (
	"math"
	"os"
	"sort"
	"strings"
	"testing"
)

// Learning the associations of assoc.go from labelled queries: each query
// of a training set, with the tool(s) it wants, is a pair of a "sentence"
// in the user's words and a "sentence" in the tool's (the terms of its
// name, title, summary, description, argument names and argument
// descriptions, field by field weighted as the ranking weighs them, the
// words that name a server left out). Two methods:
//
//   - "model1": IBM Model 1, a statistical translation model. EM learns
//     t(q|u), the chance that a user writes q where a tool text has u, with
//     a null word for the query words no term explains; a query word's
//     association to a term is the share of its occurrences aligned to it
//     in the last expectation step. A word that the wanted tools' texts
//     have literally aligns to itself, so the other terms of those texts
//     do not take it (they are "explained away").
//   - "pmi": pointwise mutual information between a query word and the
//     terms of the wanted tools' texts, log c(q,u)·N / ((c(q)+s)·c(u))
//     over N queries, smoothed by s, ties by the terms' weight in the
//     texts.
//
// Either way, an association is kept with the number of training queries
// in which the word met the term (params.assocMin filters on it).

// assocMethod is how a table is learned.
type assocMethod struct {
	model1 bool
	// stems keys the table by stems, not the words as typed; stop trains
	// on stop words too (they are never looked up, but in Model 1 they
	// take alignments other words would get).
	stems, stop bool
}

func (m assocMethod) String() string {
	s := "pmi"
	if m.model1 {
		s = "model1"
	}
	if m.stems {
		s += " stems"
	} else {
		s += " words"
	}
	if m.model1 && m.stop {
		s += " +stop"
	}
	return s
}

const (
	// model1Iterations of EM; model1Null is the prior of the null word.
	model1Iterations = 10
	model1Null       = 0.2
	// pmiSmoothing is s, added to a word's count.
	pmiSmoothing = 1.0
)

// assocPair is one training example: the query's words and the wanted
// tool's terms with their weight in its text (summing to 1), weighted by
// the share of the query's wanted tools it is.
type assocPair struct {
	words  []string
	terms  map[string]float64
	weight float64
}

// toolTerms are, per document of x, its terms with their weight in its
// text: Σ over the fields name, title, summary, description, argument
// names and argument descriptions of the field's weight times the term's
// share of the field, normalized to sum to 1. Terms that name a server
// (of the catalog, or the document's own server, also written as one
// word: "sequentialthinking") and terms that are not letters are left
// out: an association must lead to a word of what tools do, never to
// which server or tool.
func toolTerms(x *Index) []map[string]float64 {
	out := make([]map[string]float64, len(x.docs))
	for i := range x.docs {
		m := map[string]float64{}
		sum := 0.0
		joined := serverJoined(&x.docs[i])
		for f := 0; f < serverField; f++ {
			ts := terms(fields[f](&x.docs[i]))
			if len(ts) == 0 {
				continue
			}
			for _, t := range ts {
				if x.servers[t] || x.server[i][t] || joined[t] || !isLetters(t) || len(t) < 2 {
					continue
				}
				w := defaults.weight[f] / float64(len(ts))
				m[t] += w
				sum += w
			}
		}
		for t := range m {
			m[t] /= sum
		}
		out[i] = m
	}
	return out
}

// serverJoined are the stems of a document's server names written as one
// word, with and without a leading or trailing "mcp" or "server":
// "sequential-thinking-server" gives sequentialthinkingserver and
// sequentialthinking (stemmed).
func serverJoined(d *Doc) map[string]bool {
	out := map[string]bool{}
	for _, name := range append([]string{d.Server}, strings.Fields(d.ServerWords)...) {
		var b strings.Builder
		for _, w := range words(name) {
			if isLetters(w) && !strings.Contains(b.String(), w) {
				b.WriteString(w)
			}
		}
		j := b.String()
		for _, fix := range []string{"mcp", "server"} {
			for _, v := range []string{j, strings.TrimPrefix(j, fix), strings.TrimSuffix(j, fix)} {
				if v != "" {
					out[stem(v)] = true
				}
			}
			j = strings.TrimSuffix(strings.TrimPrefix(j, fix), fix)
		}
		if j != "" {
			out[stem(j)] = true
		}
	}
	return out
}

// queryWords are the distinct words of a query a table is keyed by, as
// concepts reads them (runs of letters and digits, compounds whole).
func queryWords(q string, m assocMethod) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range runs(q) {
		w := strings.Join(r, "")
		if stopWords[w] && !m.stop {
			continue
		}
		if m.stems {
			w = stem(w)
		}
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// assocPairs are the training examples of qs over the documents of x.
func assocPairs(tb testing.TB, x *Index, qs []query, m assocMethod) []assocPair {
	tt := toolTerms(x)
	byName := map[string]int{}
	for i, d := range x.docs {
		byName[d.Server+":"+d.Tool] = i
	}
	var out []assocPair
	for _, q := range qs {
		ws := queryWords(q.text, m)
		for _, w := range q.want {
			i, ok := byName[w]
			if !ok {
				tb.Fatalf("query %q wants %s, which no server lists", q.text, w)
			}
			out = append(out, assocPair{words: ws, terms: tt[i], weight: 1 / float64(len(q.want))})
		}
	}
	return out
}

// trainAssoc learns a table from pairs, every association kept, best
// first.
func trainAssoc(pairs []assocPair, m assocMethod) *assocTable {
	// Hard counts: in how many queries (by weight) a word met a term,
	// how many had the word, how many had the term.
	cqt := map[string]map[string]float64{}
	cq := map[string]float64{}
	ct := map[string]float64{}
	prior := map[string]float64{} // Σ of the terms' weights in the texts
	n := 0.0
	for _, p := range pairs {
		n += p.weight
		for t, v := range p.terms {
			ct[t] += p.weight
			prior[t] += p.weight * v
		}
		for _, w := range p.words {
			cq[w] += p.weight
			if cqt[w] == nil {
				cqt[w] = map[string]float64{}
			}
			for t := range p.terms {
				cqt[w][t] += p.weight
			}
		}
	}
	score := map[string]map[string]float64{}
	if m.model1 {
		score = model1(pairs)
	} else {
		for w, ts := range cqt {
			score[w] = map[string]float64{}
			for t, c := range ts {
				score[w][t] = math.Log(c * n / ((cq[w] + pmiSmoothing) * ct[t]))
			}
		}
	}
	tab := &assocTable{stems: m.stems, words: map[string][]assocTerm{}}
	for w, ts := range score {
		var as []assocTerm
		for t, s := range ts {
			if s > 0 && t != "" {
				as = append(as, assocTerm{term: t, score: s, count: int(math.Round(cqt[w][t] + 1e-9))})
			}
		}
		sort.Slice(as, func(i, j int) bool {
			if as[i].score != as[j].score {
				return as[i].score > as[j].score
			}
			if prior[as[i].term] != prior[as[j].term] {
				return prior[as[i].term] > prior[as[j].term]
			}
			return as[i].term < as[j].term
		})
		tab.words[w] = as
	}
	return tab
}

// model1 runs EM for IBM Model 1 with tool texts as the source language
// and queries as the target, and returns, per query word, the share of
// its occurrences aligned to each term in the last expectation step. The
// null word is "".
func model1(pairs []assocPair) map[string]map[string]float64 {
	tr := map[string]map[string]float64{} // t(word|term), by word
	get := func(w, t string) float64 {
		if v, ok := tr[w][t]; ok {
			return v
		}
		return 1 // uniform at the start: the first step is the prior
	}
	var counts map[string]map[string]float64
	occ := map[string]float64{}
	for _, p := range pairs {
		for _, w := range p.words {
			occ[w] += p.weight
		}
	}
	// terms in order, so that sums do not depend on map order
	sorted := make([][]string, len(pairs))
	for i, p := range pairs {
		for t := range p.terms {
			sorted[i] = append(sorted[i], t)
		}
		sort.Strings(sorted[i])
	}
	for it := 0; it < model1Iterations; it++ {
		counts = map[string]map[string]float64{}
		total := map[string]float64{}
		for i, p := range pairs {
			for _, w := range p.words {
				den := model1Null * get(w, "")
				for _, t := range sorted[i] {
					den += (1 - model1Null) * p.terms[t] * get(w, t)
				}
				if den == 0 {
					continue
				}
				if counts[w] == nil {
					counts[w] = map[string]float64{}
				}
				r := p.weight * model1Null * get(w, "") / den
				counts[w][""] += r
				total[""] += r
				for _, t := range sorted[i] {
					r := p.weight * (1 - model1Null) * p.terms[t] * get(w, t) / den
					counts[w][t] += r
					total[t] += r
				}
			}
		}
		tr = map[string]map[string]float64{}
		for w, ts := range counts {
			tr[w] = map[string]float64{}
			for t, c := range ts {
				tr[w][t] = c / total[t]
			}
		}
	}
	out := map[string]map[string]float64{}
	for w, ts := range counts {
		out[w] = map[string]float64{}
		for t, c := range ts {
			if t != "" {
				out[w][t] = c / occ[w]
			}
		}
	}
	return out
}

// withoutHouse leaves out the associations to a house word of x
// (Index.house), as a search with assocHouse skips them.
func (t *assocTable) withoutHouse(x *Index) *assocTable {
	out := &assocTable{stems: t.stems, words: map[string][]assocTerm{}}
	for w, as := range t.words {
		var kept []assocTerm
		for _, a := range as {
			if !x.house[a.term] {
				kept = append(kept, a)
			}
		}
		if len(kept) > 0 {
			out.words[w] = kept
		}
	}
	return out
}

// trim keeps, per word, the first k associations that met it in at least
// min queries: the table as the ranking reads it with assocK k and
// assocMin min.
func (t *assocTable) trim(k, min int) *assocTable {
	out := &assocTable{stems: t.stems, words: map[string][]assocTerm{}}
	for w, as := range t.words {
		var kept []assocTerm
		for _, a := range as {
			if len(kept) == k {
				break
			}
			if a.count >= min {
				kept = append(kept, a)
			}
		}
		if len(kept) > 0 {
			out.words[w] = kept
		}
	}
	return out
}

// assocSets are the query sets the table is learned from: every set
// but the newest blind one (trainSets).
var assocSets = trainSets

// assocCVSets are the five sets the tenth round cross-validated the
// first table on (TestAssoc).
var assocCVSets = []string{"queries", "holdout", "fresh", "unseen", "sealed"}

// assocShipped is the method and setting of the table in assoc/table.txt
// and of assocOn.
var assocShipped = assocMethod{model1: true}

// assocOn is the ranking with the learned associations, at the setting
// chosen by TestAssocTransfer: defaults without the examples, which are
// measured over it (TestExamplesTransfer).
var assocOn = func() params {
	p := defaults
	p.exWeight = 0
	return p
}()

// noAssoc is defaults without the associations and the examples: the
// ranking they are measured against, and the one to tune other things
// on (the embedded table and examples were learned from the same sets).
var noAssoc = func() params {
	p := defaults
	p.assocWeight, p.exWeight = 0, 0
	return p
}()

// learnShipped learns the table of assoc/table.txt: assocShipped on
// assocSets (without the house words of the twelve servers when assocOn
// skips house words), trimmed to assocOn's k and minimum count.
func learnShipped(tb testing.TB) *assocTable {
	x := newIndex(ToolDocs(testCatalog(tb)), noAssoc)
	var qs []query
	for _, s := range assocSets {
		qs = append(qs, readQueries(tb, "testdata/"+s+".txt")...)
	}
	tab := trainAssoc(assocPairs(tb, x, qs, assocShipped), assocShipped)
	if assocOn.assocHouse {
		tab = tab.withoutHouse(x)
	}
	return tab.trim(assocOn.assocK, assocOn.assocMin)
}

const assocHeader = `Associations learned from labelled queries (fs/search/assoc.go).
Generated by: go generate ./fs/search (TestWriteAssocTable); do not edit.`

// writeGenerated writes text to the generated file path when the
// variable env is set (as go generate runs the test) and reports true;
// otherwise it checks that the file holds text.
func writeGenerated(t *testing.T, path, env, text string) bool {
	t.Helper()
	if os.Getenv(env) != "" {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return true
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: run go generate ./fs/search", err)
	}
	if string(got) != text {
		t.Errorf("%s is not what the query sets give now: run go generate ./fs/search", path)
	}
	return false
}

// TestWriteAssocTable writes assoc/table.txt (with SEARCH_ASSOC_WRITE=1,
// as go generate runs it); otherwise it checks that the file is what the
// training gives now.
func TestWriteAssocTable(t *testing.T) {
	text := learnShipped(t).format(assocHeader + "\nMethod: " + assocShipped.String() + ", trained on " + strings.Join(assocSets, ", ") + ".")
	if writeGenerated(t, "assoc/table.txt", "SEARCH_ASSOC_WRITE", text) {
		return
	}
	if _, err := parseAssoc(text); err != nil {
		t.Error(err)
	}
}
