package engine

import (
	"context"
	"encoding/json"
	"io/fs"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/testenv"
)

// statsServer is a real mcp-go server with tools that declare no output
// schema: stats returns JSON text (count is a number, or a string once
// countAsText is set), query returns objects whose keys differ per call,
// hello returns plain text.
func statsServer(countAsText *atomic.Bool) func() *server.MCPServer {
	return func() *server.MCPServer {
		s := server.NewMCPServer("stats", "1.0.0")
		n := 0
		s.AddTool(mcp.NewTool("stats", mcp.WithDescription("Counts things.")), func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var count any = 42
			if countAsText.Load() {
				count = "42"
			}
			b, _ := json.Marshal(map[string]any{"count": count, "name": "widgets", "tags": []string{"a", "b"}, "owner": map[string]any{"id": "u1"}})
			return mcp.NewToolResultText(string(b)), nil
		})
		s.AddTool(mcp.NewTool("query", mcp.WithDescription("Runs a query.")), func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n++
			b, _ := json.Marshal(map[string]any{"col" + strings.Repeat("x", n): 1, "other" + strings.Repeat("y", n): 2})
			return mcp.NewToolResultText(string(b)), nil
		})
		s.AddTool(mcp.NewTool("hello", mcp.WithDescription("Says hello.")), func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("hello"), nil
		})
		return s
	}
}

func startStatsEngine(t *testing.T, dataDir string, countAsText *atomic.Bool) *Engine {
	t.Helper()
	cfg := &discovery.Config{Servers: []discovery.ServerConfig{{Name: "stats", Key: "stats", Transport: "builtin", Builtin: "stats"}}}
	e := Start(context.Background(), cfg, Options{DataDir: dataDir, Builtins: map[string]func() *server.MCPServer{"stats": statsServer(countAsText)}})
	t.Cleanup(e.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := e.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

func run(t *testing.T, e *Engine, src string) string {
	t.Helper()
	res, err := e.RunWith(context.Background(), "main.go", []byte(src), RunOptions{Timeout: time.Minute})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, src)
	}
	if res.ExitCode != 0 {
		t.Fatalf("run exited %d: %s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	return string(res.Stdout)
}

const callAll = `package main

import (
	"fmt"

	"mcpfs/servers/stats"
)

func main() {
	r, err := stats.Stats(stats.StatsArgs{})
	fmt.Println(len(r.Text()) > 0, err)
	stats.Query(stats.QueryArgs{})
	stats.Query(stats.QueryArgs{})
	stats.Hello(stats.HelloArgs{})
}
`

const useLearned = `package main

import (
	"fmt"

	"mcpfs/servers/stats"
)

func main() {
	r, err := stats.Stats(stats.StatsArgs{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var v stats.StatsResult
	if err := r.Decode(&v); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Name, v.Count+1, len(v.Tags), v.Owner.Id)
}
`

// TestLearnedResultTypes: a call teaches the tree a result type; the next
// snippet uses it; a change of shape re-checks saved skills; the type
// survives the engine (the cache) and can be forgotten.
func TestLearnedResultTypes(t *testing.T) {
	dir := t.TempDir()
	var countAsText atomic.Bool
	e := startStatsEngine(t, dir, &countAsText)
	read := func(p string) string {
		b, err := fs.ReadFile(e.Tree(), p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if f := read("servers/stats/stats.go"); strings.Contains(f, "StatsResult") {
		t.Fatalf("a result type before any call:\n%s", f)
	}
	if out := run(t, e, callAll); out != "true <nil>\n" {
		t.Fatalf("first run printed %q", out)
	}
	f := read("servers/stats/stats.go")
	for _, want := range []string{"func Stats(args StatsArgs) (out mcp.Result, err error)", "StatsResult is learned from 1 result", "type StatsResult struct", "Count float64", "Owner StatsResultOwner"} {
		if !strings.Contains(f, want) {
			t.Errorf("stats.go lacks %q:\n%s", want, f)
		}
	}
	if f := read("servers/stats/query.go"); strings.Contains(f, "QueryResult") {
		t.Errorf("query's keys differ per call, yet it has a learned type:\n%s", f)
	}
	if f := read("servers/stats/hello.go"); strings.Contains(f, "HelloResult") {
		t.Errorf("hello returns text, yet it has a learned type:\n%s", f)
	}
	if out := run(t, e, useLearned); out != "widgets 43 2 u1\n" {
		t.Fatalf("snippet against the learned type printed %q", out)
	}

	// A saved skill uses the type; then the server changes count to a
	// string: the type says any, and the skill is reported.
	files := map[string][]byte{
		"SKILL.md":   []byte("---\nname: widgets\ndescription: Counts widgets plus one.\n---\nUse Next.\n"),
		"widgets.go": []byte("package widgets\n\nimport \"mcpfs/servers/stats\"\n\n// Next is one more than the count.\nfunc Next(v stats.StatsResult) float64 { return v.Count + 1 }\n"),
	}
	if _, err := e.Skills().Save(context.Background(), e.Tree(), "widgets", files, "test"); err != nil {
		t.Fatal(err)
	}
	countAsText.Store(true)
	run(t, e, callAll)
	if f := read("servers/stats/stats.go"); !strings.Contains(f, "Count any") {
		t.Fatalf("count disagreed across calls, want any:\n%s", f)
	}
	deadline := time.Now().Add(20 * time.Second)
	for e.BrokenSkills()["widgets"] == "" {
		if time.Now().After(deadline) {
			t.Fatal("the skill using Count as a number was not reported after the type changed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if why := e.BrokenSkills()["widgets"]; !strings.Contains(why, "stats.stats") {
		t.Errorf("the report does not name the tool: %s", why)
	}

	// Kept in the cache: a new engine on the same data dir has the type.
	e.Close()
	e2 := startStatsEngine(t, dir, &countAsText)
	b, _ := fs.ReadFile(e2.Tree(), "servers/stats/stats.go")
	if !strings.Contains(string(b), "StatsResult is learned from 3 results") {
		t.Errorf("a new engine does not show the learned type with its 3 results:\n%s", b)
	}
	if n := e2.LearnedTools(); n != 1 {
		t.Errorf("LearnedTools = %d, want 1", n)
	}
	if n, err := e2.ForgetShapes("stats", ""); err != nil || n != 2 {
		t.Errorf("ForgetShapes(stats) = %d, %v; want 2 (stats and query)", n, err)
	}
	b, _ = fs.ReadFile(e2.Tree(), "servers/stats/stats.go")
	if strings.Contains(string(b), "StatsResult") {
		t.Errorf("forgotten, yet the type is there:\n%s", b)
	}
}

// TestLearnedTypesReferenceServers learns from server-everything, whose
// get-env returns JSON text without an output schema (the tools of
// server-filesystem and server-memory all declare one), and runs a
// snippet against the learned type on the next call.
func TestLearnedTypesReferenceServers(t *testing.T) {
	testenv.Integration(t)
	cfg := &discovery.Config{Servers: []discovery.ServerConfig{
		{Name: "everything", Key: "everything", Transport: "stdio", Command: testenv.Bin(t, "mcp-server-everything")},
		{Name: "filesystem", Key: "filesystem", Transport: "stdio", Command: testenv.Bin(t, "mcp-server-filesystem"), Args: []string{t.TempDir()}},
		{Name: "memory", Key: "memory", Transport: "stdio", Command: testenv.Bin(t, "mcp-server-memory"), Env: map[string]string{"MEMORY_FILE_PATH": t.TempDir() + "/m.json"}},
	}}
	e := Start(context.Background(), cfg, Options{DataDir: t.TempDir()})
	t.Cleanup(e.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := e.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	untyped := 0
	for _, s := range e.Catalog().Servers {
		if s.State != discovery.StateReady {
			t.Fatalf("%s is %s: %s", s.Name, s.State, s.Err)
		}
		for _, tool := range s.Tools {
			if !e.DeclaresOutput(s.Name, tool.Name) {
				untyped++
				if s.Name != "everything" {
					t.Errorf("%s.%s declares no output schema: learn it here too", s.Name, tool.Name)
				}
			}
		}
	}
	t.Logf("%d tools without an output schema", untyped)
	if _, err := e.Learn(ctx, "everything", "get-env", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	b, _ := fs.ReadFile(e.Tree(), "servers/everything/get_env.go")
	if !strings.Contains(string(b), "type GetEnvResult struct") || !strings.Contains(string(b), "PATH") {
		t.Fatalf("no learned GetEnvResult after one call:\n%s", b)
	}
	out := run(t, e, `package main

import (
	"fmt"
	"strings"

	"mcpfs/servers/everything"
)

func main() {
	r, err := everything.GetEnv(everything.GetEnvArgs{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var v everything.GetEnvResult
	if err := r.Decode(&v); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Contains(v.PATH, "/"))
}
`)
	if out != "true\n" {
		t.Errorf("snippet against the learned GetEnvResult printed %q, want true", out)
	}
}

func TestTypedOutput(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"name":"a"}`: false,
		`{"outputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`: true,
		`{"outputSchema":{"properties":{"x":{}}}}`:                                true,
		`{"outputSchema":{"type":"object"}}`:                                      false,
		`{"outputSchema":{"$ref":"#/$defs/x","properties":{"x":{}}}}`:             false,
		`{"outputSchema":{"type":"array","properties":{"x":{}}}}`:                 false,
		`{"outputSchema":true}`:                                                   false,
	} {
		if got := typedOutput(json.RawMessage(raw)); got != want {
			t.Errorf("typedOutput(%s) = %v, want %v", raw, got, want)
		}
	}
}
