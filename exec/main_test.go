package exec

import (
	"context"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
	"github.com/traefik/yaegi/stdlib/syscall"
	"github.com/traefik/yaegi/stdlib/unrestricted"
	"github.com/traefik/yaegi/stdlib/unsafe"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/builtin"
	"github.com/mcpfs/mcpfs/exec/check"
	"github.com/mcpfs/mcpfs/exec/worker"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// TestMain turns the test binary into a worker when the Runner starts it,
// with the unrestricted symbols the escape tests need.
func TestMain(m *testing.M) {
	if worker.IsWorker() {
		worker.Unrestricted = interp.Exports{}
		for _, syms := range []interp.Exports{stdlib.Symbols, syscall.Symbols, unsafe.Symbols, unrestricted.Symbols} {
			for k, v := range syms {
				if worker.Unrestricted[k] == nil {
					worker.Unrestricted[k] = map[string]reflect.Value{}
				}
				for name, sym := range v {
					worker.Unrestricted[k][name] = sym
				}
			}
		}
		os.Exit(worker.Main())
	}
	os.Exit(m.Run())
}

// engine is the built-in docstore served in process, with its tree.
type engine struct {
	sup  *discovery.Supervisor
	tree *mcpfs.Tree
}

func newEngine(t testing.TB) *engine {
	t.Helper()
	cfg := &discovery.Config{Servers: []discovery.ServerConfig{{Name: "docstore", Key: "docstore", Transport: "builtin", Builtin: "docstore"}}}
	ctx := context.Background()
	sup := discovery.Start(ctx, cfg, discovery.Options{
		ConnectTimeout: 10 * time.Second,
		Builtins:       map[string]func() *server.MCPServer{"docstore": builtin.NewDocstore},
	})
	t.Cleanup(func() { sup.Close() })
	sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := sup.Settle(sctx); err != nil {
		t.Fatalf("settle: %v", err)
	}
	if s, _ := sup.Catalog().Server("docstore"); s.State != discovery.StateReady {
		t.Fatalf("docstore is %s: %s", s.State, s.Err)
	}
	return &engine{sup: sup, tree: mcpfs.New(sup.Catalog(), mcpfs.Options{})}
}

// request checks src against the engine's tree and returns the request
// that runs it.
func (e *engine) request(t testing.TB, src string) Request {
	t.Helper()
	prog, err := check.Check("snippet.go", []byte(src), e.tree, check.Options{})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	return Request{Source: prog.Source, Tree: e.tree, Packages: prog.TreePackages, Files: prog.Files, Call: e.sup.CallTool}
}

func newRunner(t testing.TB, opts Options) *Runner {
	t.Helper()
	if opts.OutputDir == "" {
		opts.OutputDir = t.TempDir()
	}
	r := NewRunner(opts)
	t.Cleanup(func() { r.Close() })
	return r
}
