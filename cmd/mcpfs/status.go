package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpfs/mcpfs/exec"
)

// runStatus is the one line `mcpfs run` keeps at the bottom of a terminal
// while a run goes on: what it waits for (servers still connecting), then
// how long it has run and its tool calls, in flight and done:
//
//	⠙ waiting for github (connecting, 3 s)
//	⠹ running 2.4 s · 2 calls in flight · 5 done
//
// The snippet's output streams above it: every write of it clears the
// line first, and the line comes back at the next tick, unless the output
// stopped inside a line (the line would overwrite it). A nil *runStatus
// does nothing: stderr is not a terminal, or the output is JSON.
type runStatus struct {
	term  io.Writer // the terminal: the command's stderr
	start time.Time

	inFlight atomic.Int64
	done     atomic.Int64

	mu         sync.Mutex // guards the terminal and what follows
	shown      bool
	midLine    bool // the last output did not end a line
	connecting []string
	connSince  time.Time
	frame      int

	stopc chan struct{}
	wg    sync.WaitGroup
}

// statusTick is how often the line is redrawn (the spinner's pace).
const statusTick = 100 * time.Millisecond

// spinner are the frames of the line's first character.
var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// newRunStatus starts the status line on the command's stderr when it is
// a terminal and asJSON is false; nil otherwise.
func (g *globals) newRunStatus(asJSON bool) *runStatus {
	if asJSON || !g.stderrTTY() {
		return nil
	}
	s := &runStatus{term: g.stderr, start: time.Now(), stopc: make(chan struct{})}
	s.wg.Add(1)
	go s.loop()
	return s
}

func (s *runStatus) loop() {
	defer s.wg.Done()
	t := time.NewTicker(statusTick)
	defer t.Stop()
	for {
		select {
		case <-s.stopc:
			return
		case now := <-t.C:
			s.mu.Lock()
			s.drawLocked(now)
			s.mu.Unlock()
		}
	}
}

// text is the line at now, "" when there is nothing to say yet.
func (s *runStatus) textLocked(now time.Time) string {
	var parts []string
	switch {
	case len(s.connecting) > 0:
		parts = append(parts, fmt.Sprintf("waiting for %s (connecting, %d s)", strings.Join(s.connecting, ", "), int(now.Sub(s.connSince).Seconds())))
	case now.Sub(s.start) >= time.Second:
		parts = append(parts, fmt.Sprintf("running %.1f s", now.Sub(s.start).Seconds()))
	default:
		return ""
	}
	if n := s.inFlight.Load(); n > 0 {
		parts = append(parts, plural(int(n), "call")+" in flight")
	}
	if n := s.done.Load(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d done", n))
	}
	return strings.Join(parts, " · ")
}

func (s *runStatus) drawLocked(now time.Time) {
	text := s.textLocked(now)
	if text == "" || s.midLine {
		return
	}
	s.frame++
	fmt.Fprintf(s.term, "\r\033[K%s %s", spinner[s.frame%len(spinner)], text)
	s.shown = true
}

func (s *runStatus) clearLocked() {
	if s.shown {
		fmt.Fprint(s.term, "\r\033[K")
		s.shown = false
	}
}

// stop clears the line for good.
func (s *runStatus) stop() {
	if s == nil {
		return
	}
	close(s.stopc)
	s.wg.Wait()
	s.mu.Lock()
	s.clearLocked()
	s.mu.Unlock()
}

// serversConnecting is engine.RunOptions.Connecting.
func (s *runStatus) serversConnecting(names []string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.connecting) == 0 && len(names) > 0 {
		s.connSince = time.Now()
	}
	s.connecting = names
}

// countCalls wraps the run's call function to count the calls in flight
// and done.
func (s *runStatus) countCalls(call exec.CallFunc) exec.CallFunc {
	return func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
		s.inFlight.Add(1)
		defer func() {
			s.inFlight.Add(-1)
			s.done.Add(1)
		}()
		return call(ctx, server, tool, args)
	}
}

// output returns w for the run's output: each write clears the line
// first.
func (s *runStatus) output(w io.Writer) io.Writer {
	if s == nil {
		return w
	}
	return statusWriter{s, w}
}

type statusWriter struct {
	s *runStatus
	w io.Writer
}

func (sw statusWriter) Write(p []byte) (int, error) {
	sw.s.mu.Lock()
	defer sw.s.mu.Unlock()
	sw.s.clearLocked()
	if len(p) > 0 {
		sw.s.midLine = p[len(p)-1] != '\n'
	}
	return sw.w.Write(p)
}
