package discovery

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// echoServer is an in-process server with one tool, named after its label,
// so that a test can tell servers apart by their tool names.
func echoServer(label string) func() *server.MCPServer {
	return func() *server.MCPServer {
		s := server.NewMCPServer(label, "1.0")
		s.AddTool(mcp.NewTool("tool_"+label), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(label), nil
		})
		return s
	}
}

func waitForCatalog(t *testing.T, sup *Supervisor, what string, ok func(*Catalog) bool) *Catalog {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		cat := sup.Catalog()
		if ok(cat) {
			return cat
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: catalog is %+v", what, cat.Servers)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestReconfigure(t *testing.T) {
	opts := Options{Builtins: map[string]func() *server.MCPServer{
		"a": echoServer("a"), "b": echoServer("b"), "c": echoServer("c"),
	}}
	builtin := func(name, impl string) ServerConfig {
		return ServerConfig{Name: name, Key: name, Transport: "builtin", Builtin: impl}
	}
	sup := Start(context.Background(), &Config{Servers: []ServerConfig{builtin("keep", "a"), builtin("drop", "b"), builtin("change", "a")}}, opts)
	defer sup.Close()
	if err := sup.Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
	before, _ := sup.Catalog().Server("keep")

	// keep: unchanged; drop: removed; change: now runs "c"; add: new.
	sup.Reconfigure(&Config{Servers: []ServerConfig{builtin("keep", "a"), builtin("change", "c"), builtin("add", "b")}})
	cat := waitForCatalog(t, sup, "the new config to be ready", func(c *Catalog) bool {
		ch, ok1 := c.Server("change")
		ad, ok2 := c.Server("add")
		return ok1 && ok2 && ch.State == StateReady && ad.State == StateReady
	})
	if _, ok := cat.Server("drop"); ok {
		t.Errorf("drop: still in the catalog after it was removed from the config")
	}
	if got := toolNames(mustCatalogServer(t, cat, "change")); len(got) != 1 || got[0] != "tool_c" {
		t.Errorf("change: got tools %v, want [tool_c] (the changed config)", got)
	}
	after := mustCatalogServer(t, cat, "keep")
	if after.State != StateReady || !after.Since.Equal(before.Since) {
		t.Errorf("keep: got state %s since %v, want it untouched (ready since %v)", after.State, after.Since, before.Since)
	}
	if got := sup.Config().Servers; len(got) != 3 {
		t.Errorf("Config: got %d servers, want 3", len(got))
	}

	// Calls go to the new servers; the removed one is refused at once.
	if _, err := sup.CallTool(context.Background(), "add", "tool_b", nil); err != nil {
		t.Errorf("call on the added server: %v", err)
	}
	_, err := sup.CallTool(context.Background(), "drop", "tool_b", nil)
	if !errors.Is(err, ErrUnknownServer) {
		t.Errorf("call on the removed server: got %v, want ErrUnknownServer", err)
	}
}

func mustCatalogServer(t *testing.T, c *Catalog, name string) ServerSnapshot {
	t.Helper()
	s, ok := c.Server(name)
	if !ok {
		t.Fatalf("server %q missing from the catalog", name)
	}
	return s
}
