package search

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// The thesaurus: general English, from WordNet 3.1 (Princeton University;
// its licence is wordnet/LICENSE). Each single-word noun and verb maps to
// the other single words of its three commonest senses (by WordNet's
// sense-tagged corpus, then its sense order) and of those senses' direct
// hypernyms: "jot" → write, note; "stash" → hoard, cache, store, save;
// "relocate" → move. A query word that no document and no line of the
// vocabulary knows reaches the catalog through it, below the vocabulary's
// weights (params.wnSyn, params.wnHyper).
//
// The table is generated (internal/mkwordnet) into wordnet/thesaurus.gz
// and unpacked on the first search that needs it, never by commands that
// do not search. It is off (params.wnSyn and wnHyper are 0): measured on
// the query sets (TestWordNet, docs/BENCHMARKS.md), it raised no set held
// out of the choice of its weights. So that the binary does not carry
// 0.76 MB it does not use, only the tests embed it
// (wordnet_embed_test.go); to turn it on, move that go:embed line here and
// set the weights.
//
//go:generate go run ./internal/mkwordnet -dict $WORDNET_DICT -o wordnet/thesaurus.gz
var thesaurusGz []byte

// thesaurus is the unpacked table: its text, one word a line in sorted
// order ("word\tsyn syn|hyper hyper;..."), and where each line starts.
type thesaurus struct {
	text  string
	lines []int32
}

// wnSense is one sense of a word in the thesaurus: the other words of its
// synset and those of its direct hypernyms.
type wnSense struct {
	syn, hyper []string
}

// theThesaurus is the unpacked thesaurus, or an empty one if the embedded
// table cannot be read (a search then goes without it).
var theThesaurus = sync.OnceValue(func() *thesaurus {
	t, err := parseThesaurus(thesaurusGz)
	if err != nil {
		return &thesaurus{}
	}
	return t
})

func parseThesaurus(gz []byte) (*thesaurus, error) {
	z, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	if n := len(gz); n >= 4 { // gzip ends with the text's length, mod 2³²
		b.Grow(int(binary.LittleEndian.Uint32(gz[n-4:])) & (1<<26 - 1))
	}
	if _, err := io.Copy(&b, z); err != nil {
		return nil, err
	}
	t := &thesaurus{text: b.String()}
	for i := 0; i < len(t.text); {
		t.lines = append(t.lines, int32(i))
		j := strings.IndexByte(t.text[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return t, nil
}

// line returns the senses part of word's line, if the table has word.
func (t *thesaurus) line(word string) (string, bool) {
	head := func(i int) string {
		l := t.text[t.lines[i]:]
		if j := strings.IndexByte(l, '\n'); j >= 0 {
			l = l[:j]
		}
		return l
	}
	i := sort.Search(len(t.lines), func(i int) bool {
		w, _, _ := strings.Cut(head(i), "\t")
		return w >= word
	})
	if i == len(t.lines) {
		return "", false
	}
	w, rest, _ := strings.Cut(head(i), "\t")
	return rest, w == word
}

// senses returns the senses of word, commonest first, at most n of them.
// A word in no form the table has returns none. The word is looked up as
// typed, else as the base form WordNet's rules of detachment give
// ("stashed" → stash, "jotting" → jot, "boxes" → box).
func (t *thesaurus) senses(word string, n int) []wnSense {
	var rest string
	found := false
	for _, w := range baseForms(word) {
		if rest, found = t.line(w); found {
			break
		}
	}
	if !found {
		return nil
	}
	var out []wnSense
	for _, s := range strings.Split(rest, ";") {
		if len(out) == n {
			break
		}
		syn, hyper, _ := strings.Cut(s, "|")
		out = append(out, wnSense{syn: strings.Fields(syn), hyper: strings.Fields(hyper)})
	}
	return out
}

// baseForms returns word and the forms it may be an inflection of, by
// WordNet's rules of detachment for nouns and verbs, with a doubled final
// consonant undone ("jotted" → jot).
func baseForms(word string) []string {
	out := []string{word}
	for _, r := range [][2]string{
		{"ies", "y"}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"},
		{"es", "e"}, {"es", ""}, {"s", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""},
	} {
		if b, ok := strings.CutSuffix(word, r[0]); ok && len(b) >= 2 {
			out = append(out, b+r[1])
			if n := len(b); r[1] == "" && (r[0] == "ed" || r[0] == "ing") && n >= 3 && b[n-1] == b[n-2] && !isVowel(b[n-1]) {
				out = append(out, b[:n-1])
			}
		}
	}
	return out
}

// wordnetAlts returns the alternatives the thesaurus gives a query word
// (as typed, lower case): the stems of its senses' words that the index
// has, synonyms at wnSyn, hypernyms at wnHyper, each sense after the first
// at wnDecay times the one before; with wnVocab, the vocabulary's synonyms
// of those words too, at synonymWeight times theirs. A stem reached twice
// keeps its best weight.
func (x *Index) wordnetAlts(word string) []alt {
	w := map[string]float64{}
	var order []string
	add := func(t string, weight float64) {
		if x.terms[t] == nil || x.servers[t] {
			return
		}
		if _, ok := w[t]; !ok {
			order = append(order, t)
		}
		w[t] = max(w[t], weight)
	}
	scale := 1.0
	for _, s := range theThesaurus().senses(word, x.p.wnSenses) {
		for _, list := range []struct {
			words  []string
			weight float64
		}{{s.syn, x.p.wnSyn}, {s.hyper, x.p.wnHyper}} {
			for _, u := range list.words {
				if stopWords[u] {
					continue
				}
				t := stem(u)
				add(t, list.weight*scale)
				if x.p.wnVocab && !x.p.noVocab {
					for _, v := range theVocab().synonyms[t] {
						add(v, list.weight*scale*synonymWeight)
					}
				}
			}
		}
		scale *= x.p.wnDecay
	}
	var out []alt
	for _, t := range order {
		if w[t] > 0 {
			out = append(out, alt{terms: []string{t}, weight: w[t]})
		}
	}
	return out
}

// capitalized returns the words of query, lower case, that it writes
// with a capital letter and then small ones after its first word ("Bob",
// "Paris"): names, which the thesaurus would read as common words ("bob"
// → move).
func capitalized(query string) map[string]bool {
	out := map[string]bool{}
	for i, f := range strings.FieldsFunc(query, func(r rune) bool { return !unicode.IsLetter(r) }) {
		rs := []rune(f)
		if i > 0 && len(rs) > 1 && unicode.IsUpper(rs[0]) && unicode.IsLower(rs[1]) {
			out[strings.ToLower(f)] = true
		}
	}
	return out
}
