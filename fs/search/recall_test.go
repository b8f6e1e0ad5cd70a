package search

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/naming"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// Floors of TestRecall: somewhat below what the ranking reaches on
// each set, so that a change that loses queries fails. Every set but the
// blind ones is in the training of the associations and the examples
// (trainSets), so its figure is in sample.
const (
	floorRecall1   = 0.96
	floorRecall5   = 0.99
	floorHoldout1  = 0.90
	floorHoldout5  = 0.98
	floorFresh1    = 0.90
	floorFresh5    = 0.97
	floorUnseen1   = 0.92
	floorUnseen5   = 0.98
	floorSealed1   = 0.88
	floorSealed5   = 0.97
	floorFinal1    = 0.90
	floorFinal5    = 0.97
	floorBlind1    = 0.90
	floorBlind5    = 0.97
	floorBlind2At1 = 0.90
	floorBlind2At5 = 0.97
	floorBlind3At1 = 0.90
	floorBlind3At5 = 0.97
	floorBlind4At1 = 0.85
	floorBlind4At5 = 0.97
	// blind5.txt: 71.2% / 93.8% as written (plain BM25 30.0% / 48.8%),
	// 81.9% / 96.9% after the fourteenth round, 77.5% / 95.6% with the
	// association setting its rule chose once two numbers read as a sum,
	// 78.1% / 95.6% with a tool that deletes lowered when no action is
	// asked, 76.2% / 95.6% with the table learned from fifteen sets,
	// 89.4% / 98.1% with eighteen sets and the examples, the same with
	// twenty-two, 90.6% / 98.1% with twenty-six, 91.2% / 97.5% with
	// thirty, 95.6% / 99.4% with forty-three and the examples' gate.
	floorBlind5At1 = 0.92
	floorBlind5At5 = 0.97
	// blind6.txt: 70.0% / 87.5% as written (plain BM25 29.4% / 57.5%;
	// without the learned associations 64.4% / 83.1%), 72.5% / 88.8%
	// with the table learned from fifteen sets, 79.4% / 95.6% with
	// eighteen sets and the examples, 81.2% / 95.0% with twenty-two,
	// 83.1% / 95.6% with twenty-six, 84.4% / 95.6% with thirty,
	// 90.0% / 98.8% with forty-three and the examples' gate.
	floorBlind6At1 = 0.86
	floorBlind6At5 = 0.96
	// blind7.txt: 86.2% / 96.2% at its first measurement, with eighteen
	// sets and the examples (plain BM25 34.4% / 54.4%), 85.6% / 96.2%
	// with twenty-two, 89.4% / 97.5% with twenty-six, 91.2% / 97.5%
	// with thirty, 94.4% / 97.5% with forty-three and the examples' gate.
	floorBlind7At1 = 0.90
	floorBlind7At5 = 0.95
	// blind8.txt: 91.9% / 98.1% at its first measurement, with
	// forty-three sets and the examples' gate (plain BM25 below; without
	// the learned parts 63.7% / 88.8%).
	floorBlind8At1 = 0.88
	floorBlind8At5 = 0.96
)

// listing is a testdata/servers/*.json file: one server's raw tools/list,
// with the package it came from.
type listing struct {
	Package    string `json:"package"`
	Version    string `json:"version"`
	ServerInfo struct {
		Name    string `json:"name"`
		Title   string `json:"title"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	Tools []json.RawMessage `json:"tools"`
}

// testCatalog is the catalog of every server under testdata/servers, each
// named by its file.
func testCatalog(tb testing.TB) *discovery.Catalog {
	tb.Helper()
	files, err := filepath.Glob("testdata/servers/*.json")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no listings under testdata/servers: %v", err)
	}
	cat := &discovery.Catalog{Version: 1}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var l listing
		if err := json.Unmarshal(data, &l); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		key := strings.TrimSuffix(filepath.Base(f), ".json")
		s := discovery.ServerSnapshot{
			Name: naming.Package(key), Key: key, Transport: "stdio", State: discovery.StateReady,
			ServerName: l.ServerInfo.Name, ServerTitle: l.ServerInfo.Title, ServerVersion: l.ServerInfo.Version,
		}
		for _, raw := range l.Tools {
			var t struct{ Name string }
			if err := json.Unmarshal(raw, &t); err != nil {
				tb.Fatalf("%s: %v", f, err)
			}
			s.Tools = append(s.Tools, discovery.Tool{Name: t.Name, Raw: raw})
		}
		cat.Servers = append(cat.Servers, s)
	}
	sort.Slice(cat.Servers, func(i, j int) bool { return cat.Servers[i].Name < cat.Servers[j].Name })
	return cat
}

// query is one line of testdata/queries.txt.
type query struct {
	text string
	want []string // "<server package>:<tool>"
}

func testQueries(tb testing.TB) []query { return readQueries(tb, "testdata/queries.txt") }

func readQueries(tb testing.TB, file string) []query {
	tb.Helper()
	f, err := os.Open(file)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []query
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		text, targets, ok := strings.Cut(line, "=>")
		if !ok {
			tb.Fatalf("%s: no => in %q", file, line)
		}
		q := query{text: strings.TrimSpace(text)}
		for _, t := range strings.Split(targets, ",") {
			server, tool, ok := strings.Cut(strings.TrimSpace(t), ":")
			if !ok {
				tb.Fatalf("%s: target %q is not server:tool", file, t)
			}
			q.want = append(q.want, naming.Package(server)+":"+tool)
		}
		out = append(out, q)
	}
	return out
}

// ranker returns the tools it ranks for a query, best first, as
// "<server package>:<tool>".
type ranker func(q string) []string

// recall is the share of queries with a wanted tool first, and in the
// first five; misses lists the queries without one in the first five, and
// the ones not first.
func recall(qs []query, rank ranker) (r1, r5 float64, notFirst []string) {
	var at1, at5 int
	for _, q := range qs {
		got := rank(q.text)
		pos := -1
		for i, g := range got {
			if contains(q.want, g) {
				pos = i
				break
			}
		}
		switch {
		case pos == 0:
			at1++
			at5++
		case pos > 0 && pos < 5:
			at5++
			notFirst = append(notFirst, q.text+" → #"+itoa(pos+1)+" (first: "+got[0]+")")
		default:
			first := ""
			if len(got) > 0 {
				first = got[0]
			}
			notFirst = append(notFirst, q.text+" → MISS "+itoa(pos+1)+" (first: "+first+")")
		}
	}
	n := float64(len(qs))
	return float64(at1) / n, float64(at5) / n, notFirst
}

func itoa(i int) string {
	if i <= 0 {
		return "-"
	}
	return strconv.Itoa(i)
}

// searchRanker ranks with this package.
func searchRanker(x *Index) ranker {
	return func(q string) []string {
		var out []string
		for _, h := range x.Search(q, 10) {
			out = append(out, h.Doc.Server+":"+h.Doc.Tool)
		}
		return out
	}
}

// bm25Ranker is the baseline: plain Okapi BM25 over the generated tool
// files (servers/<server>/<tool>.go as the tree shows them): lower-case
// runs of letters and digits, no stemming, no stop words, no vocabulary.
func bm25Ranker(tb testing.TB, cat *discovery.Catalog) ranker {
	tree := mcpfs.New(cat, mcpfs.Options{})
	var ids []string
	var docs []map[string]int
	var lens []float64
	df := map[string]int{}
	for _, d := range ToolDocs(cat) {
		src, err := tree.ReadFile(d.Path)
		if err != nil {
			tb.Fatal(err)
		}
		tf := map[string]int{}
		ws := plainWords(string(src))
		for _, w := range ws {
			tf[w]++
		}
		for w := range tf {
			df[w]++
		}
		ids = append(ids, d.Server+":"+d.Tool)
		docs = append(docs, tf)
		lens = append(lens, float64(len(ws)))
	}
	avg := 0.0
	for _, l := range lens {
		avg += l / float64(len(lens))
	}
	n := float64(len(docs))
	return func(q string) []string {
		scores := make([]float64, len(docs))
		seen := map[string]bool{}
		for _, w := range plainWords(q) {
			if seen[w] || df[w] == 0 {
				continue
			}
			seen[w] = true
			idf := math.Log(1 + (n-float64(df[w])+0.5)/(float64(df[w])+0.5))
			for i, tf := range docs {
				if f := float64(tf[w]); f > 0 {
					scores[i] += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-0.75+0.75*lens[i]/avg))
				}
			}
		}
		order := make([]int, 0, len(docs))
		for i, s := range scores {
			if s > 0 {
				order = append(order, i)
			}
		}
		sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
		var out []string
		for _, i := range order {
			out = append(out, ids[i])
		}
		return out
	}
}

// bm25K1 is the baseline's saturation, Okapi's usual 1.2 (b is 0.75).
const bm25K1 = 1.2

func plainWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func TestQuerySet(t *testing.T) {
	cat := testCatalog(t)
	qs := testQueries(t)
	servers := map[string]bool{}
	tools := map[string]bool{}
	for _, d := range ToolDocs(cat) {
		tools[d.Server+":"+d.Tool] = true
	}
	for _, q := range qs {
		for _, w := range q.want {
			if !tools[w] {
				t.Errorf("query %q wants %s, which no server lists", q.text, w)
			}
			servers[strings.SplitN(w, ":", 2)[0]] = true
		}
	}
	if len(qs) < 120 || len(servers) < 8 {
		t.Errorf("%d queries over %d servers, want at least 120 over 8", len(qs), len(servers))
	}
}

func TestRecall(t *testing.T) {
	cat := testCatalog(t)
	x := New(ToolDocs(cat))
	bm25 := bm25Ranker(t, cat)
	for _, set := range []struct {
		file           string
		floor1, floor5 float64
		// blind sets print no misses: nobody reads them to tune. The
		// older blind sets are training sets now (trainSets); blind5.txt
		// to blind8.txt are kept blind.
		blind bool
	}{
		{"testdata/queries.txt", floorRecall1, floorRecall5, false},
		{"testdata/holdout.txt", floorHoldout1, floorHoldout5, false},
		{"testdata/fresh.txt", floorFresh1, floorFresh5, false},
		{"testdata/unseen.txt", floorUnseen1, floorUnseen5, false},
		{"testdata/sealed.txt", floorSealed1, floorSealed5, false},
		{"testdata/final.txt", floorFinal1, floorFinal5, false},
		{"testdata/blind.txt", floorBlind1, floorBlind5, false},
		{"testdata/blind2.txt", floorBlind2At1, floorBlind2At5, false},
		{"testdata/blind3.txt", floorBlind3At1, floorBlind3At5, false},
		{"testdata/blind4.txt", floorBlind4At1, floorBlind4At5, false},
		{"testdata/blind5.txt", floorBlind5At1, floorBlind5At5, true},
		{"testdata/blind6.txt", floorBlind6At1, floorBlind6At5, true},
		{"testdata/blind7.txt", floorBlind7At1, floorBlind7At5, true},
		{"testdata/blind8.txt", floorBlind8At1, floorBlind8At5, true},
	} {
		qs := readQueries(t, set.file)
		r1, r5, misses := recall(qs, searchRanker(x))
		b1, b5, _ := recall(qs, bm25)
		t.Logf("%s, %d queries: search recall@1 %.1f%%, recall@5 %.1f%%; plain BM25 over the tool files %.1f%%, %.1f%%",
			set.file, len(qs), 100*r1, 100*r5, 100*b1, 100*b5)
		if set.blind {
			t.Logf("  %d not first; misses not printed: the set is kept blind", len(misses))
			misses = nil
		}
		for _, m := range misses {
			t.Log("  " + m)
		}
		if r1 < set.floor1 || r5 < set.floor5 {
			t.Errorf("%s: recall@1 %.3f, recall@5 %.3f: want at least %.2f and %.2f", set.file, r1, r5, set.floor1, set.floor5)
		}
	}
}

// BenchmarkRecall reports recall@1 and @5 (in percent) of this package on
// each query set, beside plain BM25 over the generated tool files
// ("<set>-recall@1%", "<set>-bm25-recall@1%", ...); ns/op is one search
// among the 122 tools of the twelve servers.
func BenchmarkRecall(b *testing.B) {
	cat := testCatalog(b)
	qs := testQueries(b)
	x := New(ToolDocs(cat))
	bm25 := bm25Ranker(b, cat)
	type metric struct {
		v    float64
		unit string
	}
	var ms []metric
	for _, set := range append(querySets[:len(querySets):len(querySets)], blindSets...) {
		sq := readQueries(b, "testdata/"+set+".txt")
		r1, r5, _ := recall(sq, searchRanker(x))
		b1, b5, _ := recall(sq, bm25)
		ms = append(ms, metric{float64(len(sq)), set + "-queries"}, metric{100 * r1, set + "-recall@1%"}, metric{100 * r5, set + "-recall@5%"},
			metric{100 * b1, set + "-bm25-recall@1%"}, metric{100 * b5, set + "-bm25-recall@5%"})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x.Search(qs[i%len(qs)].text, 10)
	}
	for _, m := range ms {
		b.ReportMetric(m.v, m.unit)
	}
}

// querySets are the files under testdata with queries, in the order they
// were written: queries (tuned on), holdout and fresh (the first round's
// held-out sets), unseen (the second round's, seen while it was tuned)
// sealed (written after the second round's changes), final (written
// after the third, before a thesaurus was tried), blind (written before
// the fourth round's techniques were measured) and blind2 (written from
// the listings alone after the fifth round, by someone who had not read
// the search code or the other sets), blind3 (written the same way
// after the seventh round) and blind4 (the same way, after the ninth).
var querySets = []string{"queries", "holdout", "fresh", "unseen", "sealed", "final", "blind", "blind2", "blind3", "blind4"}

// blindSets are the sets no learned part is trained on (all but
// trainSets), whose misses are never printed: the figures for needs
// nobody tuned for.
var blindSets = []string{"blind5", "blind6", "blind7", "blind8"}

// BenchmarkIndex builds the index of the twelve servers' 122 tools, as a
// face does when the catalog changes.
func BenchmarkIndex(b *testing.B) {
	docs := ToolDocs(testCatalog(b))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		New(docs)
	}
}
