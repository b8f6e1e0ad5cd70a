package mcpserver

import (
	"context"
	iofs "io/fs"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/builtin"
	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/check"
	"github.com/mcpfs/mcpfs/exec/worker"
	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/skills"
)

// TestMain turns the test binary into a snippet worker when the Runner
// starts it as one.
func TestMain(m *testing.M) {
	if worker.IsWorker() {
		os.Exit(worker.Main())
	}
	os.Exit(m.Run())
}

// testEngine is a real engine: the built-in docstore served in process,
// its tree, the checker and a sandboxed runner. It counts the snippets it
// was asked to run. With a skill store, its trees show the store's skills.
type testEngine struct {
	sup    *discovery.Supervisor
	tree   *mcpfs.Tree
	runner *exec.Runner
	runs   atomic.Int64
	skills *skills.Store
}

func newTestEngine(t testing.TB, outputDir string) *testEngine {
	t.Helper()
	cfg := &discovery.Config{Servers: []discovery.ServerConfig{{Name: "docstore", Key: "docstore", Transport: "builtin", Builtin: "docstore"}}}
	sup := discovery.Start(context.Background(), cfg, discovery.Options{
		ConnectTimeout: 10 * time.Second,
		Builtins:       map[string]func() *server.MCPServer{"docstore": builtin.NewDocstore},
	})
	t.Cleanup(func() { sup.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := sup.Settle(ctx); err != nil {
		t.Fatalf("settle: %v", err)
	}
	r := exec.NewRunner(exec.Options{OutputDir: outputDir, Timeout: 20 * time.Second})
	t.Cleanup(func() { r.Close() })
	return &testEngine{sup: sup, tree: mcpfs.New(sup.Catalog(), mcpfs.Options{}), runner: r}
}

func (e *testEngine) Tree() iofs.FS {
	if e.skills == nil {
		return e.tree
	}
	return e.tree.WithSkills(skills.ForTree(e.skills.List()))
}

func (e *testEngine) WaitReady(ctx context.Context) { e.sup.Settle(ctx) }

func (e *testEngine) Run(ctx context.Context, filename string, src []byte, timeout time.Duration, hooks RunHooks) (*exec.Result, error) {
	e.runs.Add(1)
	tree := e.Tree()
	prog, err := check.Check(filename, src, tree, check.Options{})
	if err != nil {
		return nil, err
	}
	return e.runner.Run(ctx, exec.Request{Filename: filename, Source: prog.Source, Tree: tree, Packages: prog.TreePackages, Timeout: timeout, Call: e.sup.CallTool, Stdout: hooks.Stdout})
}

// newTestServer returns a server over a real engine and an in-process
// client connected to it.
func newTestServer(t *testing.T, opts Options) (*Server, *testEngine, *client.Client) {
	t.Helper()
	if opts.OutputDir == "" {
		opts.OutputDir = t.TempDir()
	}
	e := newTestEngine(t, opts.OutputDir)
	e.skills = opts.Skills
	s := New(e, opts)
	t.Cleanup(s.Close)
	c, err := client.NewInProcessClient(s.MCPServer())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatal(err)
	}
	if res.Instructions != Instructions {
		t.Errorf("instructions: got %q, want the package's Instructions", res.Instructions)
	}
	return s, e, c
}

// call calls a tool and returns its text and whether it reported an error.
func call(t *testing.T, c *client.Client, tool string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return res, b.String()
}
