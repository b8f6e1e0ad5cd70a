package discovery

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestCrowdedConfig starts a generated config of 2,000 stdio servers: all
// are listed at once, they become ready a few at a time (never more than
// MaxStarts starting together), a call to one far down the list is served
// first, and Close ends it all within 2 s.
func TestCrowdedConfig(t *testing.T) {
	noLeaks(t)
	const n = 2000
	servers := map[string]any{}
	for i := range n {
		servers[fmt.Sprintf("s%04d", i)] = map[string]any{
			"command": os.Args[0],
			"args":    []string{"-test.run=^TestFaultServerProcess$"},
			"env":     map[string]string{faultEnv: "tools=2"},
		}
	}
	data, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse("crowd.json", data, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	log, _ := newTestLog(t)
	began := time.Now()
	s := Start(context.Background(), cfg, Options{Logger: log})
	closed := false
	defer func() {
		if !closed {
			s.Close()
		}
	}()
	if got := len(s.Catalog().Servers); got != n {
		t.Fatalf("servers listed at once: got %d, want %d", got, n)
	}
	t.Logf("all %d servers listed %v after Start", n, time.Since(began).Round(time.Microsecond))

	// A call to the last server is served ahead of the queue.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	callBegan := time.Now()
	if _, err := s.CallTool(ctx, "s1999", "echo", nil); err != nil {
		t.Fatalf("call to the last server: %v", err)
	}
	t.Logf("a call to the last server answered after %v", time.Since(callBegan).Round(time.Millisecond))

	ready := func() int {
		k := 0
		for _, ss := range s.Catalog().Servers {
			if ss.State == StateReady {
				k++
			}
		}
		return k
	}
	for end := time.Now().Add(60 * time.Second); ready() < 50; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("only %d servers ready after 60s", ready())
		}
	}
	r := ready()
	waiting, peak := s.starts.stats()
	t.Logf("%d ready after %v; %d waiting for a start slot; at most %d started at once", r, time.Since(began).Round(time.Millisecond), waiting, peak)
	if peak > DefaultMaxStarts {
		t.Errorf("servers starting at once: got %d, want at most %d", peak, DefaultMaxStarts)
	}
	procs := faultServerProcs()
	if r = ready(); procs > r+DefaultMaxStarts {
		t.Errorf("fault server processes: got %d with %d ready, want at most ready + %d", procs, r, DefaultMaxStarts)
	}
	for _, ss := range s.Catalog().Servers {
		if ss.State == StateFailed {
			t.Errorf("server %s failed: %s", ss.Name, ss.Err)
			break
		}
	}
	closeBegan := time.Now()
	s.Close()
	closed = true
	took := time.Since(closeBegan)
	t.Logf("Close with %d ready and %d queued: %v", r, n-r, took.Round(time.Millisecond))
	if took > 2*time.Second {
		t.Errorf("Close took %v, want at most 2s", took)
	}
	if !strings.HasPrefix(s.Catalog().Servers[0].Name, "s") {
		t.Errorf("catalog: got %+v", s.Catalog().Servers[0])
	}
}

// faultServerProcs counts this process's children running the fault
// server.
func faultServerProcs() int { return childProcs("TestFaultServerProcess") }

// childProcs counts this process's children whose command line holds sub.
func childProcs(sub string) int {
	entries, _ := os.ReadDir("/proc")
	me := fmt.Sprintf(" %d ", os.Getpid())
	k := 0
	for _, e := range entries {
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(stat), ')')
		// After ")": " S ppid ...".
		if i < 0 || !strings.HasPrefix(string(stat[i+2:]), string(stat[i+2])+me) {
			continue
		}
		if cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline"); strings.Contains(string(cmd), sub) {
			k++
		}
	}
	return k
}
