package mcpserver

import (
	"context"
	"errors"
	iofs "io/fs"
	"strings"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/exec"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// treeEngine serves one fixed tree and runs nothing: enough for search.
type treeEngine struct{ tree iofs.FS }

func (e treeEngine) Tree() iofs.FS                 { return e.tree }
func (e treeEngine) WaitReady(ctx context.Context) {}
func (e treeEngine) Run(context.Context, string, []byte, time.Duration) (*exec.Result, error) {
	return nil, errors.New("no runs here")
}

// sourceFunc is a Source made of a function.
type sourceFunc func(ctx context.Context, tree iofs.FS) ([]Entry, error)

func (f sourceFunc) Entries(ctx context.Context, tree iofs.FS) ([]Entry, error) { return f(ctx, tree) }

func searchTree() *mcpfs.Tree {
	tool := func(name, desc, props string) discovery.Tool {
		return discovery.Tool{Name: name, Raw: []byte(`{"name":"` + name + `","description":"` + desc + `","inputSchema":{"type":"object","properties":{` + props + `}}}`)}
	}
	cat := &discovery.Catalog{Version: 1, Servers: []discovery.ServerSnapshot{
		{Name: "fs", Key: "filesystem", State: discovery.StateReady, Tools: []discovery.Tool{
			tool("read_text_file", "Read the complete contents of a file as text. Handles encodings.", `"path":{"type":"string"}`),
			tool("write_file", "Create a new file or overwrite an existing file with new content.", `"path":{"type":"string"},"content":{"type":"string"}`),
			tool("create_directory", "Create a new directory or ensure a directory exists.", `"path":{"type":"string"}`),
			tool("list_directory", "Get a listing of all files and directories in a path.", `"path":{"type":"string"}`),
		}},
		{Name: "memory", State: discovery.StateReady, Tools: []discovery.Tool{
			tool("create_entities", "Create multiple new entities in the knowledge graph.", `"entities":{"type":"array"}`),
			tool("read_graph", "Read the entire knowledge graph.", ``),
		}},
	}}
	skill := mcpfs.Skill{Name: "csvstats", Description: "Summarise a CSV column: count, min, max.", Files: map[string][]byte{
		"SKILL.md": []byte("---\nname: csvstats\ndescription: \"Summarise a CSV column: count, min, max.\"\n---\n# csvstats\n"),
		"stats.go": []byte("package csvstats\n\n// Column summarises one column.\nfunc Column(rows []map[string]string, name string) string {\n\treturn \"\"\n}\n\nfunc helper() {}\n"),
	}}
	return mcpfs.New(cat, mcpfs.Options{Skills: []mcpfs.Skill{skill}})
}

// TestSearchRanking ranks the tools of a tree, a skill, and an entry of
// a source, for queries worded as needs.
func TestSearchRanking(t *testing.T) {
	src := sourceFunc(func(context.Context, iofs.FS) ([]Entry, error) {
		return []Entry{{Kind: "tool", Name: "extra.SendInvoice", Path: "servers/extra/send_invoice.go", Summary: "Email an invoice to a customer.", Signature: "func SendInvoice()\n", Text: "billing"}}, nil
	})
	s := &Server{engine: treeEngine{searchTree()}, opts: Options{Sources: []Source{src}}.withDefaults()}
	s.log = s.opts.Logger
	x := s.index(context.Background())
	if x.Len() != 8 {
		t.Fatalf("indexed %d, want 6 tools, 1 skill and 1 entry of a source", x.Len())
	}
	if s.index(context.Background()) != x {
		t.Errorf("the index of an unchanged tree was built again")
	}
	tests := []struct {
		query string
		first string
	}{
		{"save text to a file", "fs.WriteFile"},
		{"make a new folder", "fs.CreateDirectory"},
		{"show what is in a folder", "fs.ListDirectory"},
		{"add entities to the knowledge graph", "memory.CreateEntities"},
		{"whole graph", "memory.ReadGraph"},
		{"csv column summary", "mcpfs/skills/csvstats"},
		{"bill a customer", "extra.SendInvoice"},
		{"create_entities", "memory.CreateEntities"},
	}
	for _, tt := range tests {
		hits := x.Search(tt.query, 0)
		if len(hits) == 0 || hits[0].Doc.Name != tt.first {
			var got []string
			for _, h := range hits {
				got = append(got, h.Doc.Name)
			}
			t.Errorf("search %q: got %q, want %s first", tt.query, got, tt.first)
		}
	}

	out := x.render("csv", x.Search("csv", 0), DetailSignature, 1)
	if !strings.Contains(out, "// mcpfs/skills/csvstats (skills/csvstats/SKILL.md)\nimport \"mcpfs/skills/csvstats\"") ||
		!strings.Contains(out, "func Column(rows []map[string]string, name string) string") || strings.Contains(out, "helper") {
		t.Errorf("skill signature: got %q", out)
	}
	out = x.render("read file", x.Search("read file", 0), DetailSignature, 1)
	if !strings.Contains(out, "// fs.ReadTextFile (servers/fs/read_text_file.go)\n// ReadTextFile calls") || !strings.Contains(out, "type ReadTextFileArgs struct") || strings.Contains(out, "mcp.Call") {
		t.Errorf("tool signature: got %q", out)
	}
	out = x.render("invoice", x.Search("invoice", 0), DetailSignature, 1)
	if !strings.Contains(out, "func SendInvoice()\n") {
		t.Errorf("a source's signature: got %q", out)
	}
	out = x.render("folder", x.Search("folder", 0), DetailSummary, 1)
	if !strings.HasPrefix(out, "fs.CreateDirectory — Create a new directory or ensure a directory exists. (servers/fs/create_directory.go)\n") {
		t.Errorf("summary: got %q", out)
	}
	if out := x.render("zebra", x.Search("zebra", 0), DetailSummary, 10); !strings.Contains(out, `Nothing matches "zebra" among 8 tools and skills`) {
		t.Errorf("no match: got %q", out)
	}
}

func TestRenderHitsBounded(t *testing.T) {
	src := sourceFunc(func(context.Context, iofs.FS) ([]Entry, error) {
		var out []Entry
		for i := 0; i < 20; i++ {
			out = append(out, Entry{Kind: "tool", Name: "s.F" + string(rune('a'+i)), Path: "servers/s/f.go", Summary: "does f", Signature: strings.Repeat("x", 10<<10)})
		}
		return out, nil
	})
	s := &Server{engine: treeEngine{mcpfs.New(nil, mcpfs.Options{})}, opts: Options{Sources: []Source{src}}.withDefaults()}
	s.log = s.opts.Logger
	x := s.index(context.Background())
	hits := x.Search("does f", 0)
	out := x.render("q", hits, DetailSignature, 10)
	if len(out) > maxSearchOutput+11<<10 || !strings.Contains(out, "matches shown") {
		t.Errorf("signature output of %d bytes, want at most about %d and a note of what was left out", len(out), maxSearchOutput)
	}
	out = x.render("q", hits, DetailNames, 3)
	if strings.Count(out, "\n") != 4 || !strings.Contains(out, "[3 of 20 matches shown") {
		t.Errorf("names output: got %q", out)
	}
}
