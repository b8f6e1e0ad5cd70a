package exec

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"time"
)

// stream passes a snippet's output on to a Request's Stdout or Stderr as
// it is written: whole lines, and a line that stays unfinished for
// lineDelay as it is. What it passes on is the start of what the Result
// will hold, so a caller that printed the stream needs only what finish
// adds:
//
//   - It passes at most limit bytes (Options.MaxOutput, the Result's own
//     cut). At the cut it says so at once, in a note line, and at the end
//     finish adds the Result's marker (how much there was, where it is
//     saved).
//   - On stderr, a line that may start a report the Result trims (the
//     interpreter's per-frame panic lines, the Go runtime's "panic: ...")
//     and everything after it are held until the end, when finish passes
//     on what the Result kept of them.
//
// Write never blocks and never fails, whatever the destination does: the
// bytes wait in memory (at most limit of them) for a goroutine of the
// stream's own that writes them. finish waits for that goroutine.
type stream struct {
	dst   io.Writer
	name  string // "stdout" or "stderr"
	limit int
	// hold reports whether a line (or the start of one) must be held
	// back, with everything after it, until finish.
	hold func(line []byte, complete bool) bool

	mu      sync.Mutex
	taken   int    // bytes accepted, at most limit
	pending []byte // accepted, not yet passed on
	since   time.Time
	held    bool // pending is held until finish
	note    []byte
	closed  bool
	sent    []byte // what was passed on (a copy of the Result's head)
	failed  bool   // dst returned an error: drop the rest
	wake    chan struct{}
	done    chan struct{}
}

// lineDelay is how long an unfinished line waits for its end before it
// is passed on as it is (a prompt, a progress dot).
const lineDelay = 50 * time.Millisecond

// newStream returns a stream to dst, or nil when dst is nil.
func newStream(dst io.Writer, name string, limit int) *stream {
	if dst == nil {
		return nil
	}
	s := &stream{dst: dst, name: name, limit: limit, wake: make(chan struct{}, 1), done: make(chan struct{})}
	if name == "stderr" {
		s.hold = holdPanic
	}
	go s.run()
	return s
}

// holdPanic holds back the lines a panic report starts with, which the
// Result may trim: "file.go:L:C: panic: f(...)" of the interpreter and
// "panic: v" of the Go runtime. An unfinished line is held while it
// could still become one.
func holdPanic(line []byte, complete bool) bool {
	if complete {
		return runtimePanic.Match(line) || interpPanic.Match(line)
	}
	return bytes.HasPrefix(line, []byte("panic")) || bytes.HasPrefix([]byte("panic"), line) || bytes.Contains(line, []byte(".go:"))
}

// Write accepts p: the part within the limit is passed on soon.
func (s *stream) Write(p []byte) (int, error) {
	if s == nil {
		return len(p), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.note != nil {
		return len(p), nil
	}
	part := p[:min(len(p), s.limit-s.taken)]
	if len(s.pending) == 0 {
		s.since = time.Now()
	}
	s.pending = append(s.pending, part...)
	s.taken += len(part)
	if len(part) < len(p) {
		s.note = fmt.Appendf(nil, "\n[mcpfs: %s cut at %d bytes: the rest is not shown; the end of the run says where it is kept]\n", s.name, s.limit)
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

// run passes what Write accepted on to dst until finish.
func (s *stream) run() {
	defer close(s.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		s.mu.Lock()
		out, wait := s.takeLocked(time.Now())
		closed := s.closed
		s.mu.Unlock()
		s.send(out)
		if closed {
			return
		}
		if wait > 0 {
			timer.Reset(wait)
		}
		select {
		case <-s.wake:
		case <-timer.C:
		}
	}
}

// takeLocked removes from pending what may be passed on now: whole
// lines, an unfinished line older than lineDelay, the cut note. wait is
// when to look again for an unfinished line (0: when woken).
func (s *stream) takeLocked(now time.Time) (out []byte, wait time.Duration) {
	if s.held {
		return nil, 0
	}
	n := 0
	for n < len(s.pending) {
		i := bytes.IndexByte(s.pending[n:], '\n')
		if i < 0 {
			break
		}
		if s.hold != nil && s.hold(s.pending[n:n+i+1], true) {
			s.held = true
			break
		}
		n += i + 1
	}
	if rest := s.pending[n:]; !s.held && len(rest) > 0 && (s.hold == nil || !s.hold(rest, false)) {
		if age := now.Sub(s.since); age >= lineDelay || s.closed {
			n = len(s.pending)
		} else {
			wait = lineDelay - age
		}
	}
	out = append(out, s.pending[:n]...)
	s.sent = append(s.sent, s.pending[:n]...)
	s.pending = s.pending[n:]
	if len(s.pending) > 0 {
		s.since = now
	}
	if s.note != nil && len(s.pending) == 0 && !s.held {
		out = append(out, s.note...)
		s.note = s.note[:0] // said; still non-nil: nothing more is taken
	}
	return out, wait
}

func (s *stream) send(p []byte) {
	if len(p) == 0 || s.failed {
		return
	}
	if _, err := s.dst.Write(p); err != nil {
		s.failed = true // a reader that is gone: the Result still has it all
	}
}

// finish passes on the rest of result (the Result's Stdout or Stderr)
// after what was passed on already, and waits until dst has it all.
func (s *stream) finish(result []byte) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.closed = true
	s.held = true // what is pending goes as the Result has it, below
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	<-s.done
	// The Result starts with what was passed on, unless trimming a panic
	// report reached into it (it cannot: the report's lines were held).
	if !bytes.HasPrefix(result, s.sent) {
		return
	}
	rest := result[len(s.sent):]
	if len(s.note) > 0 && len(result) > s.limit && bytes.HasPrefix(result[s.limit:], []byte("\n[mcpfs: ")) {
		// Cut, and the run ended before the note went: it goes where
		// the cut is, before the Result's marker.
		at := s.limit - len(s.sent)
		rest = append(append(append([]byte(nil), rest[:at]...), s.note...), rest[at:]...)
	}
	s.send(rest)
}
