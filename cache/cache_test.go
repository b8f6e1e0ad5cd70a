package cache

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfs/mcpfs/discovery"
)

// logBuf is a slog.Logger writing to a buffer the test can search.
type logBuf struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func newLog() (*slog.Logger, *logBuf) {
	b := &logBuf{}
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})), b
}

func open(t *testing.T, dir string, opts Options) *Store {
	t.Helper()
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return s
}

func sampleTools(n int) discovery.CachedTools {
	ct := discovery.CachedTools{
		ListedAt:        time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		ServerName:      "demo",
		ServerVersion:   "1.0.0",
		ProtocolVersion: "2025-11-25",
		Instructions:    "use it",
	}
	for i := range n {
		name := fmt.Sprintf("tool%d", i)
		ct.Tools = append(ct.Tools, discovery.Tool{Name: name, Raw: json.RawMessage(`{"name":"` + name + `","inputSchema":{"type":"object","$defs":{}}}`)})
	}
	return ct
}

func TestToolsRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	s := open(t, dir, Options{})
	if _, ok := s.LoadTools("absent"); ok {
		t.Error("LoadTools of an absent key: got a hit")
	}
	want := sampleTools(3)
	s.StoreTools("k1", want)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode: got %v, want 0700", fi.Mode().Perm())
	}
	s = open(t, dir, Options{})
	defer s.Close()
	got, ok := s.LoadTools("k1")
	if !ok {
		t.Fatal("LoadTools after reopening: miss")
	}
	if !got.ListedAt.Equal(want.ListedAt) || got.ServerName != "demo" || len(got.Tools) != 3 || !bytes.Equal(got.Tools[2].Raw, want.Tools[2].Raw) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	st, err := s.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Servers != 1 || st.Results != 0 {
		t.Errorf("stats: got %+v, want 1 server, 0 results", st)
	}
	if err := s.Clear(); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.LoadTools("k1"); ok {
		t.Error("LoadTools after Clear: got a hit")
	}
}

func TestResultBounds(t *testing.T) {
	s := open(t, "", Options{InMemory: true, MaxResultBytes: 1000, MaxTotalResultBytes: 10_000})
	defer s.Close()
	res := func(n int) json.RawMessage { return json.RawMessage(`"` + strings.Repeat("x", n-2) + `"`) }

	s.StoreResult("big", res(1001), time.Minute)
	if _, ok := s.LoadResult("big"); ok {
		t.Error("a result over MaxResultBytes was kept")
	}
	s.StoreResult("short", res(10), 50*time.Millisecond)
	// Sort order by expiry: short-lived first, then in order of storing.
	for i := range 30 {
		s.StoreResult("r"+strconv.Itoa(i), res(900), time.Duration(i+1)*time.Minute)
	}
	st, err := s.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.ResultBytes > 10_000 {
		t.Errorf("results: got %d bytes, want at most 10000", st.ResultBytes)
	}
	if _, ok := s.LoadResult("r29"); !ok {
		t.Error("the newest, longest-lived result was dropped")
	}
	if _, ok := s.LoadResult("r0"); ok {
		t.Error("the result closest to expiry was kept while over the bound")
	}
	t.Logf("after 30 stores of 900 bytes under a 10000-byte bound: %d results, %d bytes", st.Results, st.ResultBytes)

	s.StoreResult("ttl", res(10), time.Second)
	if _, ok := s.LoadResult("ttl"); !ok {
		t.Fatal("fresh result missing")
	}
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, ok := s.LoadResult("ttl"); !ok {
			break
		}
		if time.Now().After(end) {
			t.Fatal("result still there 5s after its 1s TTL")
		}
	}
}

func TestSecondProcessLocked(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{})
	defer s.Close()
	_, err := Open(dir, Options{})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: got %v, want ErrLocked", err)
	}
	if !strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid())) {
		t.Errorf("error: got %q, want it to name the holder's pid", err)
	}
	if matches, _ := filepath.Glob(dir + ".corrupt-*"); len(matches) > 0 {
		t.Errorf("a locked cache was set aside: %v", matches)
	}
}

func TestCorruptSetAside(t *testing.T) {
	cases := []struct {
		name    string
		corrupt func(t *testing.T, dir string)
	}{
		{"manifest", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "MANIFEST"), []byte("this is no manifest at all, just text"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"truncated manifest", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "MANIFEST")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b[:len(b)/2], 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "KEYREGISTRY"), []byte("garbage"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "cache")
			// Twice: the second set-aside copy replaces the first.
			for round := range 2 {
				s := open(t, dir, Options{})
				s.StoreTools("k", sampleTools(1))
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				tc.corrupt(t, dir)
				log, buf := newLog()
				s, err := Open(dir, Options{Logger: log})
				if err != nil {
					t.Fatalf("round %d: Open of a corrupt cache: got %v, want it set aside and a new one opened", round, err)
				}
				if !strings.Contains(buf.String(), "set it aside") {
					t.Errorf("round %d: no warning logged; log:\n%s", round, buf)
				}
				matches, _ := filepath.Glob(dir + ".corrupt*")
				if len(matches) != 1 || matches[0] != dir+".corrupt" {
					t.Errorf("round %d: set-aside dirs: got %v, want only %s", round, matches, dir+".corrupt")
				}
				s.StoreTools("k2", sampleTools(1))
				if _, ok := s.LoadTools("k2"); !ok {
					t.Error("the rebuilt cache does not keep what is stored")
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestKillHelper is not a test: run with MCPFS_CACHE_KILL_DIR set, it
// opens that cache and stores tool listings forever, printing each key on
// stdout once its write has returned.
func TestKillHelper(t *testing.T) {
	dir := os.Getenv("MCPFS_CACHE_KILL_DIR")
	if dir == "" {
		t.Skip("helper process for TestKill9; runs only when re-executed")
	}
	s, err := Open(dir, Options{})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	ct := sampleTools(20)
	for i := 0; ; i++ {
		key := "k" + strconv.Itoa(i)
		s.StoreTools(key, ct)
		s.StoreResult("r"+strconv.Itoa(i), json.RawMessage(`{"n":`+strconv.Itoa(i)+`}`), time.Hour)
		fmt.Println(key)
	}
}

// TestKill9 kills a process in the middle of writing to the cache and
// checks that the cache opens again with every write that had returned.
func TestKill9(t *testing.T) {
	if os.Getenv("MCPFS_CACHE_KILL_DIR") != "" {
		t.Skip("inside the helper")
	}
	for round := range 3 {
		dir := filepath.Join(t.TempDir(), "cache")
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillHelper$")
		cmd.Env = append(os.Environ(), "MCPFS_CACHE_KILL_DIR="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var committed []string
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, "k") {
				t.Fatalf("helper: %s", line)
			}
			committed = append(committed, line)
			if len(committed) == 200*(round+1) {
				break
			}
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		if len(committed) == 0 {
			t.Fatal("helper committed nothing")
		}
		began := time.Now()
		s := open(t, dir, Options{})
		t.Logf("round %d: killed after %d writes; reopened in %v", round, len(committed), time.Since(began))
		for _, k := range committed {
			if _, ok := s.LoadTools(k); !ok {
				t.Errorf("round %d: tool listing %s was committed before the kill but is gone", round, k)
			}
			if _, ok := s.LoadResult("r" + k[1:]); !ok {
				t.Errorf("round %d: result r%s was committed before the kill but is gone", round, k[1:])
			}
		}
		if matches, _ := filepath.Glob(dir + ".corrupt-*"); len(matches) > 0 {
			t.Errorf("round %d: the cache was set aside after kill -9: %v", round, matches)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// demo is an in-process MCP server with a read-only tool "count" that
// answers how often it was called, and "bump", which is not read-only.
func demo(calls *atomic.Int64, gate <-chan struct{}) func() *server.MCPServer {
	return func() *server.MCPServer {
		if gate != nil {
			<-gate
		}
		srv := server.NewMCPServer("demo", "1.0.0", server.WithToolCapabilities(true))
		count := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(strconv.FormatInt(calls.Add(1), 10)), nil
		}
		srv.AddTool(mcp.NewTool("count", mcp.WithReadOnlyHintAnnotation(true), mcp.WithString("q")), count)
		srv.AddTool(mcp.NewTool("bump", mcp.WithReadOnlyHintAnnotation(false)), count)
		srv.AddTool(mcp.NewTool("oops", mcp.WithReadOnlyHintAnnotation(true)), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			return mcp.NewToolResultError("no"), nil
		})
		return srv
	}
}

func settle(t *testing.T, s *discovery.Supervisor) *discovery.Catalog {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	return s.Catalog()
}

// TestSupervisorStartsFromCache runs the Supervisor with a Store: the
// first run lists the server live and caches it; the second publishes the
// cached listing at once, marked stale, while the server is held back.
func TestSupervisorStartsFromCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	var calls atomic.Int64
	cfg := &discovery.Config{Servers: []discovery.ServerConfig{{Name: "demo", Key: "demo", Transport: "builtin", Builtin: "demo"}}}

	sup := discovery.Start(context.Background(), cfg, discovery.Options{
		Cache:    open(t, dir, Options{}),
		Builtins: map[string]func() *server.MCPServer{"demo": demo(&calls, nil)},
	})
	live, _ := settle(t, sup).Server("demo")
	sup.Close() // closes the store too
	if live.State != discovery.StateReady || live.Stale || live.ListedAt.IsZero() {
		t.Fatalf("first run: got %+v, want ready, not stale, with ListedAt", live)
	}

	gate := make(chan struct{})
	sup = discovery.Start(context.Background(), cfg, discovery.Options{
		Cache:    open(t, dir, Options{}),
		Builtins: map[string]func() *server.MCPServer{"demo": demo(&calls, gate)},
	})
	defer sup.Close()
	first, _ := sup.Catalog().Server("demo")
	if first.State != discovery.StateConnecting || !first.Stale || !first.ListedAt.Equal(live.ListedAt) || len(first.Tools) != len(live.Tools) {
		t.Errorf("second run, first catalog: got state %s stale %v listed %v with %d tools, want connecting, stale, listed %v, %d tools",
			first.State, first.Stale, first.ListedAt, len(first.Tools), live.ListedAt, len(live.Tools))
	}
	for i := range first.Tools {
		if !bytes.Equal(first.Tools[i].Raw, live.Tools[i].Raw) {
			t.Errorf("tool %d: cached %s, live %s", i, first.Tools[i].Raw, live.Tools[i].Raw)
		}
	}
	close(gate)
	now, _ := settle(t, sup).Server("demo")
	if now.State != discovery.StateReady || now.Stale || !now.ListedAt.After(live.ListedAt) {
		t.Errorf("after connecting: got %+v, want ready, not stale, listed anew", now)
	}
}

func TestSupervisorResultCache(t *testing.T) {
	var calls atomic.Int64
	store := open(t, "", Options{InMemory: true})
	sc := discovery.ServerConfig{Name: "demo", Key: "demo", Transport: "builtin", Builtin: "demo", CacheResults: time.Minute}
	off := sc
	off.Name, off.Key, off.CacheResults = "nocache", "nocache", 0
	sup := discovery.Start(context.Background(), &discovery.Config{Servers: []discovery.ServerConfig{sc, off}}, discovery.Options{
		Cache:    store,
		Builtins: map[string]func() *server.MCPServer{"demo": demo(&calls, nil)},
	})
	defer sup.Close()
	settle(t, sup)
	ctx := context.Background()
	call := func(ctx context.Context, server, tool, args string) string {
		t.Helper()
		res, err := sup.CallTool(ctx, server, tool, json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ Content []struct{ Text string } }
		_ = json.Unmarshal(res, &r)
		if len(r.Content) == 0 {
			return string(res)
		}
		return r.Content[0].Text
	}
	first := call(ctx, "demo", "count", `{"q":"a","z":1}`)
	cases := []struct {
		name       string
		ctx        context.Context
		server     string
		tool, args string
		cached     bool
	}{
		{"same call", ctx, "demo", "count", `{"q":"a","z":1}`, true},
		{"same args, other key order", ctx, "demo", "count", `{"z":1,"q":"a"}`, true},
		{"other args", ctx, "demo", "count", `{"q":"b"}`, false},
		{"bypassed", discovery.WithoutResultCache(ctx), "demo", "count", `{"q":"a","z":1}`, false},
		{"not read-only", ctx, "demo", "bump", `{}`, false},
		{"not opted in", ctx, "nocache", "count", `{"q":"a","z":1}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := calls.Load()
			got := call(tc.ctx, tc.server, tc.tool, tc.args)
			reached := calls.Load() > before
			if reached == tc.cached {
				t.Errorf("got %q (server reached: %v), want cached %v (first answer %q)", got, reached, tc.cached, first)
			}
			if tc.cached && got != first {
				t.Errorf("cached answer: got %q, want %q", got, first)
			}
		})
	}
	t.Run("isError not cached", func(t *testing.T) {
		call(ctx, "demo", "oops", `{}`)
		before := calls.Load()
		call(ctx, "demo", "oops", `{}`)
		if calls.Load() == before {
			t.Error("an isError result was served from the cache")
		}
	})
}

// TestLargeListing stores a listing far over Badger's value log file size
// in memory: large listings are kept compressed.
func TestLargeListing(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "cache"), Options{})
	defer s.Close()
	ct := sampleTools(0)
	for i := range 20000 { // about 12 MB of JSON
		name := fmt.Sprintf("tool%05d", i)
		ct.Tools = append(ct.Tools, discovery.Tool{Name: name, Raw: json.RawMessage(`{"name":"` + name + `","description":"` + strings.Repeat("does a thing with a widget; ", 16) + `","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}}}`)})
	}
	s.StoreTools("big", ct)
	got, ok := s.LoadTools("big")
	if !ok || len(got.Tools) != len(ct.Tools) || string(got.Tools[19999].Raw) != string(ct.Tools[19999].Raw) {
		t.Fatalf("large listing: got ok %v with %d tools, want all %d back", ok, len(got.Tools), len(ct.Tools))
	}
}

// The Store is the cache a discovery.Supervisor takes.
var _ discovery.Cache = (*Store)(nil)
