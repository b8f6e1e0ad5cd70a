package skills_test

import (
	"encoding/json"
	iofs "io/fs"
	"testing"

	"github.com/mcpfs/mcpfs/discovery"
	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/skills"
)

// baseTree is an mcpfs tree with one ready server, notes, whose tool
// search takes a query.
func baseTree() iofs.FS {
	raw, _ := json.Marshal(map[string]any{
		"name":        "search",
		"description": "Search the notes.",
		"inputSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{"query": map[string]any{"type": "string"}},
			"required":   []string{"query"},
		},
	})
	cat := &discovery.Catalog{Version: 1, Servers: []discovery.ServerSnapshot{{
		Name: "notes", Key: "notes", Transport: "stdio", State: discovery.StateReady,
		Tools: []discovery.Tool{{Name: "search", Raw: raw}},
	}}}
	return mcpfs.New(cat, mcpfs.Options{})
}

// skillFiles returns the files of a small valid skill; body is the Go
// source after the package clause.
func skillFiles(name, body string) map[string][]byte {
	return map[string][]byte{
		"SKILL.md":   []byte("---\nname: " + name + "\ndescription: Test skill " + name + ".\n---\n\nUse it.\n"),
		name + ".go": []byte("package " + name + "\n\n" + body),
	}
}

func openStore(t *testing.T, dir string) *skills.Store {
	t.Helper()
	s, err := skills.Open(dir, skills.Options{})
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return s
}
