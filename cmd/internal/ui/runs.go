package ui

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpfs/mcpfs/exec"
)

// maxStreamed bounds the output of one run that is kept and streamed to
// the page while it runs; the run's result (cut as the runner cuts it)
// replaces it at the end.
const maxStreamed = 256 << 10

// callInfo is one tool call of a run.
type callInfo struct {
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

// run is one snippet run: from the page, or (Face set) made on the
// engine by another face. Its fields are guarded by the Server's mu.
type run struct {
	ID int `json:"id"`
	// Face is where a run the page did not start came from: serve (an
	// agent's exec), cli (mcpfs run), mount (run/); "" for the page's.
	Face     string     `json:"face,omitempty"`
	Source   string     `json:"source"`
	Started  time.Time  `json:"started"`
	State    string     `json:"state"` // running, ok, failed, refused
	Stdout   string     `json:"stdout"`
	Stderr   string     `json:"stderr"`
	Calls    []callInfo `json:"calls"`
	Exit     int        `json:"exit"`
	Ms       float64    `json:"ms"`
	Error    string     `json:"error,omitempty"`
	Problems []problem  `json:"problems,omitempty"`
	// OutputFile is where the full stdout is kept when it was cut.
	OutputFile string `json:"outputFile,omitempty"`
	// Tokens are what the calls returned and what the snippet printed,
	// in tokens; set when the run has ended and its results were seen.
	Tokens *tokenFigures `json:"tokens,omitempty"`

	cancel context.CancelFunc // stops the run; set while it runs
	count  *runCount          // the counting of its results' tokens
}

// runSummary is a run in the history list.
type runSummary struct {
	ID          int           `json:"id"`
	Started     time.Time     `json:"started"`
	State       string        `json:"state"`
	Exit        int           `json:"exit"`
	Ms          float64       `json:"ms"`
	Calls       int           `json:"calls"`
	ResultBytes int           `json:"resultBytes"`
	OutBytes    int           `json:"outBytes"`
	First       string        `json:"first"` // the snippet's first line of interest
	Face        string        `json:"face,omitempty"`
	Tokens      *tokenFigures `json:"tokens,omitempty"`
}

func (r *run) summary() runSummary {
	sum := runSummary{ID: r.ID, Started: r.Started, State: r.State, Exit: r.Exit, Ms: r.Ms, Calls: len(r.Calls), OutBytes: len(r.Stdout) + len(r.Stderr), First: gist(r.Source), Face: r.Face, Tokens: r.Tokens}
	for _, c := range r.Calls {
		sum.ResultBytes += c.ResultBytes
	}
	return sum
}

// outputDelay is how long output is gathered before it is sent to the
// page: a snippet that prints in a loop makes one event per interval, not
// one per write.
const outputDelay = 30 * time.Millisecond

// outWriter receives one stream of a run's output as it is written, keeps
// it (up to maxStreamed) and sends it to the page in batches.
type outWriter struct {
	s      *Server
	r      *run
	stream string

	mu      sync.Mutex
	pending strings.Builder
	timer   *time.Timer
}

func (w *outWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	cur := &w.r.Stdout
	if w.stream == "stderr" {
		cur = &w.r.Stderr
	}
	text := string(p)
	if room := maxStreamed - len(*cur); len(text) > room {
		text = text[:max(room, 0)]
	}
	*cur += text
	w.s.mu.Unlock()
	if text == "" {
		return len(p), nil
	}
	w.mu.Lock()
	w.pending.WriteString(text)
	if w.timer == nil {
		w.timer = time.AfterFunc(outputDelay, w.flush)
	}
	w.mu.Unlock()
	return len(p), nil
}

// flush sends the output gathered since the last batch.
func (w *outWriter) flush() {
	w.mu.Lock()
	text := w.pending.String()
	w.pending.Reset()
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	w.mu.Unlock()
	if text != "" {
		w.s.events.publish("output", map[string]any{"id": w.r.ID, "stream": w.stream, "text": text})
	}
}

func (s *Server) handleRun(w http.ResponseWriter, r *http.Request) {
	var req sourceReq
	if !readJSON(w, r, &req) {
		return
	}
	s.mu.Lock()
	if s.ctx.Err() != nil {
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, "the page is closing")
		return
	}
	s.nextID++
	ctx, cancel := context.WithCancel(s.ctx)
	rn := &run{ID: s.nextID, Source: req.Source, Started: time.Now(), State: "running", Calls: []callInfo{}, cancel: cancel, count: &runCount{}}
	s.addRun(rn)
	s.wg.Add(1)
	s.mu.Unlock()
	s.events.publish("run", s.snapshot(rn))
	go func() {
		defer s.wg.Done()
		defer cancel()
		s.execute(ctx, rn)
	}()
	writeJSON(w, http.StatusAccepted, map[string]int{"id": rn.ID})
}

// execute runs rn's snippet and records what happened.
func (s *Server) execute(ctx context.Context, rn *run) {
	stdout, stderr := &outWriter{s: s, r: rn, stream: "stdout"}, &outWriter{s: s, r: rn, stream: "stderr"}
	// send is publish for the call events of rn, after the output
	// written before them, so that the page shows both in order.
	send := func(c callInfo) {
		stdout.flush()
		stderr.flush()
		s.events.publish("call", map[string]any{"id": rn.ID, "call": c})
	}
	wrap := func(next exec.CallFunc) exec.CallFunc {
		return func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
			s.mu.Lock()
			i := len(rn.Calls)
			rn.Calls = append(rn.Calls, callInfo{N: i + 1, Server: server, Tool: tool, Start: time.Now(), ArgBytes: len(args)})
			c := rn.Calls[i]
			s.mu.Unlock()
			send(c)
			out, err := next(ctx, server, tool, args)
			s.mu.Lock()
			c = rn.Calls[i]
			c.Ms = msSince(c.Start)
			c.ResultBytes = len(out)
			c.Done = true
			if err != nil {
				c.Err = err.Error()
			}
			rn.Calls[i] = c
			s.mu.Unlock()
			s.countResult(rn, out)
			send(c)
			return out, err
		}
	}
	res, err := s.eng.Run(ctx, snippetFile, s.tag, []byte(rn.Source), stdout, stderr, wrap)
	stdout.flush()
	stderr.flush()
	var printed string
	if res != nil {
		printed = string(res.Stdout) + string(res.Stderr)
	}
	figs := s.tokensOf(rn, printed, len(printed))
	s.mu.Lock()
	rn.Tokens = figs
	rn.cancel = nil
	rn.Ms = msSince(rn.Started)
	switch {
	case res != nil:
		rn.Stdout, rn.Stderr, rn.Exit = string(res.Stdout), string(res.Stderr), res.ExitCode
		rn.OutputFile = res.StdoutFile
		rn.State = "ok"
		if err != nil || res.ExitCode != 0 {
			rn.State = "failed"
		}
	case err != nil:
		rn.State, rn.Exit = "failed", -1
		if probs, ok := problemsOf(err); ok {
			rn.State, rn.Problems = "refused", probs
		}
	}
	if err != nil {
		rn.Error = err.Error()
		var re *exec.RunError
		if errors.As(err, &re) && rn.Exit == 0 {
			rn.Exit = 1
		}
	}
	s.mu.Unlock()
	s.events.publish("run", s.snapshot(rn))
}

// snapshot returns a copy of rn that can be encoded without the lock.
func (s *Server) snapshot(rn *run) run {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := *rn
	c.Calls = append([]callInfo(nil), rn.Calls...)
	return c
}

// findRun returns the run of the history with the id in the path, or nil.
func (s *Server) findRun(r *http.Request) *run {
	id, _ := strconv.Atoi(r.PathValue("id"))
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rn := range s.runs {
		if rn.ID == id {
			return rn
		}
	}
	return nil
}

// handleStop stops a run in progress.
func (s *Server) handleStop(w http.ResponseWriter, r *http.Request) {
	rn := s.findRun(r)
	if rn == nil {
		writeError(w, http.StatusNotFound, "no such run in the history")
		return
	}
	s.mu.Lock()
	stop, face, state := rn.cancel, rn.Face, rn.State
	s.mu.Unlock()
	if face != "" && state == "running" {
		writeError(w, http.StatusConflict, "this run was started by "+faceName(face)+"; stop it there")
		return
	}
	if stop == nil {
		writeError(w, http.StatusConflict, "the run has ended")
		return
	}
	stop()
	writeJSON(w, http.StatusAccepted, map[string]int{"id": rn.ID})
}

func (s *Server) handleGetRun(w http.ResponseWriter, r *http.Request) {
	found := s.findRun(r)
	if found == nil {
		writeError(w, http.StatusNotFound, "no such run in the history (it keeps the last "+strconv.Itoa(s.opts.MaxRuns)+")")
		return
	}
	writeJSON(w, http.StatusOK, s.snapshot(found))
}

func msSince(t time.Time) float64 {
	return float64(time.Since(t).Microseconds()) / 1000
}
