package engine

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/builtin"
	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/worker"
)

// TestMain lets the engine's runner re-execute this test binary as a
// snippet worker.
func TestMain(m *testing.M) {
	if worker.IsWorker() {
		os.Exit(worker.Main())
	}
	os.Exit(m.Run())
}

// startTestEngine starts an engine of the built-in default config.
func startTestEngine(t *testing.T) *Engine {
	t.Helper()
	e := Start(context.Background(), discovery.DefaultConfig(), Options{
		DataDir:  t.TempDir(),
		Builtins: map[string]func() *server.MCPServer{"docstore": builtin.NewDocstore},
	})
	t.Cleanup(e.Close)
	return e
}

// TestRunSlots fills the engine's run slots: the next run says at once
// that it waits, and its wait counts against its time limit.
func TestRunSlots(t *testing.T) {
	e := startTestEngine(t)
	sleeper := []byte("package main\n\nimport \"time\"\n\nfunc main() { time.Sleep(20 * time.Second) }\n")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range MaxRuns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.RunWith(ctx, "sleep.go", sleeper, RunOptions{Timeout: time.Minute})
		}()
	}
	defer func() { cancel(); wg.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for len(e.slots) < MaxRuns {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d slots taken", len(e.slots), MaxRuns)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var waited atomic.Int64
	start := time.Now()
	_, err := e.RunWith(context.Background(), "hello.go", []byte("package main\n\nfunc main() {}\n"),
		RunOptions{Timeout: 300 * time.Millisecond, Waiting: func(n int) { waited.Store(int64(n)) }})
	var re *exec.RunError
	if !errors.As(err, &re) || !errors.Is(re.Kind, exec.ErrTimeout) || !strings.Contains(err.Error(), "run slot") {
		t.Fatalf("a run behind %d runs: got %v, want a timeout waiting for a slot", MaxRuns, err)
	}
	if waited.Load() != MaxRuns {
		t.Errorf("Waiting was told %d runs, want %d", waited.Load(), MaxRuns)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("the waiting run ended after %v, past its 300ms limit", el)
	}
}
