package discovery

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// TestRestartBackoffVirtual runs on virtual time: a built-in server that
// fails to start is started again after 1, 2, 4, 4, 4 s (doubling from
// RestartMinDelay up to RestartMaxDelay), each time exactly when the
// catalog said it would be; once it can start, a call to it starts it at
// once instead of waiting out the backoff.
func TestRestartBackoffVirtual(t *testing.T) {
	noLeaks(t)
	synctest.Test(t, testRestartBackoffVirtual)
}

func testRestartBackoffVirtual(t *testing.T) {
	var mu sync.Mutex
	var starts []time.Time
	fixed := false
	flaky := func() *server.MCPServer {
		mu.Lock()
		defer mu.Unlock()
		starts = append(starts, time.Now())
		if !fixed {
			return nil // a start that fails
		}
		return demoServer(0)
	}
	opts := Options{RestartMinDelay: time.Second, RestartMaxDelay: 4 * time.Second, Builtins: map[string]func() *server.MCPServer{"flaky": flaky}}
	s, _ := startSupervisor(t, opts, builtin("flaky"))
	began := time.Now()
	time.Sleep(20 * time.Second)
	synctest.Wait()

	ss, _ := s.Catalog().Server("flaky")
	mu.Lock()
	var got []time.Duration
	for _, at := range starts {
		got = append(got, at.Sub(began))
	}
	fixed = true
	mu.Unlock()
	want := []time.Duration{0, 1 * time.Second, 3 * time.Second, 7 * time.Second, 11 * time.Second, 15 * time.Second, 19 * time.Second}
	if len(got) != len(want) {
		t.Fatalf("starts at %v, want at %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("starts at %v, want at %v", got, want)
		}
	}
	if ss.State != StateFailed || ss.Restarts != 6 || ss.NextRetry.Sub(began) != 23*time.Second {
		t.Errorf("after 20s: state %s, %d restarts, next retry at %v; want failed, 6 restarts, next retry at 23s",
			ss.State, ss.Restarts, ss.NextRetry.Sub(began))
	}

	// The server can start now: a call starts it at once, at 20 s, not 23 s.
	if _, err := s.CallTool(context.Background(), "flaky", "echo", []byte(`{"text":"hi"}`)); err != nil {
		t.Fatalf("call after the server was fixed: %v", err)
	}
	if at := time.Since(began); at != 20*time.Second {
		t.Errorf("the call was answered at %v, want at 20s (a call starts a failed server at once)", at)
	}
	mu.Lock()
	n := len(starts)
	mu.Unlock()
	if n != len(want)+1 {
		t.Errorf("starts: got %d, want %d (one for the call)", n, len(want)+1)
	}
}
