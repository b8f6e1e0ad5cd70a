package search

import (
	"strings"
	"testing"
)

func TestParseAssoc(t *testing.T) {
	tab := &assocTable{stems: true, words: map[string][]assocTerm{
		"stash": {{term: "save", count: 3, score: 0.5}, {term: "writ", count: 1, score: 0.25}},
		"peek":  {{term: "read", count: 2, score: 0.75}},
	}}
	text := tab.format("a header\nof two lines")
	got, err := parseAssoc(text)
	if err != nil {
		t.Fatal(err)
	}
	if !got.stems || len(got.words) != 2 || len(got.words["stash"]) != 2 || got.words["stash"][1] != (assocTerm{term: "writ", count: 1, score: 0.25}) {
		t.Errorf("got %+v, want %+v", got, tab)
	}
	if got.format("a header\nof two lines") != text {
		t.Errorf("format after parse differs:\n%s\nwant\n%s", got.format("a header\nof two lines"), text)
	}
	for _, bad := range []string{"keys stems\nstash\tsave 3", "keys stems\nstash\tsave x 0.5", "keys stems\nstash\tsave 3 y"} {
		if _, err := parseAssoc(bad); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("parseAssoc(%q): got %v, want an error naming line 2", bad, err)
		}
	}
}

// TestAssocAlts checks how a query word reads a table: the first assocK
// terms that met it often enough, the index has, and name no server, at
// weights relative to the first kept.
func TestAssocAlts(t *testing.T) {
	tab := &assocTable{stems: true, words: map[string][]assocTerm{
		"blorp": {
			{term: "github", count: 9, score: 0.9},     // names a server: skipped
			{term: "zzznothing", count: 9, score: 0.8}, // not in the index: skipped
			{term: "directory", count: 5, score: 0.6},
			{term: "creat", count: 1, score: 0.5}, // below assocMin 2: skipped
			{term: "list", count: 2, score: 0.3},
			{term: "fil", count: 2, score: 0.2}, // beyond assocK 2
		},
	}}
	p := defaults
	p.assocWeight, p.assocK, p.assocMin, p.assocTable = 0.5, 2, 2, tab
	x := newIndex(ToolDocs(testCatalog(t)), p)
	if !x.servers["github"] || x.terms["directory"] == nil || x.terms["list"] == nil {
		t.Fatalf("the catalog changed: github names a server %v, directory %v, list %v", x.servers["github"], x.terms["directory"] != nil, x.terms["list"] != nil)
	}
	got := x.assocAlts("blorp", "blorp")
	want := []alt{{terms: []string{"directory"}, weight: 0.5}, {terms: []string{"list"}, weight: 0.25}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].terms[0] != want[i].terms[0] || got[i].weight != want[i].weight {
			t.Errorf("alternative %d: got %v, want %v", i, got[i], want[i])
		}
	}
}

// TestAssocSearch checks that a word only the associations know finds
// the tools of the words it leads to, and only when they are on.
func TestAssocSearch(t *testing.T) {
	tab := &assocTable{stems: true, words: map[string][]assocTerm{
		"blorp": {{term: "creat", count: 3, score: 1}, {term: "directory", count: 3, score: 0.9}},
	}}
	docs := ToolDocs(testCatalog(t))
	off := defaults
	off.assocWeight = 0
	if hits := newIndex(docs, off).Search("blorp", 5); len(hits) != 0 {
		t.Errorf("without associations: got %d hits for a word nothing knows, want none", len(hits))
	}
	for _, soft := range []bool{false, true} {
		p := defaults
		p.assocWeight, p.assocK, p.assocMin, p.assocSoft, p.assocTable = 0.7, 3, 1, soft, tab
		hits := newIndex(docs, p).Search("blorp", 5)
		if len(hits) == 0 || hits[0].Doc.Tool != "create_directory" {
			var got []string
			for _, h := range hits {
				got = append(got, h.Doc.Tool)
			}
			t.Errorf("soft %v: got %v first, want create_directory", soft, got)
		}
	}
}

// BenchmarkAssocSearch is one search over the five tuned sets' queries,
// without the associations and with them (defaults); BenchmarkAssocLoad
// is parsing the embedded table, once per process.
func BenchmarkAssocSearch(b *testing.B) {
	docs := ToolDocs(testCatalog(b))
	var qs []query
	for _, s := range assocSets {
		qs = append(qs, readQueries(b, "testdata/"+s+".txt")...)
	}
	theAssoc()
	for _, c := range []struct {
		name string
		p    params
	}{{"off", noAssoc}, {"on", defaults}} {
		x := newIndex(docs, c.p)
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				x.Search(qs[i%len(qs)].text, 10)
			}
		})
	}
}

func BenchmarkAssocLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := parseAssoc(assocText); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAssocHouse checks that with assocHouse an association to a word a
// server puts in most of its tools' names ("browser" of browser_click,
// browser_navigate, ...) is left out, and only then.
func TestAssocHouse(t *testing.T) {
	docs := ToolDocs(testCatalog(t))
	x := newIndex(docs, noAssoc)
	if !x.house["browser"] || x.house["navigat"] {
		t.Fatalf("house words: browser %v, navigat %v; want true, false", x.house["browser"], x.house["navigat"])
	}
	tab := &assocTable{words: map[string][]assocTerm{
		"blorp": {{term: "browser", count: 3, score: 1}},
	}}
	for _, house := range []bool{false, true} {
		p := defaults
		p.assocWeight, p.assocK, p.assocMin, p.assocHouse, p.assocTable = 0.3, 3, 1, house, tab
		hits := newIndex(docs, p).Search("blorp", 5)
		if house && len(hits) != 0 {
			t.Errorf("house words left out: got %d hits through a house word, want none", len(hits))
		}
		if !house && len(hits) == 0 {
			t.Errorf("house words kept: got no hits through browser")
		}
	}
}
