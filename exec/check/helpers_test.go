package check

import (
	"context"
	iofs "io/fs"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/builtin"
	"github.com/mcpfs/mcpfs/fs"
)

var (
	treeOnce sync.Once
	testTree *fs.Tree
	treeErr  error
)

// docstoreTree returns the tree of a catalog with the built-in docstore
// server, built once per test binary.
func docstoreTree(tb testing.TB) iofs.FS {
	tb.Helper()
	treeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		sup := discovery.Start(ctx, &discovery.Config{Servers: []discovery.ServerConfig{
			{Name: "docstore", Key: "docstore", Transport: "builtin", Builtin: "docstore"},
		}}, discovery.Options{Builtins: map[string]func() *server.MCPServer{"docstore": builtin.NewDocstore}})
		defer sup.Close()
		if treeErr = sup.Settle(ctx); treeErr != nil {
			return
		}
		testTree = fs.New(sup.Catalog(), fs.Options{})
	})
	if treeErr != nil {
		tb.Fatalf("build the docstore tree: %v", treeErr)
	}
	return testTree
}
