package search

import (
	_ "embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Associations learned from labelled queries: for a word people write in a
// need ("stash", "peek"), the words of tool texts that the tools wanted for
// such needs have ("save", "read"), as a statistical translation model
// learns them from pairs of sentences. A query word finds them below a
// literal match (params.assocWeight), as it finds the vocabulary's words.
//
// The table maps words to generic words of tool texts (the terms of tools'
// names, titles, descriptions and arguments), never to a tool or a server:
// words that name a server were left out when it was learned, and a search
// skips any that names a server of its own catalog. So it carries to other
// servers as far as their tools use the same words.
//
// Learned from the labelled queries of twelve servers, the table helps
// most where a user's servers are among them; a word that a server puts
// in most of its tools' names ("browser", "file") leads to that server's
// tools rather than to what a query asks of others, so associations to
// the house words of the catalog searched are skipped (assocHouse).
//
// It is on (params.assocWeight in defaults): every query word, its first
// two terms met in two queries or more, at 0.5 of a literal match
// relative to the first, adding to a score without counting as a word
// the document covers. The
// setting was chosen by two cross-validations (TestAssocTransfer;
// docs/BENCHMARKS.md, "Fourteenth round"): the best over the query sets
// left out one at a time, among the settings that cost at most a point
// at @1 (and, since the sixteenth round, at @5) on the queries of a
// server left out of the training.
//
// It is learned (assoc_train_test.go, TestWriteAssocTable) from every
// query set but the blind ones (trainSets) over the twelve
// servers' listings under testdata/servers, and written to
// assoc/table.txt. The training needs the package's tokenizer and the
// query sets, which live with the tests, so the generator is a test:
//
//	go generate -run TestWriteAssocTable ./fs/search
//
//go:generate env SEARCH_ASSOC_WRITE=1 go test -run ^TestWriteAssocTable$ .
//go:embed assoc/table.txt
var assocText string

// assocTable is a table of associations: for each query word (a stem, or
// the word as typed when stems is false), its tool-text terms, best first.
type assocTable struct {
	stems bool
	words map[string][]assocTerm
}

// assocTerm is one association: a term of the index's vocabulary of
// stems, how strongly the query word leads to it (relative to the word's
// other associations only), and in how many labelled queries the two met.
type assocTerm struct {
	term  string
	score float64
	count int
}

// theAssoc is the embedded table, parsed on first use; empty if it cannot
// be read (a search then goes without it).
var theAssoc = sync.OnceValue(func() *assocTable {
	t, err := parseAssoc(assocText)
	if err != nil {
		return &assocTable{words: map[string][]assocTerm{}}
	}
	return t
})

// parseAssoc reads a table: comment lines (#), a line "keys stems" or
// "keys words", then one word a line:
//
//	word<TAB>term count score<TAB>term count score...
func parseAssoc(text string) (*assocTable, error) {
	t := &assocTable{words: map[string][]assocTerm{}}
	for n, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, ok := strings.CutPrefix(line, "keys "); ok {
			t.stems = k == "stems"
			continue
		}
		fields := strings.Split(line, "\t")
		for _, f := range fields[1:] {
			parts := strings.Fields(f)
			if len(parts) != 3 {
				return nil, fmt.Errorf("association table line %d: %q is not \"term count score\"", n+1, f)
			}
			c, err1 := strconv.Atoi(parts[1])
			s, err2 := strconv.ParseFloat(parts[2], 64)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("association table line %d: bad count or score in %q", n+1, f)
			}
			t.words[fields[0]] = append(t.words[fields[0]], assocTerm{term: parts[0], count: c, score: s})
		}
	}
	return t, nil
}

// format writes t in the form parseAssoc reads, words in order.
func (t *assocTable) format(header string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(header), "\n") {
		b.WriteString("# " + l + "\n")
	}
	if t.stems {
		b.WriteString("keys stems\n")
	} else {
		b.WriteString("keys words\n")
	}
	ws := make([]string, 0, len(t.words))
	for w := range t.words {
		ws = append(ws, w)
	}
	sort.Strings(ws)
	for _, w := range ws {
		if len(t.words[w]) == 0 {
			continue
		}
		b.WriteString(w)
		for _, a := range t.words[w] {
			fmt.Fprintf(&b, "\t%s %d %.3g", a.term, a.count, a.score)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// assocAlts returns the alternatives the associations give a query word
// (w as typed, lower case; t its stem): the first assocK of its terms that
// met it in at least assocMin labelled queries, that the index has and that
// name no server of it, at assocWeight times their score relative to the
// first of them.
func (x *Index) assocAlts(w, t string) []alt {
	tab := x.p.assocTable
	if tab == nil {
		tab = theAssoc()
	}
	key := w
	if tab.stems {
		key = t
	}
	var out []alt
	top := 0.0
	for _, a := range tab.words[key] {
		if len(out) == x.p.assocK {
			break
		}
		if a.count < x.p.assocMin || a.score <= 0 || x.terms[a.term] == nil || x.servers[a.term] || x.p.assocHouse && x.house[a.term] {
			continue
		}
		if top == 0 {
			top = a.score
		}
		out = append(out, alt{terms: []string{a.term}, weight: x.p.assocWeight * a.score / top})
	}
	return out
}
