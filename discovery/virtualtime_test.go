package discovery

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestConnectTimeoutVirtual runs on virtual time: a server that never
// answers tools/list while it connects is failed exactly at the
// ConnectTimeout (or the server's own timeout), saying which step ran out
// of time, and started again after RestartMinDelay.
func TestConnectTimeoutVirtual(t *testing.T) {
	noLeaks(t)
	for _, tc := range []struct {
		name          string
		serverTimeout time.Duration
		want          time.Duration
	}{
		{"ConnectTimeout", 0, 5 * time.Second},
		{"the server's timeout", 2 * time.Second, 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				var lists []time.Time
				hooks := &server.Hooks{}
				hooks.AddBeforeListTools(func(ctx context.Context, id any, req *mcp.ListToolsRequest) {
					mu.Lock()
					lists = append(lists, time.Now())
					mu.Unlock()
					<-ctx.Done() // never answers in time
				})
				hung := func() *server.MCPServer { return demoServer(0, server.WithHooks(hooks)) }
				opts := Options{ConnectTimeout: 5 * time.Second, RestartMinDelay: time.Second, RestartMaxDelay: time.Second,
					Builtins: map[string]func() *server.MCPServer{"hung": hung}}
				sc := builtin("hung")
				sc.Timeout = tc.serverTimeout
				s, _ := startSupervisor(t, opts, sc)
				began := time.Now()
				if err := s.Settle(context.Background()); err != nil {
					t.Fatal(err)
				}
				ss, _ := s.Catalog().Server("hung")
				if took := time.Since(began); took != tc.want || ss.State != StateFailed {
					t.Errorf("settled after %v in state %s, want failed after %v", took, ss.State, tc.want)
				}
				if !strings.Contains(ss.Err, "list tools") || !strings.Contains(ss.Err, "no answer within "+tc.want.String()) {
					t.Errorf("error %q, want it to name the step (list tools) and the time it had (%v)", ss.Err, tc.want)
				}
				time.Sleep(time.Until(began.Add(tc.want + time.Second + tc.want/2))) // into the second attempt
				synctest.Wait()
				mu.Lock()
				defer mu.Unlock()
				if len(lists) != 2 || lists[1].Sub(began) != tc.want+time.Second {
					t.Errorf("tools/list asked at %v after the start, want at 0s and %v", durationsSince(began, lists), tc.want+time.Second)
				}
			})
		})
	}
}

func durationsSince(t0 time.Time, ts []time.Time) []time.Duration {
	var ds []time.Duration
	for _, t := range ts {
		ds = append(ds, t.Sub(t0))
	}
	return ds
}

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
