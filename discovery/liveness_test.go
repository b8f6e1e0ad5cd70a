package discovery

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStoppedStdioServer stops a stdio server with SIGSTOP while a call to
// it waits: the server is pinged, marked failed after two unanswered
// pings, its group killed (the waiting call fails at once, saying why) and
// started again; the next call succeeds.
func TestStoppedStdioServer(t *testing.T) {
	noLeaks(t)
	opts := fastRestarts()
	opts.PingInterval = 100 * time.Millisecond
	sc := faultServer("f", "more-tools")
	sc.CallTimeout = 30 * time.Second
	s, _ := startSupervisor(t, opts, sc)
	settle(t, s)
	pid := serverPID(s, "f")
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })

	errc := make(chan error, 1)
	go func() {
		_, err := s.CallTool(context.Background(), "f", "sleep", nil)
		errc <- err
	}()
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		s.mu.Lock()
		cn := s.servers["f"].conn
		s.mu.Unlock()
		if cn != nil && cn.inflight.Load() == 1 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the call never went out")
		}
	}
	stopProcess(t, pid)
	stopped := time.Now()
	var err error
	select {
	case err = <-errc:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting call did not end within 10s of SIGSTOP")
	}
	t.Logf("SIGSTOP: the waiting call failed after %v: %v", time.Since(stopped).Round(time.Millisecond), err)
	if err == nil || !strings.Contains(err.Error(), "stopped answering") || !strings.Contains(err.Error(), "SIGSTOP") {
		t.Errorf("got %v, want the server's failure named (stopped answering, SIGSTOP)", err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want the failure, not the call's timeout", err)
	}
	ss, _ := s.Catalog().Server("f")
	t.Logf("state after: %s, %q", ss.State, ss.Err)
	took := callUntilOK(t, s, "f")
	t.Logf("next call succeeded %v after the failure (restart)", took.Round(time.Millisecond))
	if got := serverPID(s, "f"); got == pid {
		t.Errorf("server pid: still %d, want a new process", got)
	}
	waitGone(t, pid)
}

// TestStoppedStdioServerShortCallTimeout stops a stdio server whose calls
// time out sooner than two pings: the call that ran out of time keeps the
// pings going, so the server is still found stopped and restarted.
func TestStoppedStdioServerShortCallTimeout(t *testing.T) {
	noLeaks(t)
	opts := fastRestarts()
	opts.PingInterval = 100 * time.Millisecond
	sc := faultServer("f", "more-tools")
	sc.CallTimeout = 150 * time.Millisecond
	s, _ := startSupervisor(t, opts, sc)
	settle(t, s)
	pid := serverPID(s, "f")
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	stopProcess(t, pid)
	stopped := time.Now()
	if _, err := s.CallTool(context.Background(), "f", "echo", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call to the stopped server: got %v, want its callTimeout", err)
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		ss, _ := s.Catalog().Server("f")
		if ss.State == StateFailed || ss.Restarts > 0 {
			t.Logf("found stopped %v after SIGSTOP, with no call waiting: %s", time.Since(stopped).Round(time.Millisecond), ss.Err)
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the stopped server is still %s 10s after its call timed out", ss.State)
		}
	}
	callUntilOK(t, s, "f")
}

// stopProcess sends SIGSTOP to pid and waits until the kernel reports it
// stopped.
func stopProcess(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(5 * time.Second); processState(pid) == ""; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("process %d not stopped 5s after SIGSTOP", pid)
		}
	}
}
