package search

import (
	"go/build"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/discovery"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"ReadDocument", []string{"read", "document", "readdocument"}},
		{"read_text_file", []string{"read", "text", "file"}},
		{"create-entities", []string{"create", "entities"}},
		{"HTTPServer JSON", []string{"http", "server", "httpserver", "json"}},
		{"GitHub's repo", []string{"git", "hub", "github", "s", "repo"}},
		{"utf8 Base64Encode", []string{"utf8", "base64", "encode", "base64encode"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := words(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("words(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStem(t *testing.T) {
	// Each group meets at one stem; the groups stay apart.
	groups := [][]string{
		{"create", "creates", "created", "creating", "creation"},
		{"navigate", "navigates", "navigated", "navigation"},
		{"entity", "entities"},
		{"directory", "directories"},
		{"file", "files", "filed"},
		{"run", "runs", "running"},
		{"add", "adds", "added"},
		{"match", "matches", "matched"},
		{"size", "sizes"},
		{"recursive", "recursively"},
		{"news"},
		{"new"},
		{"status"},
		{"reply", "replies"},
		{"compress", "compression"},
		{"memorize", "memorise", "memorised", "memorized"},
		{"summarize", "summarise", "summarising"},
		{"analyze", "analyse", "analysed"},
	}
	stems := map[string]string{}
	for _, g := range groups {
		want := stem(g[0])
		for _, w := range g {
			if got := stem(w); got != want {
				t.Errorf("stem(%q) = %q, want %q (as %q)", w, got, want, g[0])
			}
		}
		if other, ok := stems[want]; ok {
			t.Errorf("%q and %q share the stem %q", g[0], other, want)
		}
		stems[want] = g[0]
	}
}

func TestTerms(t *testing.T) {
	got := terms("Save the Files to a new folder")
	want := []string{"sav", "fil", "new", "folder"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("terms: got %q, want %q", got, want)
	}
}

// testTree is a catalog of two servers and a tree with a skill.
func testTree() *mcpfs.Tree {
	cat := &discovery.Catalog{Version: 1, Servers: []discovery.ServerSnapshot{
		{Name: "files", Key: "files", State: discovery.StateReady, Tools: []discovery.Tool{
			{Name: "write_file", Raw: []byte(`{"name":"write_file","description":"Create a new file or overwrite an existing one with new content.","inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"Where to write."},"content":{"type":"string"}}}}`)},
			{Name: "create_directory", Raw: []byte(`{"name":"create_directory","description":"Create a new directory. Can create nested directories.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}`)},
			{Name: "read_file", Raw: []byte(`{"name":"read_file","description":"Read a file. DEPRECATED: use read_text_file.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}`)},
			{Name: "read_text_file", Raw: []byte(`{"name":"read_text_file","description":"Read a file as text.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}`)},
		}},
		{Name: "web", Key: "Web Browser", State: discovery.StateReady, Tools: []discovery.Tool{
			{Name: "browser_navigate", Raw: []byte(`{"name":"browser_navigate","description":"Navigate to a URL","inputSchema":{"type":"object","properties":{"url":{"type":"string"}}}}`)},
			{Name: "browser_click", Raw: []byte(`{"name":"browser_click","description":"Perform click on a web page","inputSchema":{"type":"object","properties":{"element":{"type":"string"},"button":{"type":"string","enum":["left","right","middle"]}}}}`)},
			{Name: "browser_tabs", Raw: []byte(`{"name":"browser_tabs","description":"List, create, close, or select a browser tab.","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["list","new","close","select"]}}}}`)},
			{Name: "bad", Raw: []byte(`not json`)},
		}},
	}}
	skill := mcpfs.Skill{
		Name:        "csvstats",
		Description: "Summarise a CSV column: count, min, max. Works on any table.",
		Files: map[string][]byte{
			"SKILL.md": []byte("---\nname: csvstats\ndescription: Summarise a CSV column\n---\nUse Column on rows a tool returned.\n"),
			"stats.go": []byte("package csvstats\n\n// Column summarises one column of spreadsheet rows.\nfunc Column(rows []map[string]string, name string) string { return \"\" }\n\nfunc helper() {}\n"),
		},
		Saved: time.Unix(0, 0),
	}
	return mcpfs.New(cat, mcpfs.Options{Skills: []mcpfs.Skill{skill}})
}

func TestToolDocsMatchTheTree(t *testing.T) {
	tree := testTree()
	docs := ToolDocs(tree.Catalog())
	if len(docs) != 8 {
		t.Fatalf("got %d tool docs, want 8", len(docs))
	}
	for _, d := range docs {
		src, err := tree.ReadFile(d.Path)
		if err != nil {
			t.Errorf("%s: %v", d.Name, err)
			continue
		}
		fn := d.Name[strings.Index(d.Name, ".")+1:]
		if !strings.Contains(string(src), "\nfunc "+fn+"(") {
			t.Errorf("%s does not declare func %s", d.Path, fn)
		}
	}
	nav := docs[4]
	if nav.Name != "web.BrowserNavigate" || nav.Path != "servers/web/browser_navigate.go" || nav.Summary != "Navigate to a URL" ||
		!reflect.DeepEqual(nav.Args, []string{"url"}) || !strings.Contains(nav.ServerWords, "Web Browser") {
		t.Errorf("navigate doc: got %+v", nav)
	}
	if tabs := docs[6]; !reflect.DeepEqual(tabs.Args, []string{"action", "list", "new", "close", "select"}) {
		t.Errorf("tabs args: got %q, want the property and its enum values", tabs.Args)
	}
	if !docs[2].Deprecated || docs[3].Deprecated {
		t.Errorf("deprecated: read_file %v, read_text_file %v", docs[2].Deprecated, docs[3].Deprecated)
	}
}

func TestSearch(t *testing.T) {
	x := FromTree(testTree())
	if x.Len() != 9 {
		t.Fatalf("indexed %d documents, want 8 tools and 1 skill", x.Len())
	}
	tests := []struct {
		query string
		first string
	}{
		{"make a new folder", "files.CreateDirectory"},
		{"make-a-new_folder+please", "files.CreateDirectory"}, // a file name in search/
		{"save text to a file", "files.WriteFile"},
		{"open a web page", "web.BrowserNavigate"},
		{"go to example.com", "web.BrowserNavigate"},
		{"switch to another tab", "web.BrowserTabs"},
		{"read a file", "files.ReadTextFile"}, // read_file is deprecated
		{"right click the button", "web.BrowserClick"},
		{"summary of a spreadsheet column", "mcpfs/skills/csvstats"},
		{"create_directory", "files.CreateDirectory"},
		{"CreateDirectory", "files.CreateDirectory"},
	}
	for _, tt := range tests {
		hits := x.Search(tt.query, 3)
		if len(hits) == 0 || hits[0].Doc.Name != tt.first {
			var got []string
			for _, h := range hits {
				got = append(got, h.Doc.Name)
			}
			t.Errorf("Search(%q): got %q, want %s first", tt.query, got, tt.first)
		}
	}
	if hits := x.Search("zebra", 0); len(hits) != 0 {
		t.Errorf("Search(zebra): got %d hits, want none", len(hits))
	}
	if hits := x.Search("the of a", 0); len(hits) != 9 || hits[0].Doc.Name != "files.CreateDirectory" {
		t.Errorf("a query of stop words: got %d hits, want all 9 by name", len(hits))
	}
	if hits := x.Search("file", 2); len(hits) != 2 {
		t.Errorf("Search(file, 2): got %d hits, want 2", len(hits))
	}
	skill := x.Search("csv", 1)[0].Doc
	if skill.Kind != KindSkill || skill.Path != "skills/csvstats/SKILL.md" || skill.Summary != "Summarise a CSV column: count, min, max." ||
		!strings.Contains(skill.Text, "Column") || strings.Contains(skill.Text, "helper") {
		t.Errorf("skill doc: got %+v", skill)
	}
}

func TestNameTerms(t *testing.T) {
	docs := []Doc{
		{Kind: KindTool, Server: "b", Tool: "browser_click"},
		{Kind: KindTool, Server: "b", Tool: "browser_navigate_back"},
		{Kind: KindTool, Server: "b", Tool: "browser"},
		{Kind: KindTool, Server: "g", Tool: "getUserProfile"},
		{Kind: KindSkill, Tool: "csvstats"},
	}
	got, _ := nameTerms(docs)
	want := [][]string{{"click"}, {"navigat", "back"}, {"browser"}, {"get", "user", "profil"}, {"csvstat"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("nameTerms: got %q, want %q", got, want)
	}
}

func TestFormat(t *testing.T) {
	x := FromTree(testTree())
	got := Format("make a folder", x.Search("make a folder", 1), x.Len())
	want := "files.CreateDirectory — Create a new directory. (servers/files/create_directory.go)\n"
	if got != want {
		t.Errorf("Format: got %q, want %q", got, want)
	}
	if got := Format("zebra", nil, 9); !strings.Contains(got, `Nothing matches "zebra" among 9 tools and skills`) {
		t.Errorf("Format of no hits: got %q", got)
	}
	if got := Format("zebra", nil, 0); !strings.Contains(got, "No tools yet") {
		t.Errorf("Format of an empty index: got %q", got)
	}
}

// TestImports keeps the package kernel-free and light: the catalog and
// tree types and the standard library, nothing that touches the network,
// processes or files.
func TestImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{
		"github.com/mcpfs/mcpfs/discovery/catalog": true,
		"github.com/mcpfs/mcpfs/discovery/naming":  true,
		"github.com/mcpfs/mcpfs/fs":                true,
	}
	denied := map[string]bool{"os": true, "os/exec": true, "net": true, "net/http": true, "syscall": true, "io/ioutil": true}
	for _, imp := range pkg.Imports {
		std := !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".")
		if (std && denied[imp]) || (!std && !allowed[imp]) {
			t.Errorf("package search imports %s", imp)
		}
	}
}

func TestIndexer(t *testing.T) {
	var c Indexer
	t1 := testTree()
	x := c.Index(t1)
	if c.Index(t1) != x {
		t.Errorf("the index of the same tree was built again")
	}
	t2 := t1.WithSkills(nil)
	if y := c.Index(t2); y == x || y.Len() != 8 {
		t.Errorf("a new tree: got the old index or %d documents, want a new one of 8", y.Len())
	}
	got := c.Search(t2, "make a folder", 1)
	if got != "files.CreateDirectory — Create a new directory. (servers/files/create_directory.go)\n" {
		t.Errorf("Search: got %q", got)
	}
}

func TestClassWords(t *testing.T) {
	tests := []struct{ query, want string }{
		{"which street is at 40.7,-74.0", "coordinates"},
		{"post to #general", "channel"},
		{"what did @dana say", "user"},
		{"go to example.com", "url"},
		{"open https://go.dev/doc", "url"},
		{"add 3 and 4", "numbers sum calculate"},
		{"look at photo.png", "file image"},
		{"read notes.md", "file"},
		{"version 1.2 of the api", ""},
		{"save this text", ""},
	}
	for _, tt := range tests {
		if got := classWords(tt.query); got != tt.want {
			t.Errorf("classWords(%q): got %q, want %q", tt.query, got, tt.want)
		}
	}
}

func TestPairs(t *testing.T) {
	// Two tools alike but for the order of their words: the one with the
	// query's words side by side ranks first.
	x := New([]Doc{
		{Kind: KindTool, Name: "a.One", Server: "a", Tool: "one", Description: "Get the messages of the console and a status"},
		{Kind: KindTool, Name: "a.Two", Server: "a", Tool: "two", Description: "Get the console messages and a status"},
	})
	if hits := x.Search("console messages", 2); len(hits) != 2 || hits[0].Doc.Tool != "two" {
		t.Errorf("console messages: got %v, want two first", hits)
	}
}

func TestPrefixFallback(t *testing.T) {
	// A word nothing knows in any form meets the terms it begins like.
	x := New([]Doc{
		{Kind: KindTool, Name: "a.Memory", Server: "a", Tool: "read_memory", Description: "Read the whole memory"},
		{Kind: KindTool, Name: "a.Page", Server: "a", Tool: "read_page", Description: "Read a page"},
	})
	if hits := x.Search("memorabilia", 2); len(hits) != 1 || hits[0].Doc.Tool != "read_memory" {
		t.Errorf("memorabilia: got %v, want read_memory alone", hits)
	}
	if hits := x.Search("pages", 2); len(hits) != 1 || hits[0].Doc.Tool != "read_page" {
		t.Errorf("pages: got %v, want read_page alone", hits)
	}
	if hits := x.Search("mem", 2); len(hits) != 0 {
		t.Errorf("mem: got %v, want nothing: too short to stand for a prefix", hits)
	}
}

// A query that names no action does not want a tool that deletes first:
// "Grace mentors Heidi" records a relation, it does not remove one.
func TestDeleteNotUnasked(t *testing.T) {
	docs := []Doc{
		{Kind: KindTool, Name: "kg.CreateRelations", Server: "kg", Tool: "create_relations", Summary: "Relations between entities in the graph."},
		{Kind: KindTool, Name: "kg.DeleteRelations", Server: "kg", Tool: "delete_relations", Summary: "Relations between entities in the graph: relations."},
		{Kind: KindTool, Name: "kg.ReadGraph", Server: "kg", Tool: "read_graph", Summary: "Read the entire knowledge graph."},
	}
	for _, tt := range []struct {
		query, want string
	}{
		{"Grace mentors Heidi, a relation in the graph", "kg.CreateRelations"},
		{"remove the relation between Grace and Heidi", "kg.DeleteRelations"},
		{"Grace no longer mentors Heidi, delete that relation", "kg.DeleteRelations"},
	} {
		p := noAssoc
		if got := newIndex(docs, p).Search(tt.query, 1); len(got) == 0 || got[0].Doc.Name != tt.want {
			t.Errorf("%q: got %v first, want %s", tt.query, got, tt.want)
		}
	}
	// The two descriptions differ only in that delete_relations says
	// "relations" once more: without the penalty it comes first, so the
	// test would catch the penalty's loss.
	p := noAssoc
	p.delPenalty = 0
	if got := newIndex(docs, p).Search("Grace mentors Heidi, a relation in the graph", 1); len(got) == 0 || got[0].Doc.Name != "kg.DeleteRelations" {
		t.Errorf("without the penalty %v comes first, want kg.DeleteRelations: the catalog no longer tells the penalty apart", got)
	}
}
