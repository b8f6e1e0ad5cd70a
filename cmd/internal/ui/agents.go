package ui

import "github.com/mcpfs/mcpfs/cmd/internal/runlog"

// The runs the page did not start: an agent's exec through serve, `mcpfs
// run`, a mount's run/ job, all on the same engine. The engine's history
// (runlog) tells the page of them as they happen; they join the page's
// own runs in the history, with their face, calls and output, and the
// tokens of their results (counted when the page saw the results: a run
// that ended before the page opened has them estimated from bytes).

// followRuns adds the engine's kept runs to the history and follows the
// new ones.
func (s *Server) followRuns() {
	past, stop := s.eng.Runs(s.engineEvent)
	s.stopRuns = stop
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, er := range past {
		if s.own(er) || s.byEngine[er.ID] != nil {
			continue
		}
		rn := s.engineRun(er)
		if er.State != "running" {
			rn.Tokens = estimatedTokens(er)
		}
	}
}

// pageFace is the face the page's runs have in the engine's history.
const pageFace = "ui"

// own says whether the page made er (another page's runs are shown like
// an agent's).
func (s *Server) own(er runlog.Run) bool { return er.Face == pageFace && er.Tag == s.tag }

// engineRun adds a run of the engine to the history (s.mu held).
func (s *Server) engineRun(er runlog.Run) *run {
	s.nextID++
	rn := &run{ID: s.nextID, Face: er.Face, Source: er.Source, Started: er.Started, State: er.State, Calls: []callInfo{}, count: &runCount{}}
	for _, c := range er.Calls {
		rn.Calls = append(rn.Calls, callInfo(c))
	}
	s.ended(rn, er)
	s.byEngine[er.ID] = rn
	s.addRun(rn)
	return rn
}

// ended copies how er ended into rn (s.mu held).
func (s *Server) ended(rn *run, er runlog.Run) {
	if er.State == "running" {
		return
	}
	rn.State, rn.Exit, rn.Ms, rn.Error = er.State, er.Exit, er.Ms, er.Error
	rn.Stdout, rn.Stderr = er.Stdout, er.Stderr
	if er.OutBytes > len(er.Stdout)+len(er.Stderr) {
		rn.Stderr += "\n[output cut: the page keeps the first bytes of each stream]\n"
	}
}

// engineEvent records one change of a run of the engine. It runs on the
// run's goroutine: it only takes the lock, queues counting and publishes.
func (s *Server) engineEvent(ev runlog.Event) {
	if s.own(ev.Run) || s.ctx.Err() != nil {
		return // the page's own, or the page is closing
	}
	s.mu.Lock()
	rn := s.byEngine[ev.Run.ID]
	if rn == nil {
		rn = s.engineRun(ev.Run)
	}
	if ev.Call != nil {
		c := callInfo(*ev.Call)
		found := false
		for i := len(rn.Calls) - 1; i >= 0; i-- {
			if rn.Calls[i].N == c.N {
				rn.Calls[i], found = c, true
				break
			}
		}
		if !found && len(rn.Calls) < runlog.MaxCalls {
			rn.Calls = append(rn.Calls, c)
		}
		s.mu.Unlock()
		if c.Done {
			s.countResult(rn, ev.Result)
		}
		s.events.publish("call", map[string]any{"id": rn.ID, "call": c})
		return
	}
	s.ended(rn, ev.Run)
	state := rn.State
	s.mu.Unlock()
	s.events.publish("run", s.snapshot(rn))
	if state == "running" {
		return
	}
	// The figures wait for the results to be counted, off the run's
	// goroutine.
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		figs := s.tokensOf(rn, ev.Run.Stdout+ev.Run.Stderr, ev.Run.OutBytes)
		s.mu.Lock()
		rn.Tokens = figs
		s.mu.Unlock()
		s.events.publish("run", s.snapshot(rn))
	}()
}

// estimatedTokens are the figures of a run whose results the page never
// saw: from their sizes, at about 4 bytes a token.
func estimatedTokens(er runlog.Run) *tokenFigures {
	results := 0
	for _, c := range er.Calls {
		results += c.ResultBytes
	}
	printed := er.OutBytes
	return &tokenFigures{Results: (results + 2) / 4, Printed: (printed + 2) / 4, Estimated: true}
}

// addRun appends rn to the history, dropping the oldest past MaxRuns
// (s.mu held).
func (s *Server) addRun(rn *run) {
	s.runs = append(s.runs, rn)
	if n := len(s.runs) - s.opts.MaxRuns; n > 0 {
		for _, old := range s.runs[:n] {
			for id, r := range s.byEngine {
				if r == old {
					delete(s.byEngine, id)
				}
			}
		}
		s.runs = append(s.runs[:0:0], s.runs[n:]...)
	}
}

// faceName says in words where a run came from.
func faceName(face string) string {
	switch face {
	case "serve":
		return "an agent through mcpfs serve"
	case "cli":
		return "mcpfs run"
	case "mount":
		return "a mount's run/"
	}
	return face
}
