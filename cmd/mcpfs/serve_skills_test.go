package main

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestServeSkills saves a skill through `mcpfs serve` (stdio) and uses it
// at once: imported by exec, and run as its own tool.
func TestServeSkills(t *testing.T) {
	config := writeConfig(t, false)
	tr := transport.NewStdio(mcpfsBin(t), serveEnv(t, config), "--data-dir", t.TempDir(), "serve")
	c := connect(t, tr)

	callTool := func(name string, args map[string]any) (bool, string) {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
		res, err := c.CallTool(context.Background(), req)
		if err != nil {
			t.Fatalf("call %s: %v", name, err)
		}
		var b strings.Builder
		for _, ct := range res.Content {
			if tc, ok := ct.(mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return res.IsError, b.String()
	}

	isErr, text := callTool("save_skill", map[string]any{"name": "count", "files": map[string]any{
		"SKILL.md": "---\nname: count\ndescription: Counts the documents of the docstore.\n---\n",
		"count.go": `package count

import "mcpfs/servers/docstore"

// Documents is the number of documents.
func Documents() (int, error) {
	list, err := docstore.ListDocuments(docstore.ListDocumentsArgs{})
	return len(list.Documents), err
}

// Run counts the documents.
func Run() (int, error) { return Documents() }
`,
	}})
	if isErr || !strings.Contains(text, "saved skill count version 1") || !strings.Contains(text, "skill_count") {
		t.Fatalf("save_skill: error %v:\n%s", isErr, text)
	}
	out := callExec(t, c, "package main\n\nimport (\n\t\"fmt\"\n\n\t\"mcpfs/skills/count\"\n)\n\nfunc main() { fmt.Println(count.Documents()) }\n")
	if !strings.HasPrefix(out, "5 <nil>\n") {
		t.Errorf("exec importing the saved skill: got\n%s\nwant 5 <nil>", out)
	}
	if isErr, text := callTool("skill_count", nil); isErr || text != "5\n" {
		t.Errorf("skill_count: error %v, got %q, want %q", isErr, text, "5\n")
	}
}
