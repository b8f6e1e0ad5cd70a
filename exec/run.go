package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpfs/mcpfs/exec/internal/sandbox"
	"github.com/mcpfs/mcpfs/exec/internal/shim"
	"github.com/mcpfs/mcpfs/exec/worker"
)

// Run runs one snippet in a fresh sandboxed worker and returns what it
// printed and the tool calls it made. A failed run (compile error, panic,
// timeout, out of memory, crash) returns the Result and a *RunError; an
// error before the worker ran returns a nil Result. Run stops the worker
// when ctx ends or the timeout passes; tool calls in flight are cancelled.
func (r *Runner) Run(ctx context.Context, req Request) (*Result, error) {
	start := time.Now()
	timeout, job, err := r.prepare(req)
	if err != nil {
		return nil, fmt.Errorf("run snippet: %w", err)
	}
	p, err := r.acquire(ctx, req.Strict)
	if err != nil {
		return nil, fmt.Errorf("run snippet: %w", err)
	}
	defer p.close()

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := r.output(p, req)
	s := r.newSession(runCtx, p, req)
	served, reading := s.serve(job)
	timedOut, protoErr := waitRun(ctx, runCtx, served)

	res := s.res
	if s.result() != nil && !timedOut && protoErr == nil {
		// main returned or the snippet called mcp.Exit: the worker closed
		// its output before it said so. Once the output is read, the
		// process is stopped and reaped in the background: its exit (a
		// namespace torn down) is no part of the run.
		select {
		case <-out.done():
		case <-time.After(2 * time.Second):
		case <-runCtx.Done():
		}
		p.kill()
		r.reapLater(p)
		res.ExitCode = 0
	} else {
		// The run is over some other way: make sure the process is gone,
		// then collect everything, its exit status included.
		select {
		case <-p.exited:
		case <-time.After(2 * time.Second):
		case <-runCtx.Done():
		}
		p.kill()
		p.wait()
		res.ExitCode = p.state.ExitCode()
	}
	cancel()
	p.ctl.Close() // ends the reader goroutine if it is still reading
	<-reading
	s.calls.Wait()
	close(s.stop)
	out.copies.Wait()

	res.Duration = time.Since(start)
	res.Stdout, res.StdoutFile = out.stdout.finish()
	res.Stderr, res.StderrFile = out.stderr.finish()
	err = r.outcome(ctx, p, res, s.result(), out.stderr, timedOut, timeout, protoErr)
	out.streamOut.finish(res.Stdout)
	out.streamErr.finish(res.Stderr)
	return res, err
}

// prepare returns the run's time limit and the job the worker runs.
func (r *Runner) prepare(req Request) (time.Duration, *worker.Job, error) {
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = r.opts.Timeout
	}
	if timeout > r.opts.MaxTimeout {
		return 0, nil, fmt.Errorf("timeout %v is over the limit of %v", timeout, r.opts.MaxTimeout)
	}
	files, err := packageFiles(req.Tree, req.Packages, req.Files)
	if err != nil {
		return 0, nil, err
	}
	filename := req.Filename
	if filename == "" {
		filename = "snippet.go"
	}
	return timeout, &worker.Job{Filename: filename, Source: req.Source, Files: files, Unrestricted: req.unrestricted}, nil
}

// acquire returns a ready worker whose sandbox the run accepts: with
// strict (or Options.Strict), only one with every layer in force.
func (r *Runner) acquire(ctx context.Context, strict bool) (*proc, error) {
	p, err := r.get(ctx)
	if err != nil {
		return nil, err
	}
	if missing := sandbox.Missing(p.layers); missing != "" {
		if r.opts.Strict || strict {
			p.kill()
			p.wait()
			p.close()
			return nil, fmt.Errorf("%w: %s not available (run without --sandbox=strict to accept that, or see docs/SECURITY.md)", ErrSandbox, missing)
		}
		r.opts.Logger.Debug("sandbox layers missing", "missing", missing)
	}
	return p, nil
}

// runOutput is where a run's stdout and stderr go: kept (cut at
// MaxOutput, the rest saved to a file) and, when the Request asks,
// streamed as they come.
type runOutput struct {
	stdout, stderr       *capture
	streamOut, streamErr *stream // nil when not asked for
	copies               sync.WaitGroup
}

// done is closed when both copies have read to the end.
func (o *runOutput) done() <-chan struct{} {
	c := make(chan struct{})
	go func() {
		o.copies.Wait()
		close(c)
	}()
	return c
}

// output starts copying the worker's stdout and stderr.
func (r *Runner) output(p *proc, req Request) *runOutput {
	o := &runOutput{
		stdout:    newCapture("stdout", r.opts.OutputDir, r.opts.MaxOutput, r.opts.MaxOutputFile),
		stderr:    newCapture("stderr", r.opts.OutputDir, r.opts.MaxOutput, r.opts.MaxOutputFile),
		streamOut: newStream(req.Stdout, "stdout", r.opts.MaxOutput),
		streamErr: newStream(req.Stderr, "stderr", r.opts.MaxOutput),
	}
	o.copies.Add(2)
	var toOut, toErr io.Writer = o.stdout, o.stderr
	if o.streamOut != nil {
		toOut = io.MultiWriter(o.stdout, o.streamOut)
	}
	if o.streamErr != nil {
		toErr = io.MultiWriter(o.stderr, o.streamErr)
	}
	go func() { defer o.copies.Done(); io.Copy(toOut, p.stdout) }()
	go func() { defer o.copies.Done(); io.Copy(toErr, p.stderr) }()
	return o
}

// waitRun waits until the control channel is done (served) or the run's
// context ends, and says which: a timeout, or the protocol error that
// ended the channel.
func waitRun(ctx, runCtx context.Context, served <-chan error) (timedOut bool, protoErr error) {
	select {
	case err := <-served:
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			protoErr = err
		}
	case <-runCtx.Done():
		timedOut = ctx.Err() == nil
	}
	return timedOut, protoErr
}

// session is the parent's side of one run's control channel: it reads
// the worker's tool calls and serves them under the run's budget and
// call slots, until the worker says it is done.
type session struct {
	r     *Runner
	ctx   context.Context // the run's: ends at its deadline
	p     *proc
	req   Request
	res   *Result
	bud   *budget
	slots *slots

	mu    sync.Mutex // guards res.Calls and done
	done  *worker.Message
	calls sync.WaitGroup // calls being served

	// Calls are served by goroutines kept for the run: one that finished
	// a call takes the next if it is free, so that a run of calls does not
	// pay for a new goroutine each, nor grow a new stack through the
	// client's call path (measured: about a tenth of what a call adds).
	next chan queued
	stop chan struct{} // closed when the run is over
}

func (r *Runner) newSession(ctx context.Context, p *proc, req Request) *session {
	return &session{
		r: r, ctx: ctx, p: p, req: req,
		res:   &Result{Layers: p.layers},
		bud:   newBudget(r.opts.MaxRunMemory),
		slots: newSlots(r.opts.MaxConcurrentCalls),
		next:  make(chan queued),
		stop:  make(chan struct{}),
	}
}

// record adds a call that ended to the Result and reports it.
func (s *session) record(c Call) {
	s.mu.Lock()
	s.res.Calls = append(s.res.Calls, c)
	s.mu.Unlock()
	if s.req.Progress != nil {
		s.req.Progress(c)
	}
}

// result is the worker's done message, nil when it sent none.
func (s *session) result() *worker.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done
}

// serve sends the job and reads the control channel until the worker
// says done or goes away: served gets nil or the error that ended it,
// and reading is closed when the reader has stopped.
func (s *session) serve(job *worker.Job) (served chan error, reading chan struct{}) {
	served = make(chan error, 1)
	reading = make(chan struct{})
	if err := s.p.conn.Write(&worker.Message{Type: worker.TypeJob, Job: job}); err != nil {
		served <- fmt.Errorf("send the job: %w", err)
		close(reading)
		return served, reading
	}
	go func() {
		defer close(reading)
		served <- s.read()
	}()
	return served, reading
}

// read handles the worker's messages until done, an error, or the end of
// the run (nil).
func (s *session) read() error {
	for {
		// Room for the frame first: without it the reader waits, and
		// the worker's calls wait in the channel.
		n, err := s.p.conn.NextSize()
		if err != nil {
			return err
		}
		charge := int64(n) + callOverhead
		if err := s.bud.acquire(s.ctx, charge); err != nil {
			return nil // the run is over
		}
		m, err := s.p.conn.Read()
		if err != nil {
			s.bud.release(charge)
			return err
		}
		switch m.Type {
		case worker.TypeDone:
			s.bud.release(charge)
			s.mu.Lock()
			s.done = m
			s.mu.Unlock()
			return nil
		case worker.TypeCall:
			s.dispatch(m, charge)
		default:
			s.bud.release(charge)
		}
	}
}

// dispatch hands a call to a free serving goroutine or a new one, or
// refuses it when its server holds its share of the budget.
func (s *session) dispatch(m *worker.Message, charge int64) {
	s.calls.Add(1)
	if !s.bud.admit(m.Server, charge) {
		// The server holds its share of the run's budget: refuse at once
		// rather than hold the argument.
		s.bud.release(charge)
		go func(m *worker.Message) {
			defer s.calls.Done()
			s.record(s.r.refuseCall(s.ctx, s.p, m, s.bud))
		}(&worker.Message{Type: m.Type, ID: m.ID, Server: m.Server, Tool: m.Tool})
		return
	}
	q := queued{m: m, charge: charge}
	select {
	case s.next <- q: // a serving goroutine was free
	default:
		go s.serveCalls(q)
	}
}

// serveCalls serves q, then the calls handed to it, until the run ends.
func (s *session) serveCalls(q queued) {
	for {
		s.record(s.r.serveCall(s.ctx, s.p, s.req.Call, q, s.bud, s.slots))
		s.calls.Done()
		select {
		case q = <-s.next:
		case <-s.stop:
			return
		}
	}
}

// outcome is the error of a finished run (nil when main returned), with
// the Result's stderr trimmed of a panic's interpreter lines.
func (r *Runner) outcome(ctx context.Context, p *proc, res *Result, done *worker.Message, stderr *capture, timedOut bool, timeout time.Duration, protoErr error) error {
	switch {
	case timedOut:
		return &RunError{Kind: ErrTimeout, Msg: fmt.Sprintf("stopped after %v (raise the timeout, or make the snippet do less per run)", timeout)}
	case ctx.Err() != nil:
		return fmt.Errorf("run snippet: %w", ctx.Err())
	case protoErr != nil:
		return &RunError{Kind: ErrCrashed, Msg: fmt.Sprintf("it broke the control protocol (%v) and was stopped", protoErr)}
	case done != nil && done.Failure == nil:
		return nil
	}
	var err error
	if done != nil {
		err = failureError(done.Failure, stderr.headBytes())
	} else {
		err = crashError(p, stderr)
	}
	if errors.Is(err, ErrPanic) {
		// The error names the functions the panic went through; the
		// interpreter's own lines for them would only repeat it.
		res.Stderr = interpPanic.ReplaceAll(res.Stderr, nil)
		if done == nil {
			// A goroutine's panic ended the worker: the Go runtime's
			// traceback of the interpreter follows; the error says it all.
			res.Stderr = cutTraceback(res.Stderr)
		}
	}
	return err
}

// queued is a call read from the worker with the bytes of the run's
// budget it holds.
type queued struct {
	m      *worker.Message
	charge int64
}

// cutTraceback drops the Go runtime's report of a fatal panic ("panic: ...",
// then "goroutine N [...]:" and the interpreter's frames) from a worker's
// stderr, keeping what the snippet wrote before it.
func cutTraceback(stderr []byte) []byte {
	loc := runtimePanic.FindIndex(stderr)
	if loc == nil || !strings.Contains(string(stderr[loc[0]:]), "\ngoroutine ") {
		return stderr
	}
	return stderr[:loc[0]]
}

// serveCall runs one tool call for the worker and sends back the result.
// It gives back the call's part of the budget once the call returned.
func (r *Runner) serveCall(ctx context.Context, p *proc, call CallFunc, q queued, bud *budget, slots *slots) Call {
	m := q.m
	c := Call{Server: m.Server, Tool: m.Tool}
	reply := &worker.Message{Type: worker.TypeResult, ID: m.ID}
	held := true
	free := func() {
		if held {
			held = false
			q.m = nil
			bud.leave(m.Server, q.charge)
			bud.release(q.charge)
		}
	}
	defer free()
	put, err := slots.take(ctx, m.Server)
	if err != nil {
		c.Err = err.Error()
		return c
	}
	start := time.Now()
	switch {
	case call == nil:
		reply.Error = "this run has no tool access"
	case !json.Valid(m.Args):
		// The runtime package always sends a JSON object; a snippet that
		// calls its Transport by hand may not.
		reply.Error = fmt.Sprintf("the arguments of %s.%s are not valid JSON", m.Server, m.Tool)
	default:
		raw, err := call(ctx, m.Server, m.Tool, m.Args)
		switch {
		case err != nil:
			reply.Error = err.Error()
		case len(raw) > worker.MaxMessage-4096:
			reply.Error = fmt.Sprintf("the result of %s.%s is %d bytes, over the limit of %d: ask the tool for less", m.Server, m.Tool, len(raw), worker.MaxMessage-4096)
		default:
			reply.Result = raw
		}
	}
	put()
	c.Duration = time.Since(start)
	c.Err = reply.Error
	m.Args = nil
	free()
	// The result is held until the worker has it; while it is, the reader
	// takes no new call.
	size := int64(len(reply.Result) + len(reply.Error))
	bud.force(size)
	if ctx.Err() == nil {
		p.conn.Write(reply) // a worker that is gone does not need it
	}
	bud.release(size)
	return c
}

// refuseCall answers a call that the run's budget has no room for.
func (r *Runner) refuseCall(ctx context.Context, p *proc, m *worker.Message, bud *budget) Call {
	msg := fmt.Sprintf("mcpfs holds %d MiB of calls to %s for this run already, its share of the run's %d MiB: "+
		"wait for results before sending more, or send smaller arguments", bud.serverShare()>>20, m.Server, bud.limit>>20)
	if ctx.Err() == nil {
		p.conn.Write(&worker.Message{Type: worker.TypeResult, ID: m.ID, Error: msg})
	}
	return Call{Server: m.Server, Tool: m.Tool, Err: msg}
}

func failureError(f *worker.Failure, stderr string) error {
	switch f.Kind {
	case worker.FailCompile:
		return &RunError{Kind: ErrCompile, Msg: f.Msg}
	case worker.FailExit:
		return &ExitError{Code: f.Code}
	default:
		return &RunError{Kind: ErrPanic, Msg: withFrames(f.Msg, stderr)}
	}
}

// crashError says why a worker died before main returned, from its exit
// status and the end of its stderr (where the Go runtime writes).
func crashError(p *proc, stderr *capture) error {
	text := stderr.headBytes() + "\n" + stderr.lastBytes()
	ws, _ := p.state.Sys().(syscall.WaitStatus)
	switch {
	case strings.Contains(text, "out of memory") || strings.Contains(text, "cannot allocate memory"):
		return &RunError{Kind: ErrOutOfMemory, Msg: "it used more than its memory limit; process less data at a time"}
	case strings.Contains(text, "stack overflow") || strings.Contains(text, "stack exceeds"):
		return &RunError{Kind: ErrStackOverflow, Msg: "recursion too deep; use a loop or an explicit stack"}
	case ws.Signaled() && ws.Signal() == syscall.SIGXCPU:
		return &RunError{Kind: ErrTimeout, Msg: "it used up its CPU-time limit"}
	case strings.Contains(text, "panic: "):
		return &RunError{Kind: ErrPanic, Msg: "in a goroutine: " + panicLine(text)}
	case ws.Signaled():
		return &RunError{Kind: ErrCrashed, Msg: fmt.Sprintf("killed by signal %d (%v)%s", ws.Signal(), ws.Signal(), lastLine(text))}
	default:
		return &RunError{Kind: ErrCrashed, Msg: fmt.Sprintf("exited with status %d before main returned%s", ws.ExitStatus(), lastLine(text))}
	}
}

var (
	// interpPanic is the line the interpreter prints for each interpreted
	// frame a panic passes through: "snippet.go:8:2: panic: main.f(...)".
	// The position is where the function's body starts. A match takes
	// the line's newline too, so that replacing it removes the line.
	interpPanic = regexp.MustCompile(`(?m)^(\S+\.go:\d+:\d+): panic: (\S+?)(?:\(\.\.\.\))?$\n?`)
	// knownPos starts a panic message whose position the worker knew.
	knownPos = regexp.MustCompile(`^\S+\.go:\d+: `)
	// runtimePanic is the Go runtime's own "panic: value" line.
	runtimePanic = regexp.MustCompile(`(?m)^panic: (.*?)(?: \[recovered.*\])?$`)
)

// panicLine returns the message of a panic that killed the worker, from
// what the interpreter and the runtime printed.
func panicLine(text string) string {
	msg := "(no message)"
	if m := runtimePanic.FindStringSubmatch(text); m != nil {
		msg = fmt.Sprint(shim.GoPanic(m[1])) // Go's words for reflect's
	}
	return withFrames(msg, text)
}

// withFrames puts where the panic happened before msg and the
// interpreted functions it went through after it, innermost first:
// "snippet.go:7: boom (in main.f; called from main.main)". The patched
// interpreter (cmd/internal/thirdparty/yaegi) prints, for each frame, the
// position of the expression that was running in it.
func withFrames(msg, stderr string) string {
	frames := interpPanic.FindAllStringSubmatch(stderr, 8)
	if len(frames) == 0 || knownPos.MatchString(msg) {
		return msg
	}
	// A short stderr comes as its head and its tail, the same lines
	// twice: keep the frames up to the first line seen again.
	for i := 1; i < len(frames); i++ {
		if frames[i][0] == frames[0][0] {
			frames = frames[:i]
			break
		}
	}
	at := frames[0][1]
	if i := strings.LastIndexByte(at, ':'); i > 0 {
		at = at[:i] // file:line, as Go's traceback gives it
	}
	var b strings.Builder
	b.WriteString(at + ": " + msg + " (in " + frames[0][2])
	for i, f := range frames[1:] {
		if i == 0 {
			b.WriteString("; called from " + f[2])
		} else {
			b.WriteString(", called from " + f[2])
		}
	}
	b.WriteString(")")
	return b.String()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return ": " + s
}
