package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpfs/mcpfs/testenv"
)

// TestQuickDocstore runs the quick suite on the built-in docstore alone
// and checks the report: its sections, and savings computed from real
// token counts.
func TestQuickDocstore(t *testing.T) {
	testenv.Integration(t)
	out := t.TempDir()
	r, err := runBench(t.Context(), options{out: out, quick: true, npm: false, serve: true, command: "go test ./cmd/mcpfs-bench"})
	if err != nil {
		t.Fatalf("runBench: %v", err)
	}
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# mcpfs benchmark report", "| tokenizer | o200k_base", "## Tokens", "![Tokens per workload", "### How tokens are counted",
		"### Discovery", "### Chaining", "### Workflow", "### Serve", "tools/list of mcpfs serve", "## Speed", "## go test benchmarks",
		"Tool call", "Snippet run", "exec round trip", "Memory",
	} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	svg, err := os.ReadFile(filepath.Join(out, "tokens.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(svg), "<svg") || !strings.Contains(string(svg), "Chaining") {
		t.Errorf("tokens.svg is not the chart: %.200s", svg)
	}

	for _, tc := range []struct {
		name      string
		minDirect int     // the direct way must carry the data through the context
		minSaving float64 // and mcpfs must avoid most of it
		maxMCPFS  int
	}{
		{"filter 10,000 rows", 300_000, 0.99, 5_000},
		{"move a document: docstore", 100_000, 0.95, 5_000},
		{"discover 1 tool: 100 servers", 500_000, 0.99, 20_000},
	} {
		c := r.caseNamed(tc.name)
		if c == nil {
			t.Errorf("no case %q in %d cases", tc.name, len(r.Cases))
			continue
		}
		direct, mcpfs := 0, 0
		for _, p := range c.Direct.Parts {
			if p.Tokens <= 0 && p.Bytes > 0 {
				t.Errorf("%s: direct part %q has %d bytes and %d tokens", tc.name, p.What, p.Bytes, p.Tokens)
			}
			direct += p.Tokens
		}
		for _, p := range c.MCPFS.Parts {
			mcpfs += p.Tokens
		}
		if direct < tc.minDirect {
			t.Errorf("%s: direct way %d tokens, want ≥ %d", tc.name, direct, tc.minDirect)
		}
		if mcpfs <= 0 || mcpfs > tc.maxMCPFS {
			t.Errorf("%s: mcpfs way %d tokens, want 1..%d", tc.name, mcpfs, tc.maxMCPFS)
		}
		saving := 1 - float64(mcpfs)/float64(direct)
		if saving < tc.minSaving || c.Saving() != saving {
			t.Errorf("%s: saving %v (Saving() %v), want ≥ %v", tc.name, saving, c.Saving(), tc.minSaving)
		}
		row := fmt.Sprintf("| %s | %s | %s | %s |", c.Name, thousands(direct), thousands(mcpfs), percent(c.Ratio()))
		if !strings.Contains(string(report), row) {
			t.Errorf("report.md lacks the row %q", row)
		}
	}
	// Serve: its tools/list replaces the servers' definitions and is
	// smaller than them, counted from the bytes it sent.
	if c := r.caseNamed("tool definitions: serve"); c == nil {
		t.Error("no serve case")
	} else if d, m := c.Direct.Tokens(), c.MCPFS.Tokens(); m <= 0 || m >= d {
		t.Errorf("serve definitions: %d tokens vs the docstore's %d; want fewer, more than 0", m, d)
	}
	if c := r.caseNamed("filter 10,000 rows"); c != nil && !strings.Contains(c.Output, "10000 rows") {
		t.Errorf("filter output %q does not say it saw 10000 rows", c.Output)
	}
	// Every chaining case and the discovery also went through serve, with
	// the mount case's direct side and more than serve's definitions.
	defs := r.caseNamed("tool definitions: serve")
	for _, name := range []string{"discover 1 tool: docstore", "move a document: docstore → docstore", "filter 10,000 rows → 5"} {
		mount, serve := r.caseNamed(name), r.caseNamed(name+", via serve")
		if mount == nil || serve == nil || defs == nil {
			t.Errorf("%s: mount case %v, serve case %v", name, mount != nil, serve != nil)
			continue
		}
		if serve.Of != mount || serve.Direct.Tokens() != mount.Direct.Tokens() || serve.MCPFS.Tokens() <= defs.MCPFS.Tokens() {
			t.Errorf("%s via serve: direct %d (mount %d), serve side %d (definitions %d)", name, serve.Direct.Tokens(), mount.Direct.Tokens(), serve.MCPFS.Tokens(), defs.MCPFS.Tokens())
		}
	}
}

// TestPeersTable checks the side-by-side table: one row per task, the
// mount, serve and peer figures in their columns.
func TestPeersTable(t *testing.T) {
	cnt, _ := newCounter()
	l := func(text string) ledger {
		x := ledger{c: cnt}
		x.add("t", text)
		return x
	}
	mount := &tokenCase{Workload: "Chaining", Name: "move it", Direct: l(strings.Repeat("word ", 1000)), MCPFS: l("one two three")}
	serve := &tokenCase{Workload: "Serve", Name: "move it, via serve", Of: mount, Direct: mount.Direct, MCPFS: l("one two three four")}
	peer := &tokenCase{Workload: "Peers", Name: "move it, Peer 1.0", Way: "Peer 1.0", Of: mount, Direct: mount.Direct, MCPFS: l("one")}
	r := &results{Cases: []*tokenCase{mount, serve, peer}}
	var b strings.Builder
	r.peersTable(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) })
	want := fmt.Sprintf("| move it | %s | %s (%s) | %s (%s) | %s (%s) |\n", thousands(mount.Direct.Tokens()),
		thousands(mount.MCPFS.Tokens()), percent(mount.Saving()), thousands(serve.MCPFS.Tokens()), percent(serve.Saving()),
		thousands(peer.MCPFS.Tokens()), percent(peer.Saving()))
	if !strings.Contains(b.String(), "| task | direct | mcpfs mount | mcpfs serve | Peer 1.0 |") || !strings.Contains(b.String(), want) {
		t.Errorf("table lacks the header or %q:\n%s", want, b.String())
	}
	if md := r.markdown(); strings.Contains(md, "| Peers | move it, Peer 1.0") || !strings.Contains(md, "| **Peer 1.0** |") {
		t.Error("a peer's case is in the mcpfs table, or its details lack its name")
	}
}

func TestResultText(t *testing.T) {
	for _, tc := range []struct{ name, raw, want string }{
		{"text blocks", `{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`, "a\nb"},
		{"structured counted once", `{"content":[{"type":"text","text":"{\"x\":1}"}],"structuredContent":{"x":1}}`, `{"x":1}`},
		{"structured only", `{"content":[],"structuredContent":{"x":1}}`, `{"x":1}`},
		{"image block as JSON", `{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}`, `{"type":"image","data":"AA==","mimeType":"image/png"}`},
		{"not JSON", `oops`, `oops`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := resultText(json.RawMessage(tc.raw)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseGoBench(t *testing.T) {
	out := `goos: linux
BenchmarkRun/warm-2         	     100	   4012345 ns/op	         3.9 p50-ms	         5.1 p99-ms
BenchmarkStat/mount-2       	  300000	      4100 ns/op
--- SKIP: BenchmarkMountReady
    bench_test.go:93: skipping: not root
PASS
`
	res, skipped := parseGoBench("./x", []byte(out))
	want := []goBenchResult{
		{Pkg: "./x", Name: "BenchmarkRun/warm-2", N: "100", Metrics: []string{"4012345 ns/op", "3.9 p50-ms", "5.1 p99-ms"}},
		{Pkg: "./x", Name: "BenchmarkStat/mount-2", N: "300000", Metrics: []string{"4100 ns/op"}},
	}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("got %+v, want %+v", res, want)
	}
	if len(skipped) != 1 || skipped[0] != "BenchmarkMountReady: skipping: not root" {
		t.Errorf("skipped %q", skipped)
	}
}

// TestSynthCatalog checks the synthetic catalog is deterministic, sized as
// asked, and keeps the templates' schemas.
func TestSynthCatalog(t *testing.T) {
	tmpl := []json.RawMessage{
		json.RawMessage(`{"name":"a","description":"Does a.","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`),
		json.RawMessage(`{"name":"b","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`),
	}
	c1, t1, err := synthCatalog(tmpl, 30, 20)
	if err != nil {
		t.Fatal(err)
	}
	c2, t2, _ := synthCatalog(tmpl, 30, 20)
	if !reflect.DeepEqual(c1, c2) || t1 != t2 {
		t.Fatal("two builds with the same seed differ")
	}
	if len(c1.Servers) != 30 {
		t.Fatalf("got %d servers, want 30", len(c1.Servers))
	}
	found := false
	for _, s := range c1.Servers {
		if len(s.Tools) != 20 {
			t.Fatalf("server %s has %d tools, want 20", s.Name, len(s.Tools))
		}
		seen := map[string]bool{}
		for _, tool := range s.Tools {
			if seen[tool.Name] {
				t.Errorf("server %s lists %s twice", s.Name, tool.Name)
			}
			seen[tool.Name] = true
			var v struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			if err := json.Unmarshal(tool.Raw, &v); err != nil || v.Name != tool.Name || len(v.InputSchema) == 0 {
				t.Errorf("tool %s/%s: raw %s (%v)", s.Name, tool.Name, tool.Raw, err)
			}
			found = found || (s.Name == t1.Server && tool.Name == t1.Tool)
		}
	}
	if !found {
		t.Errorf("target %+v is not in the catalog", t1)
	}
}

func TestGoBenchTable(t *testing.T) {
	m := meta{Machine: "Linux 6.18 x86_64", CPU: "Some CPU", Cores: 2, GoVersion: "go1.26.8 linux/amd64", Date: "2026-11-26 03:00 UTC", Commit: "abc1234"}
	secs := []goBenchSection{
		{Pkg: "./fs", What: "tree | look-ups", Results: []goBenchResult{{Name: "BenchmarkTreeLookup-2", N: "100", Metrics: []string{"178 ns/op"}}}},
		{Pkg: "./fs/fuse", What: "FUSE", Skipped: []string{"BenchmarkStat: not root"}},
		{Pkg: "./exec", Pattern: "Run", What: "runs", Err: "exit status 1: build failed"},
	}
	got := goBenchTable(m, secs)
	for _, want := range []string{
		"Machine: Linux 6.18 x86_64, Some CPU, `nproc` 2; go1.26.8 linux/amd64. Date: 2026-11-26 03:00 UTC. Commit: abc1234.",
		"| ./fs | TreeLookup-2 | tree \\| look-ups | 100 | 178 ns/op |",
		"| ./fs/fuse |  | FUSE |  | skipped: BenchmarkStat: not root |",
		"| ./exec | `Run` | runs |  | failed: exit status 1: build failed |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
}

func TestReplaceMarked(t *testing.T) {
	for _, tc := range []struct{ name, in, want, wantErr string }{
		{"between", "a\n<S>\nold\n<E>\nb\n", "a\n<S>\n\nnew\n\n<E>\nb\n", ""},
		{"again", "<S>\n\nnew\n\n<E>", "<S>\n\nnew\n\n<E>", ""},
		{"no markers", "a\n", "a\n", "markers"},
		{"end first", "<E><S>", "<E><S>", "markers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "b.md")
			os.WriteFile(f, []byte(tc.in), 0o644)
			err := replaceMarked(f, "<S>", "<E>", "new\n")
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("got error %v, want %q", err, tc.wantErr)
			}
			if got, _ := os.ReadFile(f); string(got) != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLineLog(t *testing.T) {
	var l lineLog
	for _, p := range []string{`{"a":`, "1}\n{\"b\"", ":2}\n", "tail"} {
		l.Write([]byte(p))
	}
	if got, want := l.lines(), []string{`{"a":1}`, `{"b":2}`}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
