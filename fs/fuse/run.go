package fuse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The run/ folder is live when Options.Run is set: an agent that can only
// read and write files runs a program by writing it and reading the
// result next to it. runReadme, served as run/README.md, is the user's
// description; in short:
//
//   - closing (or fsyncing) run/<job>.go after writing it starts a job with
//     what was written, once per write: flushing again without a new
//     write starts nothing;
//   - run/<job>.status says queued, running (time, tool calls so far),
//     done or failed;
//   - run/<job>.out is what `mcpfs run` would print, then "exit status N";
//     a read before the job ends waits for the end, and an interrupted
//     read answers EINTR;
//   - writing run/<job>.go again cancels a run still going and clears the
//     result at once: run/<job>.out waits for the new run, never shows the
//     old one;
//   - unlinking any of the job's files removes the job and cancels it.
//
// Jobs run in goroutines of their own, at most maxRunning at once; a FUSE
// handler never waits on a job except a read of run/<job>.out, which waits
// only for its own job and gives up on an interrupt. Lookups and getattr
// read the state under a mutex that nothing holds while waiting.

// Runner runs the program of one job written to run/ and returns what
// `mcpfs run` would show for it. It is called from a goroutine of its own,
// never from a FUSE handler, and must honour ctx: a job is cancelled when
// its file is written again or removed, and when the mount ends. A panic
// in a Runner fails the job; it does not reach the mount.
type Runner func(ctx context.Context, job Job) JobResult

// Job is a program written to run/.
type Job struct {
	// Name is the file's name, "<job>.go"; check problems name positions
	// in it (<job>.go:LINE:COL).
	Name string
	// Source is what was written.
	Source []byte
	// ToolCall, called after each tool call of the job ends, counts the
	// calls that run/<job>.status shows while the job runs. It is safe for
	// concurrent use, also after the Runner returned.
	ToolCall func()
}

// JobResult is how a job ended.
type JobResult struct {
	// Output is what the job printed and how it ended, as `mcpfs run`
	// shows it: stdout, then stderr, check problems, and the error.
	Output []byte
	// Err is why the job failed; nil when it succeeded. Its first line is
	// shown in run/<job>.status.
	Err error
}

// Limits of run/.
const (
	maxRunning    = 4        // jobs running at once; more are queued
	maxJobs       = 100      // jobs kept; the oldest finished ones go first
	maxJobBytes   = 64 << 20 // sources and outputs kept, all jobs together
	maxJobOutput  = 4 << 20  // one run/<job>.out
	maxJobSource  = 4 << 20  // one run/<job>.go, as `mcpfs run` allows
	maxJobName    = 64       // characters of <job>
	maxRefusals   = 20       // lines kept in run/ERRORS.txt
	runReadmeFile = "README.md"
	runErrorsFile = "ERRORS.txt"
)

// How long Unmount waits for cancelled jobs to end before leaving them.
const runDrainTimeout = 10 * time.Second

// runKind is the kind of a file in run/.
type runKind int

const (
	kindSource runKind = iota // <job>.go
	kindOut                   // <job>.out
	kindStatus                // <job>.status
	kindReadme                // README.md
	kindErrors                // ERRORS.txt
)

var jobSuffixes = map[runKind]string{kindSource: ".go", kindOut: ".out", kindStatus: ".status"}

// Why a job was cancelled; the cause ends up in run/<job>.out of whoever
// still reads the cancelled run.
var (
	errRewritten = errors.New("cancelled: its file was written again; read run/<job>.out again for the new run")
	errRemoved   = errors.New("cancelled: its file was removed")
	errUnmounted = errors.New("cancelled: the mount ended")
)

// parseRunName splits a name in run/ into a job and the kind of file. ok
// is false for names that are no file of run/ at all; a job file with an
// invalid job name is reported by checkJobName, not here.
func parseRunName(name string) (job string, kind runKind, ok bool) {
	switch name {
	case runReadmeFile:
		return "", kindReadme, true
	case runErrorsFile:
		return "", kindErrors, true
	}
	for k, suffix := range jobSuffixes {
		if stem, found := strings.CutSuffix(name, suffix); found {
			return stem, k, true
		}
	}
	return "", 0, false
}

// checkJobName says what is wrong with a job name, nil when nothing is.
func checkJobName(job string) error {
	switch {
	case job == "":
		return errors.New("the job name before .go is empty")
	case len(job) > maxJobName:
		return fmt.Errorf("the job name has %d characters; at most %d are allowed", len(job), maxJobName)
	case strings.HasPrefix(job, "."):
		return errors.New("a job name must not start with a dot")
	}
	for _, c := range job {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return fmt.Errorf("a job name may hold only letters, digits, '_', '-' and '.', not %q", c)
		}
	}
	return nil
}

// runState is the live content of run/.
type runState struct {
	runner Runner
	log    *slog.Logger
	slots  chan struct{} // one token per running job
	ctx    context.Context
	stop   context.CancelFunc
	jobsWG sync.WaitGroup
	born   time.Time

	waiting atomic.Int64 // reads of run/<job>.out waiting for their job

	mu       sync.Mutex
	jobs     map[string]*job
	refusals []string // run/ERRORS.txt, newest last
	refused  time.Time
	mtime    time.Time // the listing's
	closed   bool
}

// job is one run/<job>.go and its latest run.
type job struct {
	src   []byte // never changed in place: a write makes a new slice
	mtime time.Time
	run   *jobRun // nil until the file is first saved
}

// jobRun is one run of a job. Its fields but calls are guarded by
// runState.mu until done is closed; after that they never change.
type jobRun struct {
	done   chan struct{}
	cancel context.CancelCauseFunc
	calls  atomic.Int64

	queued, started, ended time.Time
	phase                  string // queued, running, done, failed
	failure                string // the first line of why it failed
	out                    []byte
}

func newRunState(runner Runner, logger *slog.Logger) *runState {
	ctx, stop := context.WithCancel(context.Background())
	now := time.Now()
	return &runState{
		runner: runner,
		log:    logger,
		slots:  make(chan struct{}, maxRunning),
		ctx:    ctx,
		stop:   stop,
		born:   now,
		jobs:   map[string]*job{},
		mtime:  now,
	}
}

// refuse records why an operation on run/ was refused, for the log and
// run/ERRORS.txt.
func (r *runState) refuse(op, name string, why error) {
	now := time.Now()
	line := fmt.Sprintf("%s %s run/%s: %v", now.Format(time.RFC3339), op, name, why)
	r.log.Info("run/: refused", "op", op, "name", name, "error", why)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refusals = append(r.refusals, line)
	if len(r.refusals) > maxRefusals {
		r.refusals = r.refusals[len(r.refusals)-maxRefusals:]
	}
	r.refused = now
	r.mtime = now
}

// errorsText is run/ERRORS.txt, nil when nothing was refused. r.mu must
// be held.
func (r *runState) errorsText() []byte {
	if len(r.refusals) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("Refused operations in run/, newest last. Only run/<job>.go files can be\nwritten; see run/README.md. rm run/ERRORS.txt clears this file.\n\n")
	for _, l := range r.refusals {
		b.WriteString(l + "\n")
	}
	return []byte(b.String())
}

// names lists run/. r.mu must be held.
func (r *runState) names() []string {
	out := []string{runReadmeFile}
	if len(r.refusals) > 0 {
		out = append(out, runErrorsFile)
	}
	for name, j := range r.jobs {
		out = append(out, name+".go")
		if j.run != nil {
			out = append(out, name+".out", name+".status")
		}
	}
	sort.Strings(out)
	return out
}

// create makes an empty job, or empties an existing one. It fails when
// run/ is full of unfinished jobs.
func (r *runState) create(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errUnmounted
	}
	if j := r.jobs[name]; j != nil {
		j.src, j.mtime = []byte{}, time.Now()
		return nil
	}
	r.evict(1)
	if len(r.jobs) >= maxJobs {
		return fmt.Errorf("run/ holds %d jobs that have not finished: wait for some, or rm run/<job>.go", len(r.jobs))
	}
	now := time.Now()
	r.jobs[name] = &job{src: []byte{}, mtime: now}
	r.mtime = now
	return nil
}

// source returns the job's program.
func (r *runState) source(name string) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.jobs[name]
	if j == nil {
		return nil, false
	}
	return j.src, true
}

// setSource replaces the job's program; edit makes the new one from the
// old. It reports false when the job is gone.
func (r *runState) setSource(name string, edit func(old []byte) []byte) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.jobs[name]
	if j == nil {
		return false
	}
	j.src, j.mtime = edit(j.src), time.Now()
	return true
}

// start runs the job's current program, cancelling a run still going.
// It returns at once.
func (r *runState) start(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.jobs[name]
	if j == nil || r.closed {
		return
	}
	if old := j.run; old != nil && old.ended.IsZero() {
		old.cancel(errRewritten)
	}
	ctx, cancel := context.WithCancelCause(r.ctx)
	now := time.Now()
	run := &jobRun{done: make(chan struct{}), cancel: cancel, queued: now, phase: "queued"}
	if j.run == nil {
		r.mtime = now // .out and .status appear
	}
	j.run = run
	r.jobsWG.Add(1)
	go r.execute(ctx, name, run, j.src)
}

// execute waits for a slot, runs the job and records its result.
func (r *runState) execute(ctx context.Context, name string, run *jobRun, src []byte) {
	defer r.jobsWG.Done()
	defer run.cancel(nil)
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		r.finish(name, run, JobResult{}, context.Cause(ctx))
		return
	}
	defer func() { <-r.slots }()
	r.mu.Lock()
	run.phase, run.started = "running", time.Now()
	r.mu.Unlock()
	r.log.Info("run/: job started", "job", name)
	res := r.call(ctx, name, run, src)
	var cause error
	if ctx.Err() != nil {
		cause = context.Cause(ctx)
	}
	r.finish(name, run, res, cause)
}

// call runs the Runner, turning a panic into a failed job.
func (r *runState) call(ctx context.Context, name string, run *jobRun, src []byte) (res JobResult) {
	file := name + ".go"
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("run/: the runner panicked", "job", name, "panic", p, "stack", string(debug.Stack()))
			err := fmt.Errorf("internal error while running %s: %v (the mount goes on; please report it)", file, p)
			res = JobResult{Output: []byte("mcpfs: " + err.Error() + "\n"), Err: err}
		}
	}()
	return r.runner(ctx, Job{Name: file, Source: src, ToolCall: func() { run.calls.Add(1) }})
}

// finish records how a run ended and releases the readers waiting for it.
// cause is why the run was cancelled, nil when it was not.
func (r *runState) finish(name string, run *jobRun, res JobResult, cause error) {
	var b bytes.Buffer
	b.Write(res.Output)
	failure := res.Err
	if cause != nil {
		failure = cause
		if b.Len() > 0 && !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "mcpfs: run/%s.go %v\n", name, cause)
	}
	status := 0
	if failure != nil {
		status = 1
	}
	out := capOutput(b.Bytes(), fmt.Sprintf("exit status %d\n", status))

	r.mu.Lock()
	now := time.Now()
	if run.started.IsZero() {
		run.started = now
	}
	run.ended, run.out = now, out
	run.phase = "done"
	if failure != nil {
		run.phase = "failed"
		run.failure, _, _ = strings.Cut(strings.TrimSpace(failure.Error()), "\n")
	}
	close(run.done)
	r.evict(0)
	r.mu.Unlock()
	r.log.Info("run/: job ended", "job", name, "exit_status", status, "duration", now.Sub(run.started).Round(time.Millisecond), "tool_calls", run.calls.Load())
}

// capOutput returns out, cut to fit maxJobOutput with a note, followed by
// the trailer.
func capOutput(out []byte, trailer string) []byte {
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	if len(out)+len(trailer) <= maxJobOutput {
		return append(out, trailer...)
	}
	note := fmt.Sprintf("\n[mcpfs: output cut: %d of %d bytes shown; run/ keeps %d MiB of a job's output]\n", maxJobOutput-1024, len(out), maxJobOutput>>20)
	res := make([]byte, 0, maxJobOutput)
	res = append(res, out[:maxJobOutput-1024]...)
	res = append(res, note...)
	return append(res, trailer...)
}

// evict forgets the oldest finished jobs while more than maxJobs-room
// jobs or more than maxJobBytes are kept. Unfinished jobs stay. r.mu must
// be held.
func (r *runState) evict(room int) {
	for {
		total := 0
		for _, j := range r.jobs {
			total += len(j.src)
			if j.run != nil {
				total += len(j.run.out)
			}
		}
		if len(r.jobs)+room <= maxJobs && total <= maxJobBytes {
			return
		}
		oldest := ""
		var at time.Time
		for name, j := range r.jobs {
			if j.run == nil || j.run.ended.IsZero() {
				continue
			}
			if oldest == "" || j.run.ended.Before(at) {
				oldest, at = name, j.run.ended
			}
		}
		if oldest == "" {
			return
		}
		r.log.Debug("run/: forgetting an old job", "job", oldest)
		delete(r.jobs, oldest)
		r.mtime = time.Now()
	}
}

// remove forgets a job, cancelling its run. It reports false when there
// is no such job.
func (r *runState) remove(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.jobs[name]
	if j == nil {
		return false
	}
	if j.run != nil && j.run.ended.IsZero() {
		j.run.cancel(errRemoved)
	}
	delete(r.jobs, name)
	r.mtime = time.Now()
	return true
}

// clearRefusals empties run/ERRORS.txt; false when it was empty.
func (r *runState) clearRefusals() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.refusals) == 0 {
		return false
	}
	r.refusals = nil
	r.mtime = time.Now()
	return true
}

// currentRun returns the job's latest run, nil when it has none.
func (r *runState) currentRun(name string) *jobRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	if j := r.jobs[name]; j != nil {
		return j.run
	}
	return nil
}

// statusText is run/<job>.status of run. r.mu must be held.
func (r *runState) statusText(name string, run *jobRun) []byte {
	calls := plural(int(run.calls.Load()), "tool call")
	switch run.phase {
	case "queued":
		return fmt.Appendf(nil, "queued %s: %d jobs are running; this one starts when one of them ends\n", since(run.queued), maxRunning)
	case "running":
		return fmt.Appendf(nil, "running %s, %s; cat run/%s.out waits for the end\n", since(run.started), calls, name)
	case "done":
		return fmt.Appendf(nil, "done in %s, %s, exit status 0\n", run.ended.Sub(run.started).Round(time.Millisecond), calls)
	}
	return fmt.Appendf(nil, "failed in %s, %s, exit status 1: %s\n", run.ended.Sub(run.started).Round(time.Millisecond), calls, run.failure)
}

func since(t time.Time) string {
	d := time.Since(t)
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// close cancels every job and waits for them to end, at most
// runDrainTimeout.
func (r *runState) close() {
	r.mu.Lock()
	r.closed = true
	for _, j := range r.jobs {
		if j.run != nil && j.run.ended.IsZero() {
			j.run.cancel(errUnmounted)
		}
	}
	r.mu.Unlock()
	r.stop()
	done := make(chan struct{})
	go func() { r.jobsWG.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(runDrainTimeout):
		r.log.Warn("run/: jobs still running after the mount ended; the runner does not honour cancellation", "waited", runDrainTimeout)
	}
}

// runReadme is run/README.md.
const runReadme = `# run/: run a program by writing a file

Write a Go program (package main, as for mcpfs run) to run/<job>.go. When
the file is closed, the job starts; its result appears next to it.

    run/count.go       write the program here
    run/count.status   queued, running (time, tool calls so far), done or failed
    run/count.out      the result; reading it waits until the job ends

From a shell:

    cat > run/count.go <<'EOF'
    package main
    ...
    EOF
    cat run/count.out

- run/<job>.out is what mcpfs run prints: the program's stdout, then its
  stderr, check problems as <job>.go:LINE:COL, a timeout, panic or crash,
  and a last line "exit status N" (0: it succeeded). Reading it before the
  job ends waits for the end; an interrupted read (Ctrl-C) stops waiting,
  not the job.
- <job> is letters, digits, '_', '-' and '.' (not first), at most 64
  characters. Only run/<job>.go can be written; anything else is refused,
  and run/ERRORS.txt says why.
- Writing run/<job>.go again runs it again: the old result is cleared at
  once (a run still going is cancelled) and <job>.out waits for the new run.
- rm run/<job>.go (or any of its files) removes the job and its results,
  and cancels it if it is running.
- Up to 4 jobs run at once; the others are queued. Each has the time limit
  of mcpfs run (30 s by default). Long stdout or stderr is cut with a note
  naming a file that holds it whole; a .out holds at most 4 MiB.
- Jobs live in memory only: the 100 newest (64 MiB in all) are kept and the
  oldest finished ones are forgotten, their .go included. Nothing survives
  an unmount. Save reusable code as a skill (skills/<name>/).
`
