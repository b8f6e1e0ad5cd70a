package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// TestCallTimeoutVirtual checks, on virtual time, that the server's call
// timeout bounds a call even when the caller's deadline is later, and that
// the caller's deadline wins when it is sooner.
func TestCallTimeoutVirtual(t *testing.T) {
	cases := []struct {
		name          string
		callTimeout   time.Duration
		callerTimeout time.Duration
		want          time.Duration
		wantCause     bool // the error names the server's callTimeout
	}{
		{"callTimeout sooner than the caller", 5 * time.Second, 20 * time.Second, 5 * time.Second, true},
		{"caller sooner than callTimeout", 5 * time.Second, 2 * time.Second, 2 * time.Second, false},
		{"no caller deadline", 3 * time.Second, 0, 3 * time.Second, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sc := builtin("demo")
				sc.CallTimeout = tc.callTimeout
				s := Start(context.Background(), &Config{Servers: []ServerConfig{sc}}, Options{
					Builtins: map[string]func() *server.MCPServer{"demo": func() *server.MCPServer { return demoServer(0) }},
				})
				defer s.Close()
				if err := s.Settle(context.Background()); err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				if tc.callerTimeout > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tc.callerTimeout)
					defer cancel()
				}
				began := time.Now()
				_, err := s.CallTool(ctx, "demo", "slow", nil)
				if got := time.Since(began); got != tc.want {
					t.Errorf("the call ended after %v, want %v", got, tc.want)
				}
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("got %v, want context.DeadlineExceeded", err)
				}
				if got := err != nil && strings.Contains(err.Error(), "callTimeout"); got != tc.wantCause {
					t.Errorf("error %q names the callTimeout: got %v, want %v", err, got, tc.wantCause)
				}
			})
		})
	}
}

// TestCallTimeoutStdio runs the fault server's hung, wrong-id and late
// answers under a caller deadline far later than the server's callTimeout,
// as a snippet's calls have: each call ends at the callTimeout with an
// error the caller can test, the server is told to cancel, and the server
// stays up for the next call.
func TestCallTimeoutStdio(t *testing.T) {
	noLeaks(t)
	const callTimeout = 300 * time.Millisecond
	sc := faultServer("f", "more-tools")
	sc.CallTimeout = callTimeout
	s, h := startSupervisor(t, fastRestarts(), sc)
	settle(t, s)
	pid := serverPID(s, "f")
	for _, tc := range []struct{ tool, args string }{
		{"sleep", ""},
		{"wrongid", ""},
		{"late", `{"ms": 900}`},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // the run's deadline
		began := time.Now()
		_, err := s.CallTool(ctx, "f", tc.tool, json.RawMessage(tc.args))
		took := time.Since(began)
		cancel()
		t.Logf("%s: ended after %v: %v", tc.tool, took.Round(time.Millisecond), err)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "callTimeout") {
			t.Errorf("%s: got %v, want context.DeadlineExceeded naming the callTimeout", tc.tool, err)
		}
		if took > 10*callTimeout {
			t.Errorf("%s: the call took %v; want it ended near the callTimeout (%v)", tc.tool, took, callTimeout)
		}
	}
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if countRecords(h, "server stderr", "cancelled") >= 3 && h.has("answer arrived after its request was cancelled") {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("want 3 cancellations seen by the server and the late answer dropped; got %d, late seen %v",
				countRecords(h, "server stderr", "cancelled"), h.has("answer arrived after its request was cancelled"))
		}
	}
	if n := countRecords(h, "id mcpfs never sent"); n != 1 {
		t.Errorf("unknown-id warnings: got %d, want 1 (the wrongid answer)", n)
	}
	if n := countRecords(h, "id mcpfs never sent", `"mcpfs-4"`); n != 0 {
		t.Errorf("the late answer (mcpfs-4) was reported as unknown")
	}
	if got := serverPID(s, "f"); got != pid {
		t.Errorf("server pid: got %d, want %d: timeouts must not restart it", got, pid)
	}
	if _, err := s.CallTool(context.Background(), "f", "echo", nil); err != nil {
		t.Errorf("echo after the timeouts: %v", err)
	}
}
