package search

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

func TestVectorTable(t *testing.T) {
	wv := theVectors()
	if len(wv.words) < 30000 || wv.dims != 100 {
		t.Fatalf("the table has %d words of %d dimensions, want the tens of thousands of 100 mkvectors writes", len(wv.words), wv.dims)
	}
	cos := func(a, b string) float64 {
		va, vb := wv.vector(a), wv.vector(b)
		if va == nil || vb == nil {
			t.Fatalf("no vector for %q or %q", a, b)
		}
		return dot(va, vb)
	}
	// Words used alike point alike; a unit vector has length 1.
	for _, p := range [][3]string{
		{"folder", "directory", "banana"},
		{"stash", "hide", "elephant"},
		{"peek", "glimpse", "elephant"},
		{"restaurant", "eatery", "keyboard"},
		{"delete", "remove", "weather"},
	} {
		if near, far := cos(p[0], p[1]), cos(p[0], p[2]); near <= far+0.2 {
			t.Errorf("cos(%s, %s) = %.2f, cos(%s, %s) = %.2f: want the first well above", p[0], p[1], near, p[0], p[2], far)
		}
	}
	if c := cos("folder", "folder"); c < 0.999 || c > 1.001 {
		t.Errorf("cos(folder, folder) = %.4f, want 1", c)
	}
	// Inflections find their base form; unknown words have no vector.
	if wv.vector("jotted") == nil || wv.vector("stashing") == nil {
		t.Error("no vector for jotted or stashing (base forms jot, stash)")
	}
	for _, w := range []string{"zzzxq", "", "JOT"} {
		if wv.vector(w) != nil {
			t.Errorf("%q has a vector, want none", w)
		}
	}
}

func TestVectorsBadTable(t *testing.T) {
	gz := func(text string) []byte {
		var b bytes.Buffer
		z := gzip.NewWriter(&b)
		z.Write([]byte(text))
		z.Close()
		return b.Bytes()
	}
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"not gzip", []byte("not gzip"), ""},
		{"no header", gz("jot\n"), "header"},
		{"bad count", gz("mcpfs-vectors 1 2 x\n"), "bad dimensions or count"},
		{"short words", gz("mcpfs-vectors 1 2 3\nab\ncd\n"), "2 words of 3"},
		{"short vectors", gz("mcpfs-vectors 1 2 2\nab\ncd\n\x01\x02\x03"), "3 bytes of vectors, want 2 × 2"},
		{"unsorted", gz("mcpfs-vectors 1 2 2\ncd\nab\n\x01\x02\x03\x04"), "not sorted"},
	} {
		if _, err := parseVectors(tt.data); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one saying %q", tt.name, err, tt.want)
		}
	}
	v, err := parseVectors(gz("mcpfs-vectors 1 2 2\nab\ncd\n\x7f\x00\x00\x81"))
	if err != nil {
		t.Fatal(err)
	}
	if got := v.vector("cd"); len(got) != 2 || got[0] != 0 || got[1] != -1 {
		t.Errorf("vector(cd) of a two-word table = %v, want [0 -1]", got)
	}
	// An empty table (what a search gets if the embedded one cannot be
	// read) has no vector, and a search goes without one.
	empty := &wordVectors{}
	if got := empty.vector("jot"); got != nil {
		t.Errorf("an empty table: vector(jot) = %v", got)
	}
}

// TestVectorSearch: on, a query word no document and no vocabulary line
// knows finds the documents that have the catalog words nearest to it;
// the whole-query similarity ranks documents a query shares no word with;
// a name the query writes with a capital letter is not looked up; off,
// nothing.
func TestVectorSearch(t *testing.T) {
	docs := []Doc{
		{Kind: KindTool, Name: "food.FindRestaurant", Server: "food", Tool: "find_restaurant", Description: "Find a restaurant near a place."},
		{Kind: KindTool, Name: "food.OrderPizza", Server: "food", Tool: "order_pizza", Description: "Order a pizza for delivery."},
		{Kind: KindTool, Name: "food.WeatherForecast", Server: "food", Tool: "weather_forecast", Description: "The weather forecast of a city."},
	}
	near := vecOn
	sim := noVectors
	sim.simWeight = 0.3
	for _, p := range []params{near, sim} {
		hits := newIndex(docs, p).Search("brasserie", 3)
		if len(hits) == 0 || hits[0].Doc.Name != "food.FindRestaurant" {
			t.Errorf("%s, %q: got %v, want food.FindRestaurant first", p.vecString(), "brasserie", hits)
		}
		hits = newIndex(docs, p).Search("thunderstorm tomorrow", 3)
		if len(hits) == 0 || hits[0].Doc.Name != "food.WeatherForecast" {
			t.Errorf("%s, %q: got %v, want food.WeatherForecast first", p.vecString(), "thunderstorm tomorrow", hits)
		}
	}
	x := newIndex(docs, near)
	if with, without := x.Search("find Thunderstorm", 3), x.Search("find", 3); len(with) != len(without) || len(with) == 0 || with[0].Score != without[0].Score {
		t.Errorf("nearest words on, %q: got %v, want what %q finds, %v (Thunderstorm is a name)", "find Thunderstorm", with, "find", without)
	}
	if with, without := x.Search("find thunderstorm", 3), x.Search("find", 3); len(with) == len(without) {
		t.Errorf("nearest words on, %q: got %v, want more than %q finds, %v", "find thunderstorm", with, "find", without)
	}
	for _, q := range []string{"brasserie", "thunderstorm"} {
		if v := theVocab(); len(v.synonyms[stem(q)])+len(v.related[stem(q)]) > 0 {
			t.Fatalf("the vocabulary has %q: the test needs a word only the vectors know", q)
		}
		if hits := newIndex(docs, noVectors).Search(q, 3); len(hits) != 0 {
			t.Errorf("vectors off: %q found %v", q, hits)
		}
	}
}

// BenchmarkVectorsLoad is the cost of unpacking the table, paid once by
// the first search that needs it.
func BenchmarkVectorsLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := parseVectors(vectorsGz); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTermVectors builds the index of the twelve servers' 122 tools
// and its terms' vectors (the table already unpacked), which the first
// search with a word the catalog does not know pays once per index.
func BenchmarkTermVectors(b *testing.B) {
	docs := ToolDocs(testCatalog(b))
	theVectors()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		newIndex(docs, vecOn).termVectors()
	}
}

// BenchmarkVectorsSearch is one search of the first query sets' queries
// (the table unpacked and the terms' vectors built), with the word
// vectors and without.
func BenchmarkVectorsSearch(b *testing.B) {
	docs := ToolDocs(testCatalog(b))
	var qs []query
	for _, s := range wnSets {
		qs = append(qs, readQueries(b, "testdata/"+s+".txt")...)
	}
	for _, c := range []struct {
		name string
		p    params
	}{{"off", noVectors}, {"on", vecOn}} {
		x := newIndex(docs, c.p)
		x.termVectors()
		theVectors()
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				x.Search(qs[i%len(qs)].text, 10)
			}
		})
	}
}
