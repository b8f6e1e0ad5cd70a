package builtin

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
)

// seedDigest pins the seed documents. It changes only when data.go changes
// on purpose; update it then, and bump DocstoreVersion, since examples and
// benchmarks quote figures from these documents.
const seedDigest = "7967729d9eaf9ad1d0e36f2fb16125709e62aecd45ae86570c880bd9797c98e9"

func digestOf(docs []*document) string {
	h := sha256.New()
	for _, d := range docs {
		h.Write([]byte(d.id + "\x00" + d.title + "\x00" + d.kind + "\x00" + d.text + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func findSeed(t testing.TB, id string) *document {
	t.Helper()
	for _, d := range seedDocuments() {
		if d.id == id {
			return d
		}
	}
	t.Fatalf("no seed document %q", id)
	return nil
}

func TestSeedDeterministic(t *testing.T) {
	a, b := generateDocuments(), generateDocuments()
	if len(a) != len(b) {
		t.Fatalf("%d and %d documents", len(a), len(b))
	}
	for i := range a {
		if a[i].id != b[i].id || a[i].text != b[i].text || a[i].title != b[i].title {
			t.Errorf("document %q differs between two generations", a[i].id)
		}
	}
	if got := digestOf(a); got != seedDigest {
		t.Errorf("seed digest = %s, want %s (if data.go changed on purpose, update seedDigest and DocstoreVersion)", got, seedDigest)
	}
}

// TestSeedThroughServers checks that two servers serve identical bytes.
func TestSeedThroughServers(t *testing.T) {
	c1, c2 := newTestClient(t), newTestClient(t)
	for _, id := range []string{"handbook", "readme"} {
		r1 := callOK[readResult](t, c1, "read_document", map[string]any{"id": id})
		r2 := callOK[readResult](t, c2, "read_document", map[string]any{"id": id})
		if r1.Text != r2.Text || r1.Text != findSeed(t, id).text {
			t.Errorf("%s differs between servers", id)
		}
	}
}

func TestSeedShape(t *testing.T) {
	docs := generateDocuments()
	if !slices.IsSortedFunc(docs, func(a, b *document) int { return strings.Compare(a.id, b.id) }) {
		t.Error("seed documents are not sorted by id")
	}
	for _, d := range docs {
		if !slugPattern.MatchString(d.id) {
			t.Errorf("seed id %q is not a slug", d.id)
		}
		if !strings.HasSuffix(d.text, "\n") || strings.HasSuffix(d.text, "\n\n") {
			t.Errorf("%s does not end in exactly one newline", d.id)
		}
		if d.lines != countLines(d.text) {
			t.Errorf("%s: lines = %d, text has %d", d.id, d.lines, countLines(d.text))
		}
		if d.kind == kindText {
			for i, line := range strings.Split(d.text, "\n") {
				if strings.HasSuffix(line, " ") {
					t.Errorf("%s:%d has trailing space: %q", d.id, i+1, line)
				}
			}
		}
	}

	hb := findSeed(t, "handbook")
	if len(hb.text) < 250_000 {
		t.Errorf("handbook is %d bytes, want at least 250,000", len(hb.text))
	}
	for _, want := range []string{"ReportExporterHighLatency", "RB-", "INC-", "## 17. Checkout API (checkout-api)"} {
		if !strings.Contains(hb.text, want) {
			t.Errorf("handbook does not contain %q", want)
		}
	}
	if strings.Contains(hb.text, "{") {
		i := strings.Index(hb.text, "{")
		t.Errorf("handbook has an unexpanded placeholder: %q", hb.text[i:min(i+40, len(hb.text))])
	}
	if strings.Contains(hb.text, "INC-2291") {
		t.Error("handbook mentions INC-2291, which only the meeting notes should")
	}
}

func TestAccessLog(t *testing.T) {
	doc := findSeed(t, "access-log")
	parsed, err := parseTable(doc.text)
	if err != nil {
		t.Fatalf("access-log does not parse as csv: %v", err)
	}
	// splitTable (used for the seed) must agree with a real CSV parser.
	if !slices.Equal(parsed.columns, doc.table.columns) || !slices.EqualFunc(parsed.rows, doc.table.rows, slices.Equal) {
		t.Fatal("splitTable and parseTable disagree on the access log")
	}
	if !slices.Equal(doc.table.columns, accessLogColumns) || len(doc.table.rows) != accessLogRows {
		t.Fatalf("columns %v and %d rows, want %v and %d", doc.table.columns, len(doc.table.rows), accessLogColumns, accessLogRows)
	}
	col := func(name string) int { return doc.table.column(name) }
	ts, region, status := col("timestamp"), col("region"), col("status")
	first, last := doc.table.rows[0][ts], doc.table.rows[accessLogRows-1][ts]
	if !strings.HasPrefix(first, "2025-03-11T") || !strings.HasPrefix(last, "2025-03-13T") {
		t.Errorf("log runs from %s to %s, want 11 to 13 March 2025 as its title says", first, last)
	}
	if !strings.Contains(doc.title, "11-13 March 2025") {
		t.Errorf("title %q does not give the dates", doc.title)
	}
	statuses := map[string]int{}
	incident := 0
	for i, r := range doc.table.rows {
		if i > 0 && r[ts] < doc.table.rows[i-1][ts] {
			t.Fatalf("row %d: timestamp %s before %s", i+1, r[ts], doc.table.rows[i-1][ts])
		}
		statuses[r[status]]++
		if r[region] == "eu-west" && r[status] == "503" && r[ts] >= "2025-03-13T14:00" && r[ts] < "2025-03-13T16:30" {
			incident++
		}
	}
	if incident < 10 {
		t.Errorf("%d eu-west 503s during INC-2291, want the incident visible (at least 10)", incident)
	}
	for _, s := range []string{"200", "201", "204", "400", "401", "404", "429", "500", "502", "503", "504"} {
		if statuses[s] == 0 {
			t.Errorf("no rows with status %s", s)
		}
	}
}
