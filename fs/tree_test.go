package fs_test

import (
	"encoding/json"
	"errors"
	iofs "io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcpfs/mcpfs/discovery"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

func testCatalog() *discovery.Catalog {
	tool := func(name, desc string) discovery.Tool {
		raw, _ := json.Marshal(map[string]any{
			"name":        name,
			"description": desc,
			"inputSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"path": map[string]any{"type": "string"}},
				"required":   []string{"path"},
			},
		})
		return discovery.Tool{Name: name, Raw: raw}
	}
	return &discovery.Catalog{Version: 3, Servers: []discovery.ServerSnapshot{
		{Name: "broken", Key: "Broken", Transport: "stdio", State: discovery.StateFailed, Err: `start: exec: "nosuch": executable file not found in $PATH`},
		{Name: "files", Key: "files", Transport: "stdio", State: discovery.StateReady, ServerName: "files", ServerVersion: "1.0",
			Tools: []discovery.Tool{tool("read_file", "Read a file."), tool("list_dir", "List a folder.")}},
	}}
}

func TestTreeFS(t *testing.T) {
	tree := mcpfs.New(testCatalog(), mcpfs.Options{})
	if err := fstest.TestFS(tree,
		"README.md", "go.mod",
		"servers/files/doc.go", "servers/files/read_file.go", "servers/files/list_dir.go",
		"servers/broken/doc.go"); err != nil {
		t.Fatal(err)
	}
}

func TestTreeLookups(t *testing.T) {
	tree := mcpfs.New(testCatalog(), mcpfs.Options{})
	tests := []struct {
		name    string
		path    string
		wantErr error
		want    string // substring of the file
	}{
		{"server doc", "servers/files/doc.go", nil, "package files"},
		{"tool", "servers/files/read_file.go", nil, "func ReadFile("},
		{"failed server doc says why", "servers/broken/doc.go", nil, "nosuch"},
		{"go.mod", "go.mod", nil, "module mcpfs"},
		{"missing server", "servers/nope/doc.go", iofs.ErrNotExist, ""},
		{"missing tool", "servers/files/nope.go", iofs.ErrNotExist, ""},
		{"folder", "servers", mcpfs.ErrIsDir, ""},
		{"through a file", "go.mod/x", mcpfs.ErrNotDir, ""},
		{"invalid path", "/servers", iofs.ErrInvalid, ""},
		{"dot-dot", "servers/../go.mod", iofs.ErrInvalid, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := tree.ReadFile(tt.path)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ReadFile(%q): got error %v, want %v", tt.path, err, tt.wantErr)
			}
			if tt.want != "" && !strings.Contains(string(data), tt.want) {
				t.Errorf("ReadFile(%q): got %q, want it to contain %q", tt.path, data, tt.want)
			}
		})
	}
}

func TestTreeServersListing(t *testing.T) {
	tree := mcpfs.New(testCatalog(), mcpfs.Options{})
	entries, err := tree.ReadDir("servers")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			t.Errorf("servers/%s: got a file, want a folder", e.Name())
		}
		names = append(names, e.Name())
	}
	if got, want := strings.Join(names, " "), "broken files"; got != want {
		t.Errorf("servers/: got %q, want %q", got, want)
	}
	if _, ok := tree.Server("files"); !ok {
		t.Errorf("Server(files): not found")
	}
	// A file's reported size equals the bytes served.
	info, err := tree.Stat("servers/files/read_file.go")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := tree.ReadFile("servers/files/read_file.go")
	if info.Size() != int64(len(data)) {
		t.Errorf("size: got %d, want %d", info.Size(), len(data))
	}
}

func TestTreeEmptyCatalog(t *testing.T) {
	tree := mcpfs.New(nil, mcpfs.Options{})
	if err := fstest.TestFS(tree, "README.md", "go.mod"); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkTreeLookup(b *testing.B) {
	tree := mcpfs.New(testCatalog(), mcpfs.Options{})
	for b.Loop() {
		if _, err := tree.Stat("servers/files/read_file.go"); err != nil {
			b.Fatal(err)
		}
	}
}
