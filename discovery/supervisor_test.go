package discovery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpfs/mcpfs/discovery/internal/faultserver"
)

const faultEnv = "MCPFS_FAULTSERVER"

// TestFaultServerProcess is not a test: it is the fault server, run when a
// test re-executes this binary with faultEnv set.
func TestFaultServerProcess(t *testing.T) {
	if os.Getenv(faultEnv) == "" {
		t.Skip("helper process for the stdio tests; runs only when re-executed")
	}
	faultserver.Main(faultEnv)
}

// faultServer is a stdio ServerConfig running the fault server with modes.
func faultServer(name, modes string) ServerConfig {
	if modes == "" {
		modes = "proto=2025-11-25" // an empty variable would not start the server
	}
	return ServerConfig{
		Name:      name,
		Key:       name,
		Transport: "stdio",
		Command:   os.Args[0],
		Args:      []string{"-test.run=^TestFaultServerProcess$"},
		Env:       map[string]string{faultEnv: modes},
	}
}

// testLog is a slog.Handler that forwards records to t.Log and keeps them
// for assertions.
type testLog struct {
	mu      *sync.Mutex
	t       testing.TB
	records *[]string
	done    *bool
	attrs   string
}

func newTestLog(t testing.TB) (*slog.Logger, *testLog) {
	h := &testLog{mu: new(sync.Mutex), t: t, records: new([]string), done: new(bool)}
	t.Cleanup(func() { // registered first, so it runs after every other cleanup
		h.mu.Lock()
		*h.done = true
		h.mu.Unlock()
	})
	return slog.New(h), h
}

func (h *testLog) Enabled(context.Context, slog.Level) bool { return true }
func (h *testLog) WithGroup(string) slog.Handler            { return h }
func (h *testLog) WithAttrs(as []slog.Attr) slog.Handler {
	h2 := *h
	for _, a := range as {
		h2.attrs += " " + a.String()
	}
	return &h2
}

func (h *testLog) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s%s", r.Time.Format("05.000"), r.Level, r.Message, h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s", a)
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	if *h.done {
		return nil
	}
	*h.records = append(*h.records, b.String())
	h.t.Log(b.String())
	return nil
}

// has reports whether some record contains all of the substrings.
func (h *testLog) has(subs ...string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range *h.records {
		all := true
		for _, s := range subs {
			all = all && strings.Contains(r, s)
		}
		if all {
			return true
		}
	}
	return false
}

// openFDs counts this process's open file descriptors (-1 where /proc is
// missing).
func openFDs() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

// noLeaks fails the test if goroutines or file descriptors opened during it
// outlive its cleanups (register it before starting anything).
func noLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	fdsBefore := openFDs()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for {
			n := runtime.NumGoroutine()
			fds := openFDs()
			if n <= before && fds <= fdsBefore {
				return
			}
			if fds > fdsBefore && time.Now().After(deadline) {
				t.Errorf("file descriptors: got %d open after the test, want at most %d as before", fds, fdsBefore)
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("goroutines: got %d after the test, want at most %d as before; stacks:\n%s", n, before, buf)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// startSupervisor starts servers and closes the Supervisor when the test
// ends.
func startSupervisor(t *testing.T, opts Options, servers ...ServerConfig) (*Supervisor, *testLog) {
	t.Helper()
	log, h := newTestLog(t)
	if opts.Logger == nil {
		opts.Logger = log
	}
	s := Start(context.Background(), &Config{Servers: servers}, opts)
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s, h
}

func settle(t *testing.T, s *Supervisor) *Catalog {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := s.Settle(ctx); err != nil {
		t.Fatalf("Settle: %v; catalog: %+v", err, s.Catalog())
	}
	return s.Catalog()
}

func mustServer(t *testing.T, c *Catalog, name string, want State) ServerSnapshot {
	t.Helper()
	ss, ok := c.Server(name)
	if !ok {
		t.Fatalf("server %q missing from catalog %+v", name, c)
	}
	if ss.State != want {
		t.Fatalf("server %q: state got %s, want %s (err %q)", name, ss.State, want, ss.Err)
	}
	return ss
}

func toolNames(ss ServerSnapshot) []string {
	names := make([]string, len(ss.Tools))
	for i, tl := range ss.Tools {
		names[i] = tl.Name
	}
	return names
}

// demoServer is an in-process mcp-go server with n tools named tool1..tooln
// plus echo, fail and slow.
func demoServer(n int, opts ...server.ServerOption) *server.MCPServer {
	srv := server.NewMCPServer("demo", "1.2.3", append([]server.ServerOption{server.WithToolCapabilities(true), server.WithInstructions("demo instructions")}, opts...)...)
	srv.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echo text."), mcp.WithString("text", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := req.GetString("text", "")
			return &mcp.CallToolResult{
				Content:           []mcp.Content{mcp.NewTextContent(text)},
				StructuredContent: map[string]any{"echoed": text},
			}, nil
		})
	srv.AddTool(mcp.NewTool("fail", mcp.WithDescription("Always fails.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("it failed on purpose"), nil
		})
	srv.AddTool(mcp.NewTool("slow", mcp.WithDescription("Waits for cancellation.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	for i := 1; i <= n; i++ {
		srv.AddTool(mcp.NewTool(fmt.Sprintf("tool%d", i)), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		})
	}
	return srv
}

func builtin(name string) ServerConfig {
	return ServerConfig{Name: name, Key: name, Transport: "builtin", Builtin: name}
}

func TestCatalogStates(t *testing.T) {
	noLeaks(t)
	s, _ := startSupervisor(t, Options{Builtins: map[string]func() *server.MCPServer{
		"demo": func() *server.MCPServer { return demoServer(0) },
	}},
		builtin("demo"),
		ServerConfig{Name: "off", Key: "Off", Transport: "stdio", Command: "nosuchcmd", Disabled: true},
		ServerConfig{Name: "broken", Key: "broken", Transport: "stdio", Err: `mcpServers.broken.env.TOKEN: ${TOKEN} is not set`},
		ServerConfig{Name: "weird", Key: "weird", Transport: "carrier-pigeon"},
		ServerConfig{Name: "nobuiltin", Key: "nobuiltin", Transport: "builtin", Builtin: "absent"},
	)
	first := s.Catalog()
	if first == nil || first.Version == 0 {
		t.Fatalf("first catalog: got %+v, want a published version", first)
	}
	mustServer(t, first, "off", StateDisabled)
	c := settle(t, s)
	if c.Version <= first.Version {
		t.Errorf("version: got %d after settling, want more than %d", c.Version, first.Version)
	}
	var names []string
	for _, ss := range c.Servers {
		names = append(names, ss.Name)
	}
	if got, want := strings.Join(names, ","), "broken,demo,nobuiltin,off,weird"; got != want {
		t.Errorf("servers: got %s, want %s (sorted by name)", got, want)
	}
	demo := mustServer(t, c, "demo", StateReady)
	if demo.ServerName != "demo" || demo.ServerVersion != "1.2.3" || demo.Instructions != "demo instructions" || demo.ProtocolVersion == "" {
		t.Errorf("demo info: got %+v", demo)
	}
	t.Logf("in-process protocol: %s", demo.ProtocolVersion)
	if got := strings.Join(toolNames(demo), ","); got != "echo,fail,slow" {
		t.Errorf("demo tools: got %s, want echo,fail,slow", got)
	}
	off := mustServer(t, c, "off", StateDisabled)
	if off.Key != "Off" {
		t.Errorf("off key: got %q, want Off", off.Key)
	}
	for _, tc := range []struct{ name, errHas string }{
		{"broken", "${TOKEN} is not set"},
		{"weird", `unknown transport "carrier-pigeon"`},
		{"nobuiltin", `no built-in server named "absent" in this binary (built in: demo)`},
	} {
		ss := mustServer(t, c, tc.name, StateFailed)
		if !strings.Contains(ss.Err, tc.errHas) {
			t.Errorf("%s: err got %q, want it to contain %q", tc.name, ss.Err, tc.errHas)
		}
	}
}

func TestCallTool(t *testing.T) {
	noLeaks(t)
	s, _ := startSupervisor(t, Options{Builtins: map[string]func() *server.MCPServer{
		"demo": func() *server.MCPServer { return demoServer(0) },
	}}, builtin("demo"), ServerConfig{Name: "off", Key: "off", Transport: "stdio", Disabled: true})
	settle(t, s)
	ctx := context.Background()

	t.Run("echo", func(t *testing.T) {
		res, err := s.CallTool(ctx, "demo", "echo", json.RawMessage(`{"text":"hi"}`))
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Content []struct {
				Type, Text string
			}
			StructuredContent map[string]string
		}
		if err := json.Unmarshal(res, &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Content) != 1 || r.Content[0].Text != "hi" || r.StructuredContent["echoed"] != "hi" {
			t.Errorf("result: got %s, want text and structuredContent \"hi\"", res)
		}
	})
	t.Run("isError", func(t *testing.T) {
		res, err := s.CallTool(ctx, "demo", "fail", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(res, []byte(`"isError":true`)) {
			t.Errorf("result: got %s, want isError true", res)
		}
	})
	errCases := []struct {
		name, server, tool, args string
		is                       error
		has                      string
	}{
		{"unknown server", "nope", "echo", `{}`, ErrUnknownServer, `server "nope": no such server (configured: demo, off)`},
		{"disabled", "off", "echo", `{}`, ErrNotReady, "it is disabled"},
		{"args not object", "demo", "echo", `[1]`, nil, "arguments must be a JSON object"},
		{"unknown tool", "demo", "nope", `{}`, nil, "tools/call"},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.CallTool(ctx, tc.server, tc.tool, json.RawMessage(tc.args))
			if err == nil {
				t.Fatal("got no error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("got %v, want errors.Is %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.has) {
				t.Errorf("got %q, want it to contain %q", err, tc.has)
			}
		})
	}
	t.Run("timeout", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		_, err := s.CallTool(ctx, "demo", "slow", nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got %v, want context.DeadlineExceeded", err)
		}
	})
	t.Run("call timeout option", func(t *testing.T) {
		s2, _ := startSupervisor(t, Options{CallTimeout: 100 * time.Millisecond, Builtins: map[string]func() *server.MCPServer{
			"demo": func() *server.MCPServer { return demoServer(0) },
		}}, builtin("demo"))
		settle(t, s2)
		_, err := s2.CallTool(context.Background(), "demo", "slow", nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got %v, want context.DeadlineExceeded from CallTimeout", err)
		}
	})
	t.Run("after close", func(t *testing.T) {
		s2, _ := startSupervisor(t, Options{}, ServerConfig{Name: "off", Transport: "stdio", Disabled: true})
		s2.Close()
		if _, err := s2.CallTool(ctx, "off", "x", nil); !errors.Is(err, ErrClosed) {
			t.Errorf("got %v, want ErrClosed", err)
		}
		if err := s2.Settle(ctx); err != nil {
			t.Errorf("Settle after Close with nothing connecting: got %v, want nil", err)
		}
	})
}

func TestPagination(t *testing.T) {
	noLeaks(t)
	builtins := map[string]func() *server.MCPServer{
		"paged": func() *server.MCPServer { return demoServer(10, server.WithPaginationLimit(3)) },
	}
	for _, tc := range []struct {
		name      string
		maxPages  int
		wantTools int
		truncated bool
	}{
		{"all pages", 0, 13, false},
		{"bounded", 2, 6, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, h := startSupervisor(t, Options{MaxToolPages: tc.maxPages, Builtins: builtins}, builtin("paged"))
			ss := mustServer(t, settle(t, s), "paged", StateReady)
			if len(ss.Tools) != tc.wantTools || ss.ToolsTruncated != tc.truncated {
				t.Errorf("got %d tools (truncated %v), want %d (truncated %v): %v", len(ss.Tools), ss.ToolsTruncated, tc.wantTools, tc.truncated, toolNames(ss))
			}
			if tc.truncated && !h.has("WARN", "truncated") {
				t.Errorf("no warning logged about the truncated list")
			}
		})
	}
}

// TestListChanged runs on virtual time: two tools added at once reach the
// catalog together, in one new version, one debounce after the server's
// notifications.
func TestListChanged(t *testing.T) {
	noLeaks(t)
	synctest.Test(t, testListChanged)
}

func testListChanged(t *testing.T) {
	var mu sync.Mutex
	var srv *server.MCPServer
	s, _ := startSupervisor(t, Options{Builtins: map[string]func() *server.MCPServer{
		"demo": func() *server.MCPServer {
			mu.Lock()
			defer mu.Unlock()
			srv = demoServer(0)
			return srv
		},
	}}, builtin("demo"))
	watch, stop := s.Watch()
	defer stop()
	c := settle(t, s)
	before := mustServer(t, c, "demo", StateReady)
	<-watch // the settled catalog or an earlier one
	synctest.Wait()
	for len(watch) > 0 {
		<-watch
	}
	added := time.Now()
	mu.Lock()
	srv.AddTool(mcp.NewTool("added"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	srv.AddTool(mcp.NewTool("added2"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	mu.Unlock()
	timeout := time.After(10 * time.Second)
	select {
	case got := <-watch:
		if took := time.Since(added); took != listChangedDebounce {
			t.Errorf("the new catalog came %v after the tools were added, want %v (one debounce)", took, listChangedDebounce)
		}
		ss := mustServer(t, got, "demo", StateReady)
		if len(ss.Tools) != len(before.Tools)+2 {
			t.Fatalf("tools: got %v, want both added tools in the first new catalog", toolNames(ss))
		}
		if got.Version <= c.Version {
			t.Errorf("version: got %d, want more than %d", got.Version, c.Version)
		}
		if names := strings.Join(toolNames(ss), ","); !strings.Contains(names, "added2") {
			t.Errorf("tools: got %s, want added2 among them", names)
		}
	case <-timeout:
		t.Fatalf("no catalog with the added tools after 10s; last: %+v", s.Catalog())
	}
	time.Sleep(time.Second)
	synctest.Wait()
	if len(watch) > 0 {
		got := <-watch
		t.Errorf("another catalog (version %d) followed the one with the added tools: want the burst coalesced", got.Version)
	}
}

// TestListChangedStorm runs on virtual time: a burst of 5000
// tools/list_changed notifications is listed once, one debounce after it
// began, and leaves the catalog's version alone when the tools are the same.
func TestListChangedStorm(t *testing.T) {
	noLeaks(t)
	synctest.Test(t, testListChangedStorm)
}

func testListChangedStorm(t *testing.T) {
	const burst = 5000
	var sent atomic.Int64
	storm := func() *server.MCPServer {
		srv := demoServer(0)
		srv.AddTool(mcp.NewTool("storm"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// The in-process session holds 100 notifications: when it is
			// full, let the client drain it (a nanosecond of virtual time).
			for end := time.Now().Add(time.Millisecond); sent.Load() < burst && time.Now().Before(end); {
				if srv.SendNotificationToClient(ctx, notifyToolsListChanged, nil) != nil {
					time.Sleep(time.Nanosecond)
					continue
				}
				sent.Add(1)
			}
			return mcp.NewToolResultText(fmt.Sprint(sent.Load())), nil
		})
		return srv
	}
	s, h := startSupervisor(t, Options{Builtins: map[string]func() *server.MCPServer{"storm": storm}}, builtin("storm"))
	settle(t, s)
	before := s.Catalog().Version
	res, err := s.CallTool(context.Background(), "storm", "storm", nil)
	if err != nil {
		t.Fatal(err)
	}
	synctest.Wait()
	if n := sent.Load(); n != burst {
		t.Fatalf("notifications sent: got %d, want %d; the answer: %s", n, burst, res)
	}
	const same = "tools/list_changed, but the tools are the same"
	if n := countRecords(h, same); n != 0 {
		t.Errorf("re-listings before the debounce ended: got %d, want 0", n)
	}
	time.Sleep(listChangedDebounce)
	synctest.Wait()
	if n := countRecords(h, same); n != 1 {
		t.Errorf("re-listings one debounce after the burst: got %d, want 1", n)
	}
	time.Sleep(time.Second)
	synctest.Wait()
	if n := countRecords(h, same); n != 1 {
		t.Errorf("re-listings a second after the burst: got %d, want 1 (the burst coalesced)", n)
	}
	if v := s.Catalog().Version; v != before {
		t.Errorf("catalog version: got %d, want %d (the tools did not change)", v, before)
	}
}

func TestRawSchemaPreserved(t *testing.T) {
	noLeaks(t)
	input := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
		`"$defs":{"color":{"enum":["red","green"]}},` +
		`"properties":{"c":{"$ref":"#/$defs/color"},"n":{"anyOf":[{"type":"integer"},{"type":"null"}]}},` +
		`"anyOf":[{"required":["c"]},{"required":["n"]}],"description":"top-level description"}`
	output := `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}`
	tool := mcp.NewToolWithRawSchema("shaped", "A tool with a rich schema.", json.RawMessage(input))
	tool.RawOutputSchema = json.RawMessage(output)
	s, _ := startSupervisor(t, Options{Builtins: map[string]func() *server.MCPServer{
		"schemas": func() *server.MCPServer {
			srv := server.NewMCPServer("schemas", "1.0.0")
			srv.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			})
			return srv
		},
	}}, builtin("schemas"))
	ss := mustServer(t, settle(t, s), "schemas", StateReady)
	if len(ss.Tools) != 1 {
		t.Fatalf("tools: got %v, want [shaped]", toolNames(ss))
	}
	raw := ss.Tools[0].Raw
	var got struct {
		InputSchema, OutputSchema map[string]json.RawMessage
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	// What mcp-go's typed Tool keeps of the same JSON, for contrast.
	var typed mcp.Tool
	if err := json.Unmarshal(raw, &typed); err != nil {
		t.Fatal(err)
	}
	typedJSON, _ := json.Marshal(typed)
	var typedBack struct{ InputSchema map[string]json.RawMessage }
	_ = json.Unmarshal(typedJSON, &typedBack)
	for _, key := range []string{"$schema", "$defs", "anyOf", "description", "properties"} {
		if _, ok := got.InputSchema[key]; !ok {
			t.Errorf("raw inputSchema lost %q: %s", key, raw)
		}
		if _, ok := typedBack.InputSchema[key]; !ok {
			t.Logf("mcp-go's typed Tool drops inputSchema key %q (the raw listing keeps it)", key)
		}
	}
	if _, ok := got.OutputSchema["additionalProperties"]; !ok {
		t.Errorf("raw outputSchema lost additionalProperties: %s", raw)
	}
}

// TestWatchAndSettle runs on virtual time: Settle while a server connects
// ends exactly at its deadline.
func TestWatchAndSettle(t *testing.T) {
	noLeaks(t)
	synctest.Test(t, testWatchAndSettle)
}

func testWatchAndSettle(t *testing.T) {
	release := make(chan struct{})
	s, _ := startSupervisor(t, Options{Builtins: map[string]func() *server.MCPServer{
		"gated": func() *server.MCPServer {
			<-release // holds the server in "connecting"
			return demoServer(0)
		},
	}}, builtin("gated"))
	watch, stop := s.Watch()
	first := <-watch
	mustServer(t, first, "gated", StateConnecting)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	began := time.Now()
	if err := s.Settle(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Settle while connecting: got %v, want context.DeadlineExceeded", err)
	}
	if took := time.Since(began); took != 50*time.Millisecond {
		t.Errorf("Settle while connecting returned after %v, want 50ms (its deadline)", took)
	}
	cancel()
	close(release)
	c := settle(t, s)
	mustServer(t, c, "gated", StateReady)
	select {
	case got := <-watch:
		if got.Version != c.Version {
			t.Errorf("watch: got version %d, want the latest %d", got.Version, c.Version)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("watch: no new catalog")
	}
	stop()
	if _, ok := <-watch; ok {
		t.Error("watch channel still open after cancel")
	}
	stop() // twice is fine

	watch2, _ := s.Watch()
	s.Close()
	<-watch2 // the current catalog
	if _, ok := <-watch2; ok {
		t.Error("watch channel still open after Close")
	}
}

// Close right after Start, while servers are still starting, must not panic
// or leak: no goroutine, descriptor or process is left.
func TestCloseRightAfterStart(t *testing.T) {
	noLeaks(t)
	// cat ends at stdin's EOF, as a well-behaved server does; sleep
	// ignores it and is ended by SIGTERM after stopStdinGrace, so it
	// closes a few times only.
	const marker = "mcpfs-close-right-after-start"
	servers := []ServerConfig{
		{Name: "a", Key: "a", Transport: "stdio", Command: "cat", Args: []string{"-", "/dev/null/" + marker}},
		{Name: "b", Key: "b", Transport: "stdio", Command: "nosuch-command-for-test"},
	}
	sleeper := ServerConfig{Name: "c", Key: "c", Transport: "stdio", Command: "sh", Args: []string{"-c", "sleep 10; :", marker}}
	for i := range 20 {
		cfg := &Config{Servers: servers}
		if i < 3 {
			cfg.Servers = append(slices.Clone(servers), sleeper)
		}
		sup := Start(context.Background(), cfg, Options{})
		if err := sup.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if n := childProcs(marker); n != 0 {
			t.Fatalf("round %d: %d server processes outlived Close", i, n)
		}
	}
}
