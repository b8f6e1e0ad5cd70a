// Package runlog is an engine's short history of the snippet runs it made,
// whichever face asked (serve's exec tool, `mcpfs run`, a mount's run/, the
// page), with their tool calls as they happen: what the page's run history
// shows of runs it did not start.
//
// A Log is bounded: it keeps the newest MaxRuns runs, and of each the
// source, output and calls up to fixed sizes. A call's result is handed to
// the followers when the call ends and is never kept.
package runlog

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/check"
)

// Bounds of what a Log keeps.
const (
	MaxRuns   = 50       // runs kept, newest
	MaxSource = 32 << 10 // bytes of a run's source kept
	MaxOutput = 16 << 10 // bytes of each of stdout and stderr kept
	MaxCalls  = 1000     // calls of one run kept (the count goes on)
)

// Call is one tool call of a run.
type Call struct {
	N           int       `json:"n"`
	Server      string    `json:"server"`
	Tool        string    `json:"tool"`
	Start       time.Time `json:"start"`
	Ms          float64   `json:"ms"`
	ArgBytes    int       `json:"argBytes"`
	ResultBytes int       `json:"resultBytes"`
	Err         string    `json:"err,omitempty"`
	Done        bool      `json:"done"`
}

// Run is one run, as far as it has got.
type Run struct {
	ID   uint64 `json:"id"`
	Face string `json:"face"` // cli, serve, mount, ui
	// Tag says who started the run within its face (a page's own
	// runs carry the page's tag); "" for most.
	Tag      string    `json:"tag,omitempty"`
	Filename string    `json:"filename"`
	Source   string    `json:"source"` // cut at MaxSource
	Started  time.Time `json:"started"`
	State    string    `json:"state"` // running, ok, failed, refused
	Ms       float64   `json:"ms"`
	Exit     int       `json:"exit"`
	Error    string    `json:"error,omitempty"`
	Stdout   string    `json:"stdout"` // cut at MaxOutput
	Stderr   string    `json:"stderr"`
	// OutBytes is how many bytes the snippet printed (before any cut).
	OutBytes int    `json:"outBytes"`
	Calls    []Call `json:"calls"`
	// NCalls counts every call, also those past MaxCalls.
	NCalls int `json:"nCalls"`
}

// Event is a change of one run: it started, a call started or ended, or
// it ended.
type Event struct {
	// Run is a copy of the run as it is after the change; in a call's
	// event, without its Calls (nil).
	Run Run
	// Call is the call that started or ended; nil for the run's start and
	// end.
	Call *Call
	// Result is the ended call's result as the server returned it; it is
	// shared with the snippet and must not be changed or kept.
	Result json.RawMessage
}

// Log is the history. The zero value is an empty Log.
type Log struct {
	mu     sync.Mutex
	runs   []*Run // oldest first
	next   uint64
	subs   map[int]*follower
	nextID int
}

// Follow calls f with every event from now on, from the goroutines of the
// runs (f must not block), and returns the runs kept so far, oldest
// first. stop ends it: once stop returns, f is not called again (stop waits
// for a call in progress, so f must not call stop).
func (l *Log) Follow(f func(Event)) (past []Run, stop func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.runs {
		past = append(past, r.copy())
	}
	l.nextID++
	id := l.nextID
	if l.subs == nil {
		l.subs = map[int]*follower{}
	}
	fl := &follower{f: f}
	l.subs[id] = fl
	return past, func() {
		l.mu.Lock()
		delete(l.subs, id)
		l.mu.Unlock()
		fl.stop()
	}
}

// follower is one Follow: its function is called outside the Log's lock,
// and stop waits for a call in progress, so that none comes after it.
type follower struct {
	mu      sync.RWMutex
	f       func(Event)
	stopped bool
}

func (fl *follower) call(ev Event) {
	fl.mu.RLock()
	defer fl.mu.RUnlock()
	if !fl.stopped {
		fl.f(ev)
	}
}

func (fl *follower) stop() {
	fl.mu.Lock()
	fl.stopped = true
	fl.mu.Unlock()
}

// Entry is one run being recorded.
type Entry struct {
	l *Log
	r *Run
}

// Start records the start of a run from face.
func (l *Log) Start(face, tag, filename string, src []byte) *Entry {
	if len(src) > MaxSource {
		src = src[:MaxSource]
	}
	l.mu.Lock()
	l.next++
	r := &Run{ID: l.next, Face: face, Tag: tag, Filename: filename, Source: string(src), Started: time.Now(), State: "running", Calls: []Call{}}
	l.runs = append(l.runs, r)
	if len(l.runs) > MaxRuns {
		l.runs = append(l.runs[:0:0], l.runs[len(l.runs)-MaxRuns:]...)
	}
	l.mu.Unlock()
	e := &Entry{l: l, r: r}
	e.publish(nil, nil)
	return e
}

// publish sends the run as it is now (and the call, when set) to every
// follower.
func (e *Entry) publish(c *Call, result json.RawMessage) {
	e.l.mu.Lock()
	if len(e.l.subs) == 0 {
		e.l.mu.Unlock()
		return
	}
	ev := Event{Call: c, Result: result}
	if c != nil {
		ev.Run = *e.r
		ev.Run.Calls = nil
	} else {
		ev.Run = e.r.copy()
	}
	subs := make([]*follower, 0, len(e.l.subs))
	for _, fl := range e.l.subs {
		subs = append(subs, fl)
	}
	e.l.mu.Unlock()
	for _, fl := range subs {
		fl.call(ev)
	}
}

// Wrap returns next recording each call in the run.
func (e *Entry) Wrap(next exec.CallFunc) exec.CallFunc {
	return func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
		e.l.mu.Lock()
		e.r.NCalls++
		c := Call{N: e.r.NCalls, Server: server, Tool: tool, Start: time.Now(), ArgBytes: len(args)}
		kept := len(e.r.Calls) < MaxCalls
		if kept {
			e.r.Calls = append(e.r.Calls, c)
		}
		e.l.mu.Unlock()
		started := c
		e.publish(&started, nil)
		out, err := next(ctx, server, tool, args)
		c.Ms = float64(time.Since(c.Start).Microseconds()) / 1000
		c.ResultBytes, c.Done = len(out), true
		if err != nil {
			c.Err = err.Error()
		}
		if kept {
			e.l.mu.Lock()
			for i := len(e.r.Calls) - 1; i >= 0; i-- {
				if e.r.Calls[i].N == c.N {
					e.r.Calls[i] = c
					break
				}
			}
			e.l.mu.Unlock()
		}
		e.publish(&c, out)
		return out, err
	}
}

// End records how the run ended: its result, or the error that stopped
// it (a check.ErrorList is a refused run).
func (e *Entry) End(res *exec.Result, err error) {
	e.l.mu.Lock()
	r := e.r
	r.Ms = float64(time.Since(r.Started).Microseconds()) / 1000
	switch {
	case res != nil:
		r.Stdout, r.Stderr = head(res.Stdout), head(res.Stderr)
		r.OutBytes = len(res.Stdout) + len(res.Stderr)
		r.Exit, r.State = res.ExitCode, "ok"
		if err != nil || res.ExitCode != 0 {
			r.State = "failed"
		}
	case err != nil:
		r.State, r.Exit = "failed", -1
		var list check.ErrorList
		if errors.As(err, &list) {
			r.State = "refused"
		}
	}
	if err != nil {
		r.Error = err.Error()
		var re *exec.RunError
		if errors.As(err, &re) && r.Exit == 0 {
			r.Exit = 1
		}
	}
	e.l.mu.Unlock()
	e.publish(nil, nil)
}

func head(b []byte) string {
	if len(b) > MaxOutput {
		b = b[:MaxOutput]
	}
	return string(b)
}

func (r *Run) copy() Run {
	c := *r
	c.Calls = append([]Call(nil), r.Calls...)
	return c
}
