package search

import (
	_ "embed"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Examples: labelled queries shipped with the ranking. A query finds the
// labelled queries most like it (the cosine of their TF-IDF vectors over
// the package's terms, at least params.exMin), and the tools those were
// labelled with gain a share of the best lexical score
// (params.exWeight), each example's vote weighted by its cosine squared.
// Where the associations (assoc.go) learn word for word, an example
// carries a whole phrasing ("CI is red on my branch" → the workflow runs)
// that no single word of it leads to.
//
// An example names its tool by the server's own name (serverInfo.name)
// and the tool's name, never by the package name a user's config gives
// the server, so it finds the same tool under any config key, and
// nothing in a catalog without that server. Examples help only where a
// user's servers are among those labelled. On the queries of a server
// nobody labelled, a near phrasing would pull toward a labelled server's
// tool; so the examples stay out when the words point elsewhere: their
// weight is scaled by the share of the first lexical hits that are tools
// of servers they know (params.exGate, Index.known). The setting is
// chosen to keep the cost on servers left out of the labels within
// TestExamplesTransfer's line.
//
// The examples are every query of trainSets over the twelve servers'
// listings under testdata/servers, written to examples/examples.txt by a
// test (the query sets live with the tests):
//
//	go generate -run TestWriteExamples ./fs/search
//
//go:generate env SEARCH_EXAMPLES_WRITE=1 go test -run ^TestWriteExamples$ .
//go:embed examples/examples.txt
var examplesText string

// exampleSet is a set of labelled queries, indexed for similarity.
type exampleSet struct {
	examples []example
	// idf is each term's inverse document frequency over the examples'
	// queries; postings are, per term, the examples that have it and its
	// weight in their unit TF-IDF vectors.
	idf      map[string]float64
	postings map[string][]exampleWeight
	n        int
	// servers are the servers (serverInfo names) some example names a
	// tool of: the servers the set knows.
	servers map[string]bool
}

// exampleWeight is a term's weight in one example's vector.
type exampleWeight struct {
	example int
	weight  float64
}

// example is one labelled query and the tools it was labelled with.
type example struct {
	query string
	tools []exampleTool
}

// exampleTool names a tool by its server's serverInfo name and its own.
type exampleTool struct{ server, tool string }

// theExamples is the embedded set, parsed on first use; empty if it
// cannot be read (a search then goes without it).
var theExamples = sync.OnceValue(func() *exampleSet {
	s, err := parseExamples(examplesText)
	if err != nil {
		return newExampleSet(nil)
	}
	return s
})

// parseExamples reads a set: comment lines (#), then one example a line,
// its query and each tool's server and name, separated by tabs:
//
//	query<TAB>server<TAB>tool[<TAB>server<TAB>tool...]
func parseExamples(text string) (*exampleSet, error) {
	var exs []example
	for n, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 3 || len(f)%2 != 1 {
			return nil, fmt.Errorf("examples line %d: want a query, then a server and a tool per tool, tab-separated; got %d fields", n+1, len(f))
		}
		e := example{query: f[0]}
		for i := 1; i < len(f); i += 2 {
			e.tools = append(e.tools, exampleTool{server: f[i], tool: f[i+1]})
		}
		exs = append(exs, e)
	}
	return newExampleSet(exs), nil
}

// format writes s in the form parseExamples reads.
func (s *exampleSet) format(header string) string {
	var b strings.Builder
	for _, l := range strings.Split(header, "\n") {
		b.WriteString("# " + l + "\n")
	}
	for _, e := range s.examples {
		b.WriteString(e.query)
		for _, t := range e.tools {
			b.WriteString("\t" + t.server + "\t" + t.tool)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func newExampleSet(exs []example) *exampleSet {
	s := &exampleSet{examples: exs, idf: map[string]float64{}, postings: map[string][]exampleWeight{}, n: len(exs), servers: map[string]bool{}}
	ts := make([][]string, len(exs))
	for _, e := range exs {
		for _, t := range e.tools {
			s.servers[t.server] = true
		}
	}
	df := map[string]int{}
	for i, e := range exs {
		ts[i] = terms(e.query)
		seen := map[string]bool{}
		for _, t := range ts[i] {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	for t, d := range df {
		s.idf[t] = math.Log(float64(s.n+1) / float64(d+1))
	}
	for i := range exs {
		v := s.vector(ts[i])
		for _, t := range slices.Sorted(maps.Keys(v)) {
			s.postings[t] = append(s.postings[t], exampleWeight{i, v[t]})
		}
	}
	return s
}

// vector is the unit TF-IDF vector of a query's terms; a term no example
// has counts as if one had it, so that it lowers the cosine of the
// query's others.
func (s *exampleSet) vector(ts []string) map[string]float64 {
	v := map[string]float64{}
	for _, t := range ts {
		v[t]++
	}
	norm := 0.0
	for t, c := range v {
		idf, ok := s.idf[t]
		if !ok {
			idf = math.Log(float64(s.n+1) / 2)
		}
		v[t] = c * idf
		norm += v[t] * v[t]
	}
	if norm == 0 {
		return nil
	}
	norm = math.Sqrt(norm)
	for t := range v {
		v[t] /= norm
	}
	return v
}

// votes are the tools the examples most like q were labelled with, and
// each one's vote: the sum over the exK nearest examples with a cosine
// of at least min of the cosine squared, shared among an example's
// tools.
func (s *exampleSet) votes(q string, k int, min float64) map[exampleTool]float64 {
	qv := s.vector(terms(q))
	if qv == nil {
		return nil
	}
	cos := map[int]float64{}
	for t, w := range qv {
		for _, p := range s.postings[t] {
			cos[p.example] += w * p.weight
		}
	}
	type near struct {
		i   int
		cos float64
	}
	var ns []near
	for i, c := range cos {
		if c >= min {
			ns = append(ns, near{i, c})
		}
	}
	sort.Slice(ns, func(a, b int) bool {
		if ns[a].cos != ns[b].cos {
			return ns[a].cos > ns[b].cos
		}
		return ns[a].i < ns[b].i
	})
	if len(ns) > k {
		ns = ns[:k]
	}
	out := map[exampleTool]float64{}
	for _, n := range ns {
		e := s.examples[n.i]
		for _, t := range e.tools {
			out[t] += n.cos * n.cos / float64(len(e.tools))
		}
	}
	return out
}

// mixExamples adds to each hit's score, scaled so that the best is 1,
// exWeight times its tool's vote relative to the best vote (of any tool,
// in the index or not); a tool with a vote and no lexical score becomes a
// hit. When no voted tool is in the index, hits are returned as they are.
func (x *Index) mixExamples(query string, hits []Hit) []Hit {
	set := x.p.exTable
	if set == nil {
		set = theExamples()
	}
	votes := set.votes(query, x.p.exK, x.p.exMin)
	best, found := 0.0, false
	for t, v := range votes {
		best = max(best, v)
		found = found || len(x.byTool[t]) > 0
	}
	if !found {
		return hits // no voted tool is in this index: the ranking as it is
	}
	top := 1.0
	if len(hits) > 0 && hits[0].Score > 0 {
		top = hits[0].Score
	}
	weight := x.p.exWeight * x.known(set, hits)
	if weight == 0 {
		return hits // the words point away from the servers the examples know
	}
	score := make(map[int]float64, len(hits))
	for _, h := range hits {
		score[x.byName[h.Doc.Name]] = h.Score / top
	}
	for t, v := range votes {
		for _, i := range x.byTool[t] {
			score[i] += weight * v / best
		}
	}
	out := make([]Hit, 0, len(score))
	for i, s := range score {
		out = append(out, Hit{Doc: x.docs[i], Score: s})
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Score != out[b].Score {
			return out[a].Score > out[b].Score
		}
		return out[a].Doc.Name < out[b].Doc.Name
	})
	return out
}

// known is the share of the lexical evidence that lies with tools of
// servers the examples know: of the first exGate hits' scores, the part
// on such servers (1 when exGate is 0 or no hit scores). The examples
// can vote only for tools they know, so where the words point to a
// server nobody labelled (or to a skill), their votes would pull away
// from it; scaled by this share, they speak in full among known servers
// and fade where the query is another server's.
func (x *Index) known(set *exampleSet, hits []Hit) float64 {
	if x.p.exGate <= 0 {
		return 1
	}
	all, in := 0.0, 0.0
	for _, h := range hits[:min(len(hits), x.p.exGate)] {
		all += h.Score
		if h.Doc.Kind == KindTool && set.servers[h.Doc.ServerID] {
			in += h.Score
		}
	}
	if all <= 0 {
		return 1
	}
	return math.Pow(in/all, x.p.exGatePow)
}
