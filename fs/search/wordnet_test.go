package search

import (
	"bytes"
	"compress/gzip"
	"slices"
	"strings"
	"testing"
)

func TestThesaurusTable(t *testing.T) {
	th := theThesaurus()
	if len(th.lines) < 40000 {
		t.Fatalf("the thesaurus has %d words, want the tens of thousands mkwordnet writes", len(th.lines))
	}
	prev := ""
	for i := range th.lines {
		w, _, ok := strings.Cut(th.text[th.lines[i]:], "\t")
		if !ok || w <= prev {
			t.Fatalf("line %d (%.40q): not a word and a tab in sorted order after %q", i+1, th.text[th.lines[i]:], prev)
		}
		prev = w
	}
	reaches := func(word string, n int) []string {
		var out []string
		for _, s := range th.senses(word, n) {
			out = append(append(out, s.syn...), s.hyper...)
		}
		return out
	}
	for _, tt := range []struct {
		word string
		want []string // any of them
	}{
		{"jot", []string{"write", "note"}},
		{"jotted", []string{"write", "note"}},
		{"stash", []string{"hoard", "store", "save"}},
		{"stashing", []string{"hoard", "store", "save"}},
		{"relocate", []string{"move"}},
		{"relocated", []string{"move"}},
		{"customers", []string{"client"}},
		{"peek", []string{"look"}},
	} {
		got := reaches(tt.word, 3)
		found := false
		for _, w := range tt.want {
			found = found || slices.Contains(got, w)
		}
		if !found {
			t.Errorf("%q reaches %q, want one of %q", tt.word, got, tt.want)
		}
	}
	for _, w := range []string{"zzzxq", "", "mcpfs", "JOT"} {
		if got := th.senses(w, 3); got != nil {
			t.Errorf("%q: got %v, want no senses", w, got)
		}
	}
	if got := th.senses("note", 1); len(got) != 1 {
		t.Errorf("senses(note, 1): %d senses, want 1", len(got))
	}
}

func TestThesaurusBadTable(t *testing.T) {
	if _, err := parseThesaurus([]byte("not gzip")); err == nil {
		t.Error("parseThesaurus of a non-gzip table: no error")
	}
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte("jot\tjotting|note\n"))
	z.Close()
	data := b.Bytes()
	if _, err := parseThesaurus(data[:len(data)-6]); err == nil {
		t.Error("parseThesaurus of a truncated table: no error")
	}
	th, err := parseThesaurus(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := th.senses("jot", 3); len(got) != 1 || !slices.Equal(got[0].hyper, []string{"note"}) {
		t.Errorf("senses(jot) of a one-line table: %v", got)
	}
	// An empty table (what a search gets if the embedded one cannot be
	// read) knows no word, and the search works without it.
	empty := &thesaurus{}
	if got := empty.senses("jot", 3); got != nil {
		t.Errorf("an empty table: senses(jot) = %v", got)
	}
}

func TestBaseForms(t *testing.T) {
	for in, want := range map[string]string{
		"jotted": "jot", "stashed": "stash", "boxes": "box", "copies": "copy",
		"relocating": "relocate", "notes": "note", "sitting": "sit", "women": "woman",
	} {
		if got := baseForms(in); !slices.Contains(got, want) {
			t.Errorf("baseForms(%q) = %q, want it to hold %q", in, got, want)
		}
	}
}

// TestThesaurusSearch: on, a query word that no document and no line of
// the vocabulary knows finds the documents that have its WordNet
// neighbours; a name the query writes with a capital letter is not looked
// up; off (the default), nothing.
func TestThesaurusSearch(t *testing.T) {
	docs := []Doc{
		{Kind: KindTool, Name: "files.WriteFile", Server: "files", Tool: "write_file", Description: "Write text to a file on disk."},
		{Kind: KindTool, Name: "files.MoveFile", Server: "files", Tool: "move_file", Description: "Move a file to another folder."},
		{Kind: KindTool, Name: "files.ListFolder", Server: "files", Tool: "list_folder", Description: "List the entries of a folder."},
	}
	on := newIndex(docs, wnOn)
	for q, want := range map[string]string{
		"scrawl a line":              "files.WriteFile",
		"budge report.txt elsewhere": "files.MoveFile",
	} {
		hits := on.Search(q, 3)
		if len(hits) == 0 || hits[0].Doc.Name != want {
			t.Errorf("thesaurus on, %q: got %v, want %s first", q, hits, want)
		}
	}
	if hits := on.Search("ask Bob", 3); len(hits) != 0 {
		t.Errorf("thesaurus on, %q: got %v, want nothing (Bob is a name, not a verb)", "ask Bob", hits)
	}
	for _, q := range []string{"scrawl", "budge"} {
		if v := theVocab(); len(v.synonyms[stem(q)])+len(v.related[stem(q)]) > 0 {
			t.Fatalf("the vocabulary has %q: the test needs a word only the thesaurus knows", q)
		}
		if hits := newIndex(docs, noVectors).Search(q, 3); len(hits) != 0 {
			t.Errorf("thesaurus off: %q found %v", q, hits)
		}
	}
}

// BenchmarkThesaurusLoad is the cost of unpacking the table, paid once by
// the first search that needs it.
func BenchmarkThesaurusLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := parseThesaurus(thesaurusGz); err != nil {
			b.Fatal(err)
		}
	}
}
