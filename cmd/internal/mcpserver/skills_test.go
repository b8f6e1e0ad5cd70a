package mcpserver

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpfs/mcpfs/skills"
)

const greetMD = "---\nname: greet\ndescription: Greets a person by name.\n---\n\ngreet.Hello(name) returns the greeting.\n"

// greetFiles is the skill greet with Hello returning prefix + name.
func greetFiles(body string) map[string]any {
	return map[string]any{
		"SKILL.md": greetMD,
		"greet.go": "package greet\n\n// Hello greets name.\nfunc Hello(name string) string {\n\treturn " + body + "\n}\n",
	}
}

const useGreet = `package main

import (
	"fmt"

	"mcpfs/skills/greet"
)

func main() { fmt.Println(greet.Hello("world")) }
`

// shoutFiles is a skill with a Run entry point that imports greet and
// calls a docstore tool.
var shoutFiles = map[string]any{
	"SKILL.md": "---\nname: shout\ndescription: Greets loudly and counts the documents.\n---\n",
	"shout.go": `package shout

import (
	"fmt"
	"strings"

	"mcpfs/servers/docstore"
	"mcpfs/skills/greet"
)

// Args are Run's arguments.
type Args struct {
	// Name is who to greet.
	Name string ` + "`json:\"name\"`" + `
}

// Result is what Run returns.
type Result struct {
	Greeting  string ` + "`json:\"greeting\"`" + `
	Documents int    ` + "`json:\"documents\"`" + `
}

// Run greets Name loudly.
func Run(args Args) (Result, error) {
	if args.Name == "" {
		return Result{}, fmt.Errorf("name is empty")
	}
	fmt.Println("greeting", args.Name)
	list, err := docstore.ListDocuments(docstore.ListDocumentsArgs{})
	if err != nil {
		return Result{}, err
	}
	return Result{Greeting: strings.ToUpper(greet.Hello(args.Name)), Documents: len(list.Documents)}, nil
}
`,
}

// newSkillsServer is a server with a skill store in a temp dir, and a
// client that counts tools/list_changed notifications.
func newSkillsServer(t *testing.T) (*skills.Store, *client.Client, *atomic.Int64) {
	t.Helper()
	st, err := skills.Open(t.TempDir(), skills.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, c := newTestServer(t, Options{Skills: st})
	var changed atomic.Int64
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == mcp.MethodNotificationToolsListChanged {
			changed.Add(1)
		}
	})
	return st, c, &changed
}

func listTools(t *testing.T, c *client.Client) map[string]mcp.Tool {
	t.Helper()
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]mcp.Tool{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out
}

func mustMatch(t *testing.T, what, text string, res *mcp.CallToolResult, isError bool, patterns ...string) {
	t.Helper()
	if res.IsError != isError {
		t.Errorf("%s: isError %v, want %v; text:\n%s", what, res.IsError, isError, text)
	}
	for _, p := range patterns {
		if !regexp.MustCompile(p).MatchString(text) {
			t.Errorf("%s: text does not match %q:\n%s", what, p, text)
		}
	}
}

func TestSaveSkill(t *testing.T) {
	st, c, _ := newSkillsServer(t)
	if _, ok := listTools(t, c)[ToolSaveSkill]; !ok {
		t.Fatalf("tools/list lacks %s", ToolSaveSkill)
	}

	res, text := call(t, c, ToolSaveSkill, map[string]any{"name": "greet", "files": greetFiles(`"hello, " + name`), "note": "first"})
	mustMatch(t, "save v1", text, res, false, `^saved skill greet version 1 \(import "mcpfs/skills/greet"\)\n$`)
	res, text = call(t, c, ToolExec, map[string]any{"code": useGreet})
	mustMatch(t, "exec v1", text, res, false, `(?m)^hello, world$`)
	if log, err := st.Log("greet"); err != nil || len(log) != 1 || log[0].Note != "mcp save_skill: first" {
		t.Errorf("history: got %+v, %v; want one version noted %q", log, err, "mcp save_skill: first")
	}

	res, text = call(t, c, ToolSaveSkill, map[string]any{"name": "greet", "files": greetFiles(`"hello, " + name`)})
	mustMatch(t, "save unchanged", text, res, false, `^skill greet is unchanged \(version 1\)`)

	// An invalid version is refused with positions; version 1 stays.
	res, text = call(t, c, ToolSaveSkill, map[string]any{"name": "greet", "files": greetFiles(`42`)})
	mustMatch(t, "save invalid", text, res, true,
		`(?m)^skills/greet/greet\.go:5:9: cannot use 42`, `version 1 is still the one snippets import`)
	res, text = call(t, c, ToolExec, map[string]any{"code": useGreet})
	mustMatch(t, "exec after refusal", text, res, false, `(?m)^hello, world$`)
	if sk, _ := st.Get("greet"); sk.Version != 1 {
		t.Errorf("after a refused save: version %d, want 1", sk.Version)
	}

	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no files", map[string]any{"name": "x"}, `argument "files" is missing`},
		{"files not an object", map[string]any{"name": "x", "files": "SKILL.md"}, `want an object of file name to content, got a string`},
		{"content not a string", map[string]any{"name": "x", "files": map[string]any{"SKILL.md": 1}}, `file "SKILL.md": want its content as a string, got a number`},
		{"no SKILL.md", map[string]any{"name": "x", "files": map[string]any{"x.go": "package x\n"}}, `files has no SKILL.md`},
		{"bad name", map[string]any{"name": "Greet", "files": greetFiles(`""`)}, `skill name "Greet": use a lower-case letter`},
		{"package mismatch", map[string]any{"name": "other", "files": greetFiles(`""`)}, `skills/other/`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, text := call(t, c, ToolSaveSkill, tt.args)
			mustMatch(t, tt.name, text, res, true, regexp.QuoteMeta(tt.want))
		})
	}
	if names := st.List(); len(names) != 1 {
		t.Errorf("refused saves left %d skills, want 1", len(names))
	}
}

func TestSkillTools(t *testing.T) {
	st, c, changed := newSkillsServer(t)
	for _, f := range []map[string]any{
		{"name": "greet", "files": greetFiles(`"hello, " + name`)},
		{"name": "shout", "files": shoutFiles},
	} {
		if res, text := call(t, c, ToolSaveSkill, f); res.IsError {
			t.Fatalf("save %s: %s", f["name"], text)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); changed.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no tools/list_changed notification within 10s of saving a skill with Run")
		}
	}
	tools := listTools(t, c)
	if _, ok := tools["skill_greet"]; ok {
		t.Error("skill_greet is offered, but greet has no Run")
	}
	tl, ok := tools["skill_shout"]
	if !ok {
		t.Fatalf("skill_shout is not offered; tools: %v", mapKeys(tools))
	}
	for _, want := range []string{"Greets loudly", "Run greets Name loudly.", "func Run(args Args) (Result, error)"} {
		if !strings.Contains(tl.Description, want) {
			t.Errorf("skill_shout description lacks %q:\n%s", want, tl.Description)
		}
	}
	var schema struct {
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	raw, err := json.Marshal(tl.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatalf("skill_shout inputSchema %s: %v", raw, err)
	}
	if p := schema.Properties["name"]; p.Type != "string" || p.Description != "Name is who to greet." || !slices.Equal(schema.Required, []string{"name"}) {
		t.Errorf("skill_shout inputSchema: got %s", raw)
	}

	calls := []struct {
		name    string
		args    map[string]any
		isError bool
		want    []string
	}{
		{"result", map[string]any{"name": "ann"}, false, []string{`^\{"greeting":"HELLO, ANN","documents":5\}\n`, `(?m)^\[printed\]\ngreeting ann$`}},
		{"Run error", map[string]any{"name": ""}, true, []string{`skill_shout: Run returned an error: name is empty`}},
		{"bad argument", map[string]any{"name": 3}, true, []string{`decode the arguments`}},
	}
	for _, tt := range calls {
		t.Run(tt.name, func(t *testing.T) {
			res, text := call(t, c, "skill_shout", tt.args)
			mustMatch(t, tt.name, text, res, tt.isError, tt.want...)
		})
	}

	// search_tools finds the skill with its Run signature.
	res, text := call(t, c, ToolSearch, map[string]any{"query": "greet loudly", "detail": "signature", "limit": 2})
	mustMatch(t, "search", text, res, false, `// mcpfs/skills/shout \(skills/shout/SKILL\.md\)`, `func Run\(args Args\) \(Result, error\)`)

	// A skill removed elsewhere (here: the store directly) loses its tool.
	if _, err := st.Remove(context.Background(), "shout", "test"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok := listTools(t, c)["skill_shout"]; !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("skill_shout is still offered 10s after the skill was removed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func mapKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
