package search

import (
	"math"
	"sort"
	"strings"
	"sync"
)

// field is one part of a document: the text a query is matched against.
type field func(d *Doc) string

// fields, in the order of params.weight and params.b: the tool's name,
// title, summary, description, argument names, argument descriptions, the
// server's names and any other text.
var fields = [nFields]field{
	func(d *Doc) string { return d.Tool },
	func(d *Doc) string { return d.Title },
	func(d *Doc) string { return d.Summary },
	func(d *Doc) string { return d.Description },
	func(d *Doc) string { return strings.Join(d.Args, " ") },
	func(d *Doc) string { return d.ArgText },
	// serverField must stay the index of the server's field.
	serverField: func(d *Doc) string { return d.Server + " " + d.ServerWords },
	func(d *Doc) string { return d.Text },
}

const (
	nFields = 8
	// serverField is the index in fields of the server's name.
	serverField = 6
)

// fieldNames name the fields in params (for the tuning test's report).
var fieldNames = [nFields]string{"name", "title", "summary", "description", "args", "argtext", "server", "text"}

// params are the ranking's numbers. defaults holds the ones in use. The
// BM25F weights, b and k1 are the hand-set ones: fitted by coordinate
// ascent with leave-one-set-out cross-validation over the query sets
// (TestTune), they gained nothing on the sets held out of the fit. The
// expansions (feedback, co-occurrence, trigrams) are off: measured alone
// and fitted together (TestTechniques, TestTune), none raised recall
// beyond a query or two on any set, and each lost as many elsewhere
// (docs/BENCHMARKS.md, "Tool search"). So is the WordNet thesaurus
// (TestWordNet): it left final.txt and blind.txt unchanged. Word vectors
// for the query words the catalog and the vocabulary do not know are on
// (TestVectors); the whole-query similarity is off. The ordering signals
// of ordering.go are on but proximity (TestOrdering), and so are the
// associations learned from labelled queries (assoc.go, TestAssoc); since
// they were learned from the five tuned sets, a measure on those sets is
// in sample unless it starts from noAssoc.
type params struct {
	// weight and b are each field's BM25F weight and how much its
	// length counts.
	weight, b [nFields]float64
	// k1 is BM25's saturation: how fast more occurrences stop counting.
	k1 float64
	// Pseudo-relevance feedback (RM3): the words of the first fbDocs
	// documents of a first ranking, fbTerms of them, join the query at
	// fbWeight (0 turns it off).
	fbDocs, fbTerms int
	fbWeight        float64
	// Co-occurrence: each query word also finds the coTerms words that
	// most often share a document with it across the catalog, at coWeight
	// times their association (0 turns it off).
	coTerms  int
	coWeight float64
	// coSentences counts co-occurrence within a sentence of a description
	// or of the argument descriptions, not within a whole document;
	// coBackoff gives co-occurring words only to query words the
	// vocabulary has nothing for.
	coSentences, coBackoff bool
	// Character trigrams: a query word the index does not know finds the
	// terms whose trigrams it shares at least gramMin of (Dice), at
	// gramWeight times that share (0 turns it off).
	gramMin, gramWeight float64
	// The thesaurus (wordnet.go): a query word no document and no
	// vocabulary line knows (with wnAlways, any query word) also finds
	// the words of its wnSenses commonest senses, synonyms at wnSyn and
	// hypernyms at wnHyper, each sense after the first at wnDecay times
	// the one before (0 weights turn it off). wnVocab adds the
	// vocabulary's synonyms of those words; wnSoft lets a word found only
	// through the thesaurus add to a score without counting as a word of
	// the query the document covers.
	wnSyn, wnHyper, wnDecay   float64
	wnSenses                  int
	wnAlways, wnVocab, wnSoft bool
	// wnWeak expands, beside unknown words, words the catalog has only in
	// its weak fields (argument descriptions, other text): never in a
	// tool's name, title, summary, description or argument names.
	wnWeak bool
	// Word vectors (vectors.go): a query word no document and no
	// vocabulary line knows (with vecAlways, any query word) also finds
	// the vecK catalog words nearest to it by cosine, at least vecMin, at
	// vecWeight times the cosine, as a word the document does not cover
	// (0 turns it off); simWeight mixes the cosine of the query's and each
	// document's mean vectors into the score (0 turns it off).
	vecK              int
	vecMin, vecWeight float64
	vecAlways         bool
	simWeight         float64
	// noVocab leaves the vocabulary out (to measure what the thesaurus
	// does in its place; never set but by the tuning tests).
	noVocab bool
	// Ordering among candidates (ordering.go): the query's action against
	// the action of a tool's name, a bonus of aoBonus when they agree and
	// the query asks for the name's object too, a penalty of aoPenalty
	// when they differ; aoQuestion takes a question for reading. A tool
	// whose name extends a sibling's by words the query does not ask for
	// loses famPenalty. Pairs of query words within proxWindow words in
	// one field raise a score by up to proxBoost. 0 turns each off.
	aoBonus, aoPenalty float64
	aoQuestion         bool
	// aoSplit takes creating and updating for different actions;
	// aoFullName reads a name's verb and object from its whole name, the
	// words most of its server's tools share included.
	aoSplit, aoFullName bool
	famPenalty          float64
	// delPenalty lowers a tool whose name deletes when the query names
	// no action: removing is seldom the need unless a query says so.
	delPenalty float64
	proxBoost  float64
	proxWindow int
	// Associations learned from labelled queries (assoc.go): a query
	// word no document and no vocabulary line knows (with assocAny, any
	// query word) also finds the first assocK terms it met in at least
	// assocMin queries, at assocWeight times their relative score (0
	// turns it off); with assocSoft they add to a score without counting
	// as a word the document covers. assocTable is the table (nil: the
	// embedded one).
	assocWeight         float64
	assocK, assocMin    int
	assocAny, assocSoft bool
	assocTable          *assocTable
	// assocHouse leaves out associations to a house word of the catalog
	// (Index.house): learned from the labelled queries' servers, such a
	// word leads to their tools, not to what the query asks of others'.
	assocHouse bool
	// rerank orders the first hits again by the learned model of
	// rerank.go (rerankWeights).
	rerank bool
	// pairs orders the first hits again by pairTable, a model learned
	// over word pairs (pairs.go).
	pairs     bool
	pairTable *pairTable
	// Examples (examples.go): the exK labelled queries most like the
	// query, each with a cosine of at least exMin, vote for the tools
	// they were labelled with, at exWeight times the best lexical score
	// for the best vote (0 turns it off). exTable is the set (nil: the
	// embedded one).
	exWeight, exMin float64
	exK             int
	exTable         *exampleSet
	// exGate scales the examples' weight by the share of the first
	// exGate lexical hits' scores on servers the examples know, to the
	// power exGatePow (0: no scaling; see Index.known).
	exGate    int
	exGatePow float64
}

var defaults = params{
	weight: [nFields]float64{3.0, 2.0, 1.5, 1.0, 1.0, 0.4, serverWeight, 0.8},
	b:      [nFields]float64{0.3, 0.3, 0.5, 0.75, 0.5, 0.75, 0.3, 0.75},
	k1:     1.2,
	// The thesaurus is off (wnSyn and wnHyper 0); the rest is the
	// setting measured on final.txt and blind.txt (TestWordNet).
	wnSenses: 2, wnDecay: 0.5, wnVocab: true, wnSoft: true,
	// The word vectors are off (vecWeight and simWeight 0; vecOn has
	// the setting measured).
	vecK: 3, vecMin: 0.4,
	// Ordering among candidates (ordering.go): the setting chosen on the
	// five older sets by TestOrdering, then measured once on the four
	// untuned sets (docs/BENCHMARKS.md, "Ninth round"); no proximity.
	aoBonus: 0.4, aoPenalty: 0.6, aoQuestion: true, aoFullName: true,
	famPenalty: 0.1, proxWindow: 3,
	// A tool that deletes, when the query names no action: cross-validated
	// in TestAssocTransfer (docs/BENCHMARKS.md, "Fourteenth round").
	delPenalty: 0.1,
	// Associations learned from labelled queries (assoc.go): the setting
	// chosen by TestAssocTransfer (docs/BENCHMARKS.md, "Fourteenth
	// round"; again in the fifteenth and sixteenth), the best in domain
	// of those that cost at most a point at @1 and @5 on a server left
	// out of the training:
	// every query word, its first 2 terms met in at least 2 queries, at
	// 0.5 of a literal match relative to the first, adding to a score
	// without counting as a word covered, never to a house word of the
	// catalog searched.
	assocWeight: 0.5, assocK: 2, assocMin: 2, assocAny: true, assocSoft: true, assocHouse: true,
	// Examples (examples.go): the setting chosen by TestExamplesTransfer
	// over these associations (docs/BENCHMARKS.md, "Sixteenth round"),
	// by the same rule: the 15 labelled queries most like the query with
	// a cosine of 0.3 or more, their best vote worth 0.8 of the best
	// lexical score, and nothing when the first lexical hit is a tool of
	// a server the examples do not know.
	exWeight: 0.8, exMin: 0.3, exK: 15, exGate: 1, exGatePow: 1,
}

// vecOn is the word vectors' setting chosen on the five older sets, then
// measured once on final.txt, blind.txt and blind2.txt (TestVectors): the
// 3 catalog words nearest a query word nothing knows, cosine 0.4 or more,
// at 0.5 times it. Off, as the gain did not reach the sets nobody tuned
// on (docs/BENCHMARKS.md, "Sixth round").
var vecOn = func() params {
	p := defaults
	p.vecWeight = 0.5
	return p
}()

// wnOn is the thesaurus's setting measured on the reporting sets: weights
// below the vocabulary's (0.7, 0.5), hypernyms below synonyms; over the
// ranking it was measured with, before the word vectors (noVectors).
var wnOn = func() params {
	p := noVectors
	p.wnSyn, p.wnHyper = 0.3, 0.2
	return p
}()

// noVectors is defaults without the word vectors: the ranking before
// them, which the thesaurus was measured over and the vectors are
// measured against (TestWordNet, TestVectors).
var noVectors = func() params {
	p := defaults
	p.vecWeight, p.simWeight = 0, 0
	return p
}()

// Ranking constants.
const (
	// deprecatedFactor scales a tool whose description says it is
	// deprecated, so that its replacement ranks first.
	deprecatedFactor = 0.6
	serverWeight     = 3.0
	// nameBoost is how much a document gains when the query covers all
	// the words of its name (see nameCoverage).
	nameBoost = 1.0
	// otherServerFactor scales the tools of servers a query does not name
	// when it names some ("comment on a GitHub issue").
	otherServerFactor = 0.5
	// pairBoost is how much a document gains for each pair of words the
	// query has side by side that the document also has side by side
	// ("status update", "console messages"), relative to the pairs the
	// query has.
	pairBoost = 0.2
)

// Index ranks documents for queries. It is immutable and safe for
// concurrent use.
type Index struct {
	p     params
	docs  []Doc
	terms map[string]*posting
	names [][]string // per doc: the stems of its name, without its server's prefix
	// house are the words a server puts in most of its tools' names
	// ("browser", "maps"): a house style, not what a tool does.
	house map[string]bool
	// servers are the terms that name a server: in the server field of
	// every document they occur in ("github", "slack"; not "search").
	servers map[string]bool
	server  []map[string]bool // per doc: the terms of its server field
	// pairs are, per doc, the pairs of terms that stand side by side in
	// its name, title or description ("read"+"file").
	pairs []map[[2]string]bool
	// sorted are the terms of the index, in order.
	sorted []string
	// strong are the terms that occur in a strong field of a document:
	// a name, title, summary, description or argument name.
	strong map[string]bool
	// docTerms are, per doc, its terms with their weighted frequency.
	docTerms []map[string]float64
	// units are the distinct terms of each sentence of the documents'
	// descriptions and argument descriptions, and of each name; inUnits
	// are, per term, the units it occurs in.
	units   []map[string]bool
	inUnits map[string][]int
	// termVec are the unit vectors of the index's terms that have one,
	// vecTerms those of them that name no server, in order; docVec are
	// the documents' vectors (vectors.go). Only with vecWeight or
	// simWeight, computed by the first search that needs them.
	// extends are, per doc, the words its name adds to a sibling's
	// (families); fullNames the stems of its whole name (fullNames);
	// pos the positions of its terms (positions), with
	// proxBoost only.
	extends   [][]string
	fullNames [][]string
	pos       []map[string][]int
	vecOnce   sync.Once
	termVec   map[string][]float32
	vecTerms  []string
	docVec    [][]float32
	// rrTerms are, per doc and field, its terms (rerank.go), computed by
	// the first search that re-ranks.
	rrOnce  sync.Once
	rrTerms rerankTerms
	// byName is each document's position by its name; byTool the
	// positions of the tools each server (by its serverInfo name) and
	// tool name find (examples.go).
	byName map[string]int
	byTool map[exampleTool][]int
}

// posting is one term's weighted frequency in each document it occurs in.
type posting struct {
	idf  float64
	freq map[int]float64 // doc → Σ over fields of weight·tf/length norm
}

// New returns the index of docs. The embedded examples are read in the
// background (once per process, some 80 ms), so that a face's first
// search seldom waits for them.
func New(docs []Doc) *Index {
	if defaults.exWeight > 0 {
		go theExamples()
	}
	return newIndex(docs, defaults)
}

func newIndex(docs []Doc, p params) *Index {
	x := &Index{p: p, docs: append([]Doc(nil), docs...), terms: map[string]*posting{}}
	sort.SliceStable(x.docs, func(i, j int) bool { return x.docs[i].Name < x.docs[j].Name })
	n := len(x.docs)
	x.byName, x.byTool = make(map[string]int, n), map[exampleTool][]int{}
	for i, d := range x.docs {
		x.byName[d.Name] = i
		if d.Kind == KindTool && d.ServerID != "" {
			t := exampleTool{server: d.ServerID, tool: d.Tool}
			x.byTool[t] = append(x.byTool[t], i)
		}
	}
	counts := make([][]map[string]int, len(fields)) // field → doc → term → count
	lens := make([][]int, len(fields))
	avg := make([]float64, len(fields))
	for f, fd := range fields {
		counts[f] = make([]map[string]int, n)
		lens[f] = make([]int, n)
		total := 0
		for i := range x.docs {
			ts := terms(fd(&x.docs[i]))
			m := make(map[string]int, len(ts))
			for _, t := range ts {
				m[t]++
			}
			counts[f][i], lens[f][i] = m, len(ts)
			total += len(ts)
		}
		if n > 0 {
			avg[f] = float64(total) / float64(n)
		}
	}
	for f := range fields {
		for i := 0; i < n; i++ {
			for t, c := range counts[f][i] {
				norm := 1 - p.b[f] + p.b[f]*float64(lens[f][i])/avg[f]
				pt := x.terms[t]
				if pt == nil {
					pt = &posting{freq: map[int]float64{}}
					x.terms[t] = pt
				}
				pt.freq[i] += p.weight[f] * float64(c) / norm
			}
		}
	}
	for _, p := range x.terms {
		df := float64(len(p.freq))
		p.idf = math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
	}
	x.strong = map[string]bool{}
	for f := range fields {
		if f > 4 || !p.wnWeak { // argtext, server, text; only wnWeak asks
			continue
		}
		for i := 0; i < n; i++ {
			for t := range counts[f][i] {
				x.strong[t] = true
			}
		}
	}
	x.names, x.house = nameTerms(x.docs)
	x.extends = families(x.docs)
	if p.proxBoost > 0 {
		x.pos = positions(x.docs)
	}
	for t := range x.terms {
		x.sorted = append(x.sorted, t)
	}
	sort.Strings(x.sorted)
	x.inUnits = map[string][]int{}
	for i := range x.docs {
		if x.p.coWeight == 0 || !x.p.coSentences {
			break
		}
		d := &x.docs[i]
		for _, text := range append(append([]string{d.Tool}, sentences(d.Description)...), sentences(d.ArgText)...) {
			u := map[string]bool{}
			for _, t := range terms(text) {
				u[t] = true
			}
			if len(u) < 2 {
				continue
			}
			for t := range u {
				x.inUnits[t] = append(x.inUnits[t], len(x.units))
			}
			x.units = append(x.units, u)
		}
	}
	x.docTerms = make([]map[string]float64, n) // for feedback and co-occurrence only
	for i := range x.docTerms {
		x.docTerms[i] = map[string]float64{}
	}
	for t, pt := range x.terms {
		if x.p.fbWeight == 0 && x.p.coWeight == 0 {
			break
		}
		for i, f := range pt.freq {
			x.docTerms[i][t] = f
		}
	}
	x.pairs = make([]map[[2]string]bool, n)
	for i := range x.docs {
		d := &x.docs[i]
		x.pairs[i] = map[[2]string]bool{}
		for _, text := range []string{d.Tool, d.Title, d.Description} {
			ts := terms(text)
			for j := 1; j < len(ts); j++ {
				x.pairs[i][[2]string{ts[j-1], ts[j]}] = true
			}
		}
	}
	x.server = make([]map[string]bool, n)
	for i := range x.docs {
		x.server[i] = map[string]bool{}
		for t := range counts[serverField][i] {
			x.server[i][t] = true
		}
	}
	x.fullNames = fullNames(x.docs, x.server)
	x.servers = map[string]bool{}
	inServer := map[string]int{}
	for i := range x.docs {
		for t := range x.server[i] {
			inServer[t]++
		}
	}
	for t, p := range x.terms {
		// Words in the server field of most documents ("server",
		// "mcp") name no server in particular.
		mention := inServer[t] > 0 && inServer[t]*2 <= n
		for i := range p.freq {
			mention = mention && x.server[i][t]
		}
		x.servers[t] = mention
	}
	return x
}

// nameTerms returns the distinct stems of each document's name, leaving
// out the words a server puts in front of most of its tools' names
// ("browser_", "slack_"): they say which server, not what the tool does.
// house are those words.
func nameTerms(docs []Doc) (names [][]string, house map[string]bool) {
	perServer := map[string]int{}
	common := map[string]map[string]int{} // server → stem → tools named with it
	out := make([][]string, len(docs))
	for i, d := range docs {
		seen := map[string]bool{}
		for _, r := range runs(d.Tool) {
			for _, w := range r { // "getUser" is get and user, not also getuser
				if t := stem(w); !stopWords[w] && !seen[t] {
					seen[t] = true
					out[i] = append(out[i], t)
				}
			}
		}
		if d.Kind == KindTool {
			perServer[d.Server]++
			if common[d.Server] == nil {
				common[d.Server] = map[string]int{}
			}
			for t := range seen {
				common[d.Server][t]++
			}
		}
	}
	house = map[string]bool{}
	for s, ts := range common {
		for t, c := range ts {
			if n := perServer[s]; n >= 3 && c*2 > n {
				house[t] = true
			}
		}
	}
	for i, d := range docs {
		n := perServer[d.Server]
		if d.Kind != KindTool || n < 3 {
			continue
		}
		kept := out[i][:0]
		for _, t := range out[i] {
			if c := common[d.Server][t]; c*2 <= n || len(out[i]) == 1 {
				kept = append(kept, t)
			}
		}
		out[i] = kept
	}
	return out, house
}

// Len is how many documents the index holds.
func (x *Index) Len() int { return len(x.docs) }

// Hit is a document found by a search, with its score (higher is better;
// only the order means something).
type Hit struct {
	Doc   Doc
	Score float64
}

// Search returns the best n documents for query, best first; n <= 0
// returns every match. A document matches when it shares a word with the
// query, directly or through the vocabulary. An empty query (or one of
// stop words only) returns every document, by name.
func (x *Index) Search(query string, n int) []Hit {
	cs := x.concepts(query)
	var hits []Hit
	if len(cs) == 0 && len(terms(query)) == 0 {
		for _, d := range x.docs {
			hits = append(hits, Hit{Doc: d})
		}
	} else if len(cs) > 0 || x.p.simWeight > 0 || x.p.exWeight > 0 {
		if len(cs) > 0 {
			hits = x.rank(query, cs)
		}
		if x.p.fbWeight > 0 && len(hits) > 0 {
			hits = x.rank(query, append(cs, x.feedback(cs, hits)...))
		}
		if x.p.simWeight > 0 {
			hits = x.mixSimilarity(query, hits)
		}
		if x.p.exWeight > 0 {
			hits = x.mixExamples(query, hits)
		}
		if x.p.rerank && len(cs) > 0 {
			hits = x.rerank(query, cs, hits, rerankWeights)
		}
		if x.p.pairs && len(cs) > 0 {
			hits = x.pairRerank(query, cs, hits, x.p.pairTable)
		}
	}
	if n > 0 && len(hits) > n {
		hits = hits[:n]
	}
	return hits
}

// concept is one thing the query asks for: a word or phrase, and the
// alternatives it may be found as. A document scores the best of them.
type concept struct {
	alts []alt
	// word is set for a concept of one query word (not a phrase); pairs
	// of word concepts next to each other in the query are looked for side
	// by side in documents.
	word bool
	// expansion is set for a concept the query does not ask for but a
	// first ranking suggests (feedback): it adds to a score, but does not
	// count as a part of the query a document covers.
	expansion bool
}

// alt is one way to find a concept: every term must be in the document.
type alt struct {
	terms  []string
	weight float64
}

// concepts parses a query: phrases of the vocabulary first, then each
// word that is not a stop word, with its synonyms and related words.
// Concepts no document knows in any form are left out.
func (x *Index) concepts(query string) []concept {
	rs := runs(query + " " + classWords(query))
	ws := make([]string, len(rs)) // each run as one word: "GitHub" is "github"
	for i, r := range rs {
		ws[i] = strings.Join(r, "")
	}
	var out, soft []concept
	names := capitalized(query)
	seen := map[string]bool{}
	add := func(key string, c concept) {
		if seen[key] {
			return
		}
		seen[key] = true
		for _, a := range c.alts {
			if x.has(a.terms) {
				out = append(out, c)
				return
			}
		}
	}
	for i := 0; i < len(ws); {
		if p, span, ok := matchPhrase(ws[i:]); ok && !x.p.noVocab {
			c := concept{}
			for _, to := range p.to {
				c.alts = append(c.alts, alt{terms: to, weight: 1})
			}
			add(strings.Join(p.words, " "), c)
			i += span
			continue
		}
		w, parts := ws[i], rs[i]
		i++
		if stopWords[w] {
			continue
		}
		t := stem(w)
		c := concept{alts: []alt{{terms: []string{t}, weight: 1}}, word: true}
		if len(parts) > 1 {
			// A compound ("GitHub", "dryRun") matches whole or in parts.
			var ps []string
			for _, p := range parts {
				if !stopWords[p] {
					ps = append(ps, stem(p))
				}
			}
			c.alts = append(c.alts, alt{terms: ps, weight: 1})
		}
		v := theVocab()
		if x.p.noVocab {
			v = &vocab{}
		}
		for _, s := range v.synonyms[t] {
			c.alts = append(c.alts, alt{terms: []string{s}, weight: synonymWeight})
		}
		for _, r := range v.related[t] {
			c.alts = append(c.alts, alt{terms: r, weight: relatedWeight})
		}
		if x.p.coWeight > 0 && x.terms[t] != nil && (!x.p.coBackoff || len(v.synonyms[t])+len(v.related[t]) == 0) {
			c.alts = append(c.alts, x.cooccurring(t)...)
		}
		known := x.knows(c)
		if !known {
			c.alts = append(c.alts, x.prefixAlts(t)...)
			if x.p.gramWeight > 0 {
				c.alts = append(c.alts, x.gramAlts(t)...)
			}
		}
		if (!known || x.p.assocAny) && x.p.assocWeight > 0 && !names[w] {
			if as := x.assocAlts(w, t); len(as) > 0 {
				if !x.p.assocSoft {
					c.alts = append(c.alts, as...)
				} else if !seen["⇒"+t] {
					// Through the associations only: it adds to a score
					// but does not count as a word the document covers.
					seen["⇒"+t] = true
					soft = append(soft, concept{alts: as, expansion: true})
				}
			}
		}
		weak := known && x.p.wnWeak && !x.strongly(c)
		if (!known || weak || x.p.wnAlways) && x.p.wnSyn+x.p.wnHyper > 0 && !names[w] {
			if wn := x.wordnetAlts(w); len(wn) > 0 {
				if x.p.wnSoft && (weak || !x.knows(c)) {
					// Through the thesaurus only: it adds to a score
					// but does not count as a word the document covers.
					if !seen["~"+t] {
						seen["~"+t] = true
						soft = append(soft, concept{alts: wn, expansion: true})
					}
					if !weak {
						continue
					}
				} else {
					c.alts = append(c.alts, wn...)
				}
			}
		}
		if (!x.knows(c) || x.p.vecAlways) && x.p.vecWeight > 0 && !names[w] && !seen["≈"+t] {
			// Through the word vectors: it adds to a score but does not
			// count as a word the document covers.
			seen["≈"+t] = true
			if va := x.vectorAlts(w); len(va) > 0 {
				soft = append(soft, concept{alts: va, expansion: true})
			}
		}
		add(t, c)
	}
	return append(out, soft...)
}

// matchPhrase finds the longest phrase of the vocabulary that ws starts
// with, stop words of the query between its words allowed ("open a web
// page" is "open web page"). It returns how many words of ws it spans.
func matchPhrase(ws []string) (phrase, int, bool) {
	best, span, found := phrase{}, 0, false
	for _, p := range theVocab().phrases {
		if found && len(p.words) <= len(best.words) {
			continue
		}
		i, ok := 0, true
		for j, w := range p.words {
			for j > 0 && i < len(ws) && ws[i] != w && stopWords[ws[i]] {
				i++
			}
			if i >= len(ws) || ws[i] != w {
				ok = false
				break
			}
			i++
		}
		if ok {
			best, span, found = p, i, true
		}
	}
	return best, span, found
}

// strongly reports whether an alternative of c has all its terms in the
// strong fields of the index.
func (x *Index) strongly(c concept) bool {
	for _, a := range c.alts {
		ok := len(a.terms) > 0
		for _, t := range a.terms {
			ok = ok && x.strong[t]
		}
		if ok {
			return true
		}
	}
	return false
}

// knows reports whether any alternative of c is in the index.
func (x *Index) knows(c concept) bool {
	for _, a := range c.alts {
		if x.has(a.terms) {
			return true
		}
	}
	return false
}

// prefixAlts returns, for a word neither the index nor the vocabulary
// knows in any form ("memorised", "signups"), the terms of the index that
// begin as it does, at the weight of a related word: a word is often a
// form the stemmer does not reduce of a word a document has ("memor" of
// "memory", "sign" of "signup"). Only stems of minPrefix letters or more
// take part, and their common beginning must leave at most two letters of
// the shorter one over.
func (x *Index) prefixAlts(t string) []alt {
	if len(t) < minPrefix || !isLetters(t) {
		return nil
	}
	var out []alt
	for _, u := range x.sorted {
		n := commonPrefix(t, u)
		if n >= minPrefix && n+2 >= min(len(t), len(u)) {
			out = append(out, alt{terms: []string{u}, weight: relatedWeight})
		}
	}
	return out
}

const minPrefix = 4

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func (x *Index) has(ts []string) bool {
	for _, t := range ts {
		if x.terms[t] == nil {
			return false
		}
	}
	return len(ts) > 0
}

// namedServers returns the servers the concepts asked name, each a
// concept of one term that is a server's name.
func (x *Index) namedServers(asked []concept) []string {
	var named []string
	for _, c := range asked {
		if t := c.alts[0].terms; len(t) == 1 && x.servers[t[0]] {
			named = append(named, t[0])
		}
	}
	return named
}

// wordPairs counts the neighbouring concepts of cs that are both words of
// the query.
func wordPairs(cs []concept) int {
	n := 0
	for j := 1; j < len(cs); j++ {
		if cs[j-1].word && cs[j].word {
			n++
		}
	}
	return n
}

// rank scores every document for the concepts: the sum over concepts of
// the best alternative's BM25F score, scaled by the share of concepts the
// document matches.
func (x *Index) rank(query string, cs []concept) []Hit {
	scores := make([]float64, len(x.docs))
	matched := make([]int, len(x.docs))
	best := make([]float64, len(x.docs))
	for _, c := range cs {
		clear(best)
		for _, a := range c.alts {
			x.score(a, best)
		}
		for i, s := range best {
			if s > 0 {
				scores[i] += s
				if !c.expansion {
					matched[i]++
				}
			}
		}
	}
	asked := 0 // the concepts the query asks for (feedback's come last)
	for _, c := range cs {
		if !c.expansion {
			asked++
		}
	}
	named := x.namedServers(cs[:asked])
	npairs := wordPairs(cs)
	qa := noAction
	if x.p.aoBonus > 0 || x.p.aoPenalty > 0 {
		qa = x.queryAction(query, cs[:asked])
	}
	var hits []Hit
	for i, s := range scores {
		if s <= 0 {
			continue
		}
		if len(named) > 0 && !x.namesServer(i, named) {
			s *= otherServerFactor
		}
		s *= coverage(matched[i], asked) * (1 + nameBoost*nameCoverage(x.names[i], cs[:asked]))
		if npairs > 0 {
			s *= 1 + pairBoost*float64(x.pairCount(i, cs))/float64(npairs)
		}
		if x.docs[i].Deprecated {
			s *= deprecatedFactor
		}
		if qa != noAction || x.p.delPenalty > 0 {
			s *= x.actionFactor(i, qa, cs[:asked])
		}
		if x.p.famPenalty > 0 {
			s *= x.familyFactor(i, cs[:asked])
		}
		if x.p.proxBoost > 0 {
			s *= x.proximityFactor(i, cs[:asked])
		}
		hits = append(hits, Hit{Doc: x.docs[i], Score: s})
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	return hits
}

// mixSimilarity adds to each hit's score, scaled so that the best is 1,
// simWeight times the cosine of the query and the document (similarity);
// a document with a positive cosine and no lexical score becomes a hit.
func (x *Index) mixSimilarity(query string, hits []Hit) []Hit {
	sim := x.similarity(query)
	if sim == nil {
		return hits
	}
	top := 1.0
	if len(hits) > 0 && hits[0].Score > 0 {
		top = hits[0].Score
	}
	lex := map[string]float64{}
	for _, h := range hits {
		lex[h.Doc.Name] = h.Score / top
	}
	var out []Hit
	for i, d := range x.docs {
		s := lex[d.Name] + x.p.simWeight*max(0, sim[i])
		if s > 0 {
			out = append(out, Hit{Doc: d, Score: s})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

// pairCount is how many pairs of neighbouring word concepts of the query
// stand side by side in document i, in any of their single-word forms.
func (x *Index) pairCount(i int, cs []concept) int {
	n := 0
	for j := 1; j < len(cs); j++ {
		if !cs[j-1].word || !cs[j].word {
			continue
		}
	found:
		for _, a := range cs[j-1].alts {
			for _, b := range cs[j].alts {
				if len(a.terms) == 1 && len(b.terms) == 1 && x.pairs[i][[2]string{a.terms[0], b.terms[0]}] {
					n++
					break found
				}
			}
		}
	}
	return n
}

// coverage favours documents that match more of what the query asks.
func coverage(matched, total int) float64 {
	return float64(matched+1) / float64(total+1)
}

func (x *Index) namesServer(doc int, named []string) bool {
	for _, t := range named {
		if x.server[doc][t] {
			return true
		}
	}
	return false
}

// nameCoverage is the share of a document's name words the query asks
// for, each counted by the weight of the best alternative naming it: 1 for
// "create directory" and for "make a folder", 0 for "edit file".
func nameCoverage(name []string, cs []concept) float64 {
	if len(name) == 0 {
		return 0
	}
	sum := 0.0
	for _, t := range name {
		best := 0.0
		for _, c := range cs {
			for _, a := range c.alts {
				if a.weight > best && contains(a.terms, t) {
					best = a.weight
				}
			}
		}
		sum += best
	}
	return sum / float64(len(name))
}

// score raises best[i] to alternative a's score in document i where that
// is higher.
func (x *Index) score(a alt, best []float64) {
	if !x.has(a.terms) {
		return
	}
	first := x.terms[a.terms[0]]
next:
	for i := range first.freq {
		s := 0.0
		for _, t := range a.terms {
			p := x.terms[t]
			f, ok := p.freq[i]
			if !ok {
				continue next
			}
			s += p.idf * f * (x.p.k1 + 1) / (f + x.p.k1)
		}
		if s *= a.weight; s > best[i] {
			best[i] = s
		}
	}
}
