package discovery

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// memCache is a Cache in a map, for tests of the Supervisor's side of
// caching (package cache tests the real store with the Supervisor).
type memCache struct {
	mu      sync.Mutex
	tools   map[string]CachedTools
	results map[string]json.RawMessage
}

func newMemCache() *memCache {
	return &memCache{tools: map[string]CachedTools{}, results: map[string]json.RawMessage{}}
}

func (c *memCache) LoadTools(key string) (CachedTools, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.tools[key]
	return t, ok
}

func (c *memCache) StoreTools(key string, t CachedTools) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tools[key] = t
}

func (c *memCache) LoadResult(key string) (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.results[key]
	return r, ok
}

func (c *memCache) StoreResult(key string, r json.RawMessage, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.results[key] = r
}

// fastRestarts are restart delays short enough for tests.
func fastRestarts() Options {
	return Options{RestartMinDelay: 50 * time.Millisecond, RestartMaxDelay: 200 * time.Millisecond}
}

// callUntilOK calls echo until it succeeds, returning how long that took.
func callUntilOK(t *testing.T, s *Supervisor, server string) time.Duration {
	t.Helper()
	began := time.Now()
	var err error
	for end := began.Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err = s.CallTool(ctx, server, "echo", json.RawMessage(`{"text":"again"}`))
		cancel()
		if err == nil {
			return time.Since(began)
		}
	}
	t.Fatalf("echo on %s never succeeded again; last error: %v", server, err)
	return 0
}

func serverPID(s *Supervisor, name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cn := s.servers[name].conn; cn != nil && cn.proc != nil {
		return cn.proc.cmd.Process.Pid
	}
	return 0
}

// stderrTail returns the last stderr lines of the named server's process.
func stderrTail(s *Supervisor, name string) []string {
	s.mu.Lock()
	cn := s.servers[name].conn
	s.mu.Unlock()
	if cn == nil || cn.proc == nil {
		return nil
	}
	cn.proc.tailMu.Lock()
	defer cn.proc.tailMu.Unlock()
	return append([]string(nil), cn.proc.tail...)
}

func countRecords(h *testLog, subs ...string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range *h.records {
		all := true
		for _, s := range subs {
			all = all && strings.Contains(r, s)
		}
		if all {
			n++
		}
	}
	return n
}

// TestFaultTable runs the fault server's misbehaviours one by one: what a
// caller sees, how long it took (logged; the figures are in
// docs/RELIABILITY.md), and that the next call succeeds.
func TestFaultTable(t *testing.T) {
	noLeaks(t)
	cases := []struct {
		name, modes string
		opts        func(*Options)
		cfg         func(*ServerConfig)
		// act does the faulty thing and checks what the caller saw.
		act func(t *testing.T, s *Supervisor, h *testLog)
	}{
		{"crash on call", "", nil, nil, func(t *testing.T, s *Supervisor, h *testLog) {
			began := time.Now()
			_, err := s.CallTool(context.Background(), "f", "crash", nil)
			t.Logf("crash mid-call: the call failed after %v: %v", time.Since(began), err)
			if err == nil || !strings.Contains(err.Error(), "server process exited (exit status 1)") || !strings.Contains(err.Error(), "crashing on purpose") {
				t.Errorf("got %v, want the exit status and the last stderr line", err)
			}
		}},
		{"crash at start", "exit-first=" + filepath.Join(t.TempDir(), "started"), nil, nil, func(t *testing.T, s *Supervisor, h *testLog) {
			ss := mustServer(t, settle(t, s), "f", StateFailed)
			if !strings.Contains(ss.Err, "exit status 3") || ss.NextRetry.IsZero() {
				t.Errorf("got err %q next retry %v, want exit status 3 and a retry scheduled", ss.Err, ss.NextRetry)
			}
		}},
		{"hang", "", nil, nil, func(t *testing.T, s *Supervisor, h *testLog) {
			settle(t, s)
			pid := serverPID(s, "f")
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			began := time.Now()
			_, err := s.CallTool(ctx, "f", "sleep", nil)
			t.Logf("hung call: failed after %v: %v", time.Since(began), err)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("got %v, want context.DeadlineExceeded", err)
			}
			for end := time.Now().Add(5 * time.Second); !h.has("server stderr", "cancelled"); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatal("the server never saw notifications/cancelled")
				}
			}
			if got := serverPID(s, "f"); got != pid {
				t.Errorf("server pid: got %d after the timeout, want %d: a busy server must not be restarted", got, pid)
			}
		}},
		{"per-server call timeout", "", nil, func(sc *ServerConfig) { sc.CallTimeout = 200 * time.Millisecond }, func(t *testing.T, s *Supervisor, h *testLog) {
			if _, err := s.CallTool(context.Background(), "f", "sleep", nil); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("got %v, want context.DeadlineExceeded from the server's callTimeout", err)
			}
		}},
		{"slow start", "start-delay=1s", nil, nil, func(t *testing.T, s *Supervisor, h *testLog) {
			began := time.Now()
			_, err := s.CallTool(context.Background(), "f", "echo", nil)
			t.Logf("call while the server starts: answered after %v", time.Since(began))
			if err != nil {
				t.Errorf("got %v, want the call to wait for the server", err)
			}
		}},
		{"garbage on stdout", "garbage", nil, nil, func(t *testing.T, s *Supervisor, h *testLog) {
			for range 30 {
				if _, err := s.CallTool(context.Background(), "f", "echo", nil); err != nil {
					t.Fatal(err)
				}
			}
			n := countRecords(h, "skipping a line on stdout")
			t.Logf("31 exchanges with 3 garbage lines each: %d lines logged", n)
			if n == 0 || n > 3*rateLimitBurst {
				t.Errorf("skipped-line records: got %d, want between 1 and %d (rate-limited)", n, 3*rateLimitBurst)
			}
		}},
		{"huge response", "", func(o *Options) { o.MaxMessageBytes = 1 << 20 }, nil, func(t *testing.T, s *Supervisor, h *testLog) {
			began := time.Now()
			_, err := s.CallTool(context.Background(), "f", "huge", json.RawMessage(`{"size": 4000000}`))
			t.Logf("4 MB answer over a 1 MiB bound: failed after %v: %v", time.Since(began), err)
			if err == nil || !strings.Contains(err.Error(), "more than 1048576 bytes") {
				t.Errorf("got %v, want the frame bound named", err)
			}
			if _, err := s.CallTool(context.Background(), "f", "huge", json.RawMessage(`{"size": 500000}`)); err == nil {
				t.Log("(a 500 kB answer right after: served by the restarted server)")
			}
		}},
		{"stderr flood", "stderr-flood=50000", nil, nil, func(t *testing.T, s *Supervisor, h *testLog) {
			for range 20 {
				if _, err := s.CallTool(context.Background(), "f", "echo", nil); err != nil {
					t.Fatal(err)
				}
			}
			// Wait until mcpfs has read the flood's last line.
			last := "flood line 49999:"
			for end := time.Now().Add(20 * time.Second); !strings.Contains(strings.Join(stderrTail(s, "f"), "\n"), last); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatalf("%q not read from the server's stderr within 20s; its last lines: %q", last, stderrTail(s, "f"))
				}
			}
			n := countRecords(h, "server stderr", "flood line")
			t.Logf("50000 stderr lines: %d logged", n)
			if n == 0 || n > 50000/10 {
				t.Errorf("stderr records: got %d, want some, far fewer than 50000", n)
			}
		}},
		{"list_changed storm", "", nil, nil, func(t *testing.T, s *Supervisor, h *testLog) {
			settle(t, s)
			before := s.Catalog().Version
			began := time.Now()
			if _, err := s.CallTool(context.Background(), "f", "storm", json.RawMessage(`{"count": 5000}`)); err != nil {
				t.Fatal(err)
			}
			// Every notification came before the call's answer; wait for the
			// re-listing they cause (TestListChangedStorm counts them exactly,
			// on virtual time).
			for end := time.Now().Add(10 * time.Second); countRecords(h, "tools/list_changed, but the tools are the same") == 0; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatal("no re-listing within 10s of 5000 list_changed")
				}
			}
			relists := countRecords(h, "tools/list_changed, but the tools are the same")
			t.Logf("5000 list_changed in %v: %d re-listings, catalog versions %d → %d", time.Since(began), relists, before, s.Catalog().Version)
			if relists > 100 {
				t.Errorf("re-listings: got %d for one burst, want them coalesced", relists)
			}
			if s.Catalog().Version != before {
				t.Errorf("catalog version: got %d, want %d (the tools did not change)", s.Catalog().Version, before)
			}
		}},
		{"grandchild", "spawn-child", nil, nil, func(t *testing.T, s *Supervisor, h *testLog) {
			settle(t, s)
			child := waitChildPID(t, h)
			pid := serverPID(s, "f")
			// Kill only the server, not its group: mcpfs must end the rest.
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			waitGone(t, child)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := fastRestarts()
			if tc.opts != nil {
				tc.opts(&opts)
			}
			modes := "more-tools"
			if tc.modes != "" {
				modes += "," + tc.modes
			}
			sc := faultServer("f", modes)
			if tc.cfg != nil {
				tc.cfg(&sc)
			}
			s, h := startSupervisor(t, opts, sc)
			tc.act(t, s, h)
			t.Logf("next call succeeded after %v", callUntilOK(t, s, "f"))
		})
	}
}

var childPIDRe = regexp.MustCompile(`child pid (\d+)`)

func waitChildPID(t *testing.T, h *testLog) int {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		h.mu.Lock()
		for _, r := range *h.records {
			if m := childPIDRe.FindStringSubmatch(r); m != nil {
				h.mu.Unlock()
				pid, _ := strconv.Atoi(m[1])
				return pid
			}
		}
		h.mu.Unlock()
	}
	t.Fatal("the server never reported its child's pid")
	return 0
}

// waitGone waits until pid no longer exists (reaping by init may trail).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	var err error
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if err = syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
	}
	t.Errorf("process %d: kill(pid, 0) got %v, want ESRCH: it outlived its server", pid, err)
}

// TestRestartBackoff checks the restart delays of a server that always
// fails: doubling from the minimum to the cap.
func TestRestartBackoff(t *testing.T) {
	noLeaks(t)
	opts := Options{RestartMinDelay: 20 * time.Millisecond, RestartMaxDelay: 80 * time.Millisecond}
	s, _ := startSupervisor(t, opts, faultServer("f", "exit"))
	watch, stop := s.Watch()
	defer stop()
	var delays []time.Duration
	lastRestarts := -1
	for end := time.After(20 * time.Second); len(delays) < 5; {
		select {
		case c := <-watch:
			ss, _ := c.Server("f")
			if ss.State == StateFailed && ss.Restarts != lastRestarts {
				lastRestarts = ss.Restarts
				delays = append(delays, ss.NextRetry.Sub(ss.Since))
			}
		case <-end:
			t.Fatalf("only %d failures seen in 20s: %v", len(delays), delays)
		}
	}
	want := []time.Duration{20, 40, 80, 80, 80}
	for i := range want {
		if delays[i] != want[i]*time.Millisecond {
			t.Errorf("delays: got %v, want %v ms", delays, want)
			break
		}
	}
	if lastRestarts < 4 {
		t.Errorf("restarts: got %d, want at least 4", lastRestarts)
	}
}

// TestRestartBackoffResets checks that a server that was healthy long
// enough starts over at the minimum delay.
func TestRestartBackoffResets(t *testing.T) {
	noLeaks(t)
	opts := fastRestarts()
	opts.HealthyUptime = time.Nanosecond
	s, _ := startSupervisor(t, opts, faultServer("f", "more-tools"))
	settle(t, s)
	for i := range 3 {
		_, _ = s.CallTool(context.Background(), "f", "crash", nil)
		ss, _ := s.Catalog().Server("f")
		if d := ss.NextRetry.Sub(ss.Since); ss.State == StateFailed && d != opts.RestartMinDelay {
			t.Errorf("crash %d: delay got %v, want %v after a healthy run", i, d, opts.RestartMinDelay)
		}
		callUntilOK(t, s, "f")
	}
}

// TestCallKicksFailedServer checks that a call to a failed server starts it
// at once instead of waiting out a long backoff.
func TestCallKicksFailedServer(t *testing.T) {
	noLeaks(t)
	opts := Options{RestartMinDelay: 10 * time.Millisecond, RestartMaxDelay: time.Hour}
	marker := filepath.Join(t.TempDir(), "started")
	s, _ := startSupervisor(t, opts, faultServer("f", "exit-first="+marker))
	ss := mustServer(t, settle(t, s), "f", StateFailed)
	t.Logf("first start failed; next retry in %v", time.Until(ss.NextRetry))
	time.Sleep(time.Until(ss.Since.Add(opts.RestartMinDelay))) // to the end of the minimum delay
	began := time.Now()
	if _, err := s.CallTool(context.Background(), "f", "echo", nil); err != nil {
		t.Fatalf("got %v, want the call to restart the server and succeed", err)
	}
	t.Logf("call to a failed server: restarted and answered in %v", time.Since(began))
	if ss, _ := s.Catalog().Server("f"); ss.Restarts != 1 {
		t.Errorf("restarts: got %d, want 1", ss.Restarts)
	}
}

// TestStaleFromCache checks that cached listings are published at once,
// marked stale, and replaced by the live one; and that a server that fails
// keeps its last listing, marked stale.
func TestStaleFromCache(t *testing.T) {
	noLeaks(t)
	mc := newMemCache()
	sc := faultServer("f", "start-delay=300ms,more-tools")
	listed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	mc.tools[ServerKey(sc)] = CachedTools{ListedAt: listed, ServerName: "cached", Tools: []Tool{{Name: "old", Raw: json.RawMessage(`{"name":"old"}`)}}}
	opts := fastRestarts()
	opts.Cache = mc
	s, _ := startSupervisor(t, opts, sc)
	first, _ := s.Catalog().Server("f")
	if first.State != StateConnecting || !first.Stale || !first.ListedAt.Equal(listed) || first.ServerName != "cached" || len(first.Tools) != 1 {
		t.Errorf("first catalog: got %+v, want the cached listing, stale, connecting", first)
	}
	live := mustServer(t, settle(t, s), "f", StateReady)
	if live.Stale || !live.ListedAt.After(listed) || len(live.Tools) != 8 {
		t.Errorf("live: got stale %v listed %v with %d tools, want a fresh listing of 8", live.Stale, live.ListedAt, len(live.Tools))
	}
	// The live listing is stored right after it is published: poll.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		ct, ok := mc.LoadTools(ServerKey(sc))
		if ok && len(ct.Tools) == 8 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("cache after listing: got %d tools, want the live 8", len(ct.Tools))
			break
		}
	}
	_, _ = s.CallTool(context.Background(), "f", "crash", nil)
	failed, _ := s.Catalog().Server("f")
	if failed.State == StateFailed && (!failed.Stale || len(failed.Tools) != 8) {
		t.Errorf("after a crash: got stale %v with %d tools, want the last listing kept, stale", failed.Stale, len(failed.Tools))
	}
}

func TestServerKeyHasNoSecrets(t *testing.T) {
	base := ServerConfig{Transport: "http", URL: "https://u:pw-secret@example.test/mcp?token=tok-secret&v=1", Headers: map[string]string{"Authorization": "Bearer hdr-secret"}}
	other := base
	other.URL = "https://u:other-pw@example.test/mcp?token=other-tok&v=2"
	other.Headers = map[string]string{"authorization": "Bearer other"}
	if ServerKey(base) != ServerKey(other) {
		t.Error("keys differ when only secret values differ: they must not depend on them")
	}
	moved := base
	moved.URL = "https://example.test/other"
	if ServerKey(base) == ServerKey(moved) {
		t.Error("keys equal for different URLs")
	}
	a := ServerConfig{Transport: "stdio", Command: "srv", Env: map[string]string{"TOKEN": "a"}}
	b := ServerConfig{Transport: "stdio", Command: "srv", Env: map[string]string{"TOKEN": "b"}}
	c := ServerConfig{Transport: "stdio", Command: "srv", Env: map[string]string{"OTHER": "a"}}
	if ServerKey(a) != ServerKey(b) || ServerKey(a) == ServerKey(c) {
		t.Error("stdio keys: want env names, not values, to count")
	}
}

func TestRedactor(t *testing.T) {
	r := newRedactor(ServerConfig{
		Env:     map[string]string{"TOKEN": "s3cr3t-value", "DEBUG": "1", "HOME_DIR": os.TempDir()},
		Headers: map[string]string{"Authorization": "Bearer hdr-token-xyz"},
		URL:     "https://user:pass-word@h.test/mcp?key=a+b%2Fc-d&other=x%20y%2Bzzz",
	})
	cases := []struct{ in, want string }{
		{"env s3cr3t-value here", "env [redacted] here"},
		{"auth Bearer hdr-token-xyz", "auth [redacted]"},
		{"just hdr-token-xyz", "just [redacted]"},
		{"url https://user:pass-word@h.test/mcp?key=a+b%2Fc-d&other=x%20y%2Bzzz", "url https://[redacted]@h.test/mcp?key=[redacted]&other=[redacted]"},
		{"decoded: a b/c-d and x y+zzz", "decoded: [redacted] and [redacted]"},
		{"debug=1 stays", "debug=1 stays"},
		{"dir " + os.TempDir() + " stays", "dir " + os.TempDir() + " stays"},
	}
	for _, tc := range cases {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("String(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
	err := r.Error(fmt.Errorf("wrapped: %w: s3cr3t-value", context.Canceled))
	if strings.Contains(err.Error(), "s3cr3t") || !errors.Is(err, context.Canceled) {
		t.Errorf("Error: got %q (is Canceled %v), want it redacted and still Canceled", err, errors.Is(err, context.Canceled))
	}
}

// TestSupervisorHelperProcess is not a test: re-executed with
// MCPFS_SUPERVISOR_HELPER set, it runs a Supervisor with one server that
// starts a child, prints its log to stdout and waits to be killed.
func TestSupervisorHelperProcess(t *testing.T) {
	if os.Getenv("MCPFS_SUPERVISOR_HELPER") == "" {
		t.Skip("helper process for TestKill9LeavesNoProcesses; runs only when re-executed")
	}
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := Start(context.Background(), &Config{Servers: []ServerConfig{faultServer("parent", "spawn-child")}}, Options{Logger: log})
	_ = s.Settle(context.Background())
	fmt.Println("settled")
	select {}
}

// TestKill9LeavesNoProcesses kills an mcpfs process with SIGKILL and checks
// that its server and the server's own child end too.
func TestKill9LeavesNoProcesses(t *testing.T) {
	cmd := osexec.Command(os.Args[0], "-test.run=^TestSupervisorHelperProcess$")
	cmd.Env = append(os.Environ(), "MCPFS_SUPERVISOR_HELPER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	serverRe := regexp.MustCompile(`msg=started .*pid=(\d+)`)
	var server, child int
	sc := bufio.NewScanner(out)
	for sc.Scan() && (server == 0 || child == 0) {
		if m := serverRe.FindStringSubmatch(sc.Text()); m != nil {
			server, _ = strconv.Atoi(m[1])
		}
		if m := childPIDRe.FindStringSubmatch(sc.Text()); m != nil {
			child, _ = strconv.Atoi(m[1])
		}
	}
	if server == 0 || child == 0 {
		t.Fatalf("helper did not report the server's pid (%d) and its child's (%d)", server, child)
	}
	go func() { // keep draining
		for sc.Scan() {
		}
	}()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitGone(t, server)
	waitGone(t, child)
}
