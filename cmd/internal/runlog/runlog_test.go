package runlog

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/check"
)

func TestLog(t *testing.T) {
	var l Log
	first := l.Start("serve", "", "a.go", []byte("package main"))
	first.End(&exec.Result{Stdout: []byte("hi\n")}, nil)

	var events []Event
	past, stop := l.Follow(func(ev Event) { events = append(events, ev) })
	if len(past) != 1 || past[0].Face != "serve" || past[0].State != "ok" || past[0].Stdout != "hi\n" {
		t.Fatalf("past: %+v, want the first run, ok", past)
	}
	e := l.Start("cli", "", "b.go", []byte(strings.Repeat("x", MaxSource+10)))
	call := e.Wrap(func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"content":[]}`), nil
	})
	if _, err := call(context.Background(), "docs", "list", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	e.End(&exec.Result{Stdout: []byte(strings.Repeat("y", MaxOutput+1)), ExitCode: 2}, errors.New("exit status 2"))
	var kinds []string
	for _, ev := range events {
		switch {
		case ev.Call != nil:
			kinds = append(kinds, "call done="+map[bool]string{true: "yes", false: "no"}[ev.Call.Done]+" result="+string(ev.Result))
		default:
			kinds = append(kinds, "run "+ev.Run.State)
		}
	}
	want := []string{"run running", "call done=no result=", `call done=yes result={"content":[]}`, "run failed"}
	if strings.Join(kinds, "|") != strings.Join(want, "|") {
		t.Errorf("events %q, want %q", kinds, want)
	}
	last := events[len(events)-1].Run
	if len(last.Source) != MaxSource || len(last.Stdout) != MaxOutput || last.OutBytes != MaxOutput+1 || last.Exit != 2 || len(last.Calls) != 1 || last.Calls[0].ResultBytes != len(`{"content":[]}`) {
		t.Errorf("the run kept: source %d, stdout %d, out %d bytes, exit %d, calls %+v; want the bounds and the call", len(last.Source), len(last.Stdout), last.OutBytes, last.Exit, last.Calls)
	}
	stop()
	n := len(events)
	r := l.Start("mount", "", "c.go", nil)
	r.End(nil, check.ErrorList{&check.Error{Msg: "undefined: x"}})
	if len(events) != n {
		t.Errorf("events after stop: %d, want none", len(events)-n)
	}
	past, stop = l.Follow(func(Event) {})
	defer stop()
	if got := past[len(past)-1]; got.State != "refused" || got.Exit != -1 {
		t.Errorf("a run that did not pass the check: %+v, want refused", got)
	}
	for i := 0; i < MaxRuns+5; i++ {
		l.Start("cli", "", "d.go", nil).End(&exec.Result{}, nil)
	}
	if past, _ := l.Follow(func(Event) {}); len(past) != MaxRuns {
		t.Errorf("kept %d runs, want %d", len(past), MaxRuns)
	}
}

// TestStopWaits: stop waits for a call of the follower in progress, and
// none comes after it returns.
func TestStopWaits(t *testing.T) {
	var l Log
	entered, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	_, stop := l.Follow(func(Event) {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
		}
	})
	go l.Start("cli", "", "a.go", []byte("package main")) // publishes the start
	<-entered
	stopped := make(chan struct{})
	go func() {
		stop()
		close(stopped)
	}()
	select {
	case <-stopped:
		t.Fatal("stop returned while the follower was still being called")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-stopped
	n := calls.Load()
	l.Start("cli", "", "b.go", []byte("package main")).End(nil, nil)
	if got := calls.Load(); got != n {
		t.Fatalf("the follower was called %d more times after stop", got-n)
	}
}
