package ui

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpfs/mcpfs/cmd/internal/tokens"
)

// tokenFigures are what a run kept out of the model's context, counted as
// the benchmark counts (cmd/internal/tokens: o200k_base, a result as a
// client hands it to the model): the tokens of what its tool calls
// returned, which the direct way would have passed through the model,
// against the tokens of what the snippet printed, which is all the model
// sees of them.
type tokenFigures struct {
	Results int `json:"results"`
	Printed int `json:"printed"`
	// Estimated: part of a figure is estimated from bytes, at the ratio
	// of what was counted (results the page did not see, as those of a
	// run that ended before it opened, or that were not counted in time;
	// output cut before it reached the page).
	Estimated bool `json:"estimated,omitempty"`
}

// runCount is the counting of one run's results. Its numbers are
// guarded by the Server's mu.
type runCount struct {
	wg      sync.WaitGroup
	tokens  int // of the results counted
	counted int // bytes of the results counted
	queued  int // bytes of results waiting to be counted
	skipped int // bytes of results that will not be counted
}

// Bounds of the counting: results wait in a queue for one goroutine, and
// at most maxQueued bytes of them; past that a result's tokens are
// estimated from its size. A run's figures wait at most countWait for
// its results to be counted (about 8 MB/s on one core).
const (
	maxQueued = 16 << 20
	countWait = 5 * time.Second
)

type countJob struct {
	rn  *run
	raw json.RawMessage
}

// countResult has the tokens of one call's result counted, off the
// call's path: the result is shared, not copied, until it is counted.
func (s *Server) countResult(rn *run, raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	c := rn.count
	s.mu.Lock()
	if s.queued+len(raw) > maxQueued {
		c.skipped += len(raw)
		s.mu.Unlock()
		return
	}
	s.queued += len(raw)
	c.queued += len(raw)
	c.wg.Add(1)
	s.mu.Unlock()
	select {
	case s.countQ <- countJob{rn, raw}:
	default:
		s.mu.Lock()
		s.queued -= len(raw)
		c.queued -= len(raw)
		c.skipped += len(raw)
		s.mu.Unlock()
		c.wg.Done()
	}
}

// counter counts the queued results until the server closes.
func (s *Server) counter() {
	for {
		select {
		case j := <-s.countQ:
			n := tokens.Count(tokens.ResultText(j.raw))
			c := j.rn.count
			s.mu.Lock()
			s.queued -= len(j.raw)
			c.queued -= len(j.raw)
			c.counted += len(j.raw)
			c.tokens += n
			s.mu.Unlock()
			c.wg.Done()
		case <-s.ctx.Done():
			return
		}
	}
}

// tokensOf returns rn's figures once its results are counted (or
// countWait has passed): printed is the output the page has, of
// printedBytes in all.
func (s *Server) tokensOf(rn *run, printed string, printedBytes int) *tokenFigures {
	c := rn.count
	done := make(chan struct{})
	go func() {
		c.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(countWait):
	case <-s.ctx.Done():
	}
	f := &tokenFigures{Printed: tokens.Count(printed)}
	if printedBytes > len(printed) && len(printed) > 0 {
		f.Printed = int(float64(f.Printed) * float64(printedBytes) / float64(len(printed)))
		f.Estimated = true
	}
	s.mu.Lock()
	f.Results = c.tokens
	rest := c.queued + c.skipped
	ratio := 4.0 // bytes per token of JSON, when nothing was counted
	if c.counted > 0 && c.tokens > 0 {
		ratio = float64(c.counted) / float64(c.tokens)
	}
	s.mu.Unlock()
	if rest > 0 {
		f.Results += int(float64(rest)/ratio + 0.5)
		f.Estimated = true
	}
	return f
}
