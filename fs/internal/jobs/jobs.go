package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Runner runs the program of one job written to run/ and returns what
// `mcpfs run` would show for it. It is called from a goroutine of its own,
// never from a file system request, and must honour ctx: a job is
// cancelled when its file is written again or removed, and when the table
// is closed. A panic in a Runner fails the job; it does not reach the
// caller of the table.
type Runner func(ctx context.Context, job Job) Result

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
	// Output, when the Runner writes to it, shows the output in
	// run/<job>.out as it is produced. Result.Output is the whole output
	// and should start with what was written here: then it only adds
	// what is missing; otherwise it is shown after it. Writes never fail
	// nor block for long; writes after the Runner returned are dropped.
	Output io.Writer
}

// Result is how a job ended.
type Result struct {
	// Output is what the job printed and how it ended, as `mcpfs run`
	// shows it: stdout, then stderr, check problems, and the error.
	Output []byte
	// Err is why the job failed; nil when it succeeded. Its first line is
	// shown in run/<job>.status.
	Err error
}

// Limits of run/.
const (
	MaxRunning   = 4        // jobs running at once; more are queued
	MaxJobs      = 100      // jobs kept; the oldest finished ones go first
	MaxBytes     = 64 << 20 // sources and outputs kept, all jobs together
	MaxOutput    = 4 << 20  // one run/<job>.out
	MaxSource    = 4 << 20  // one run/<job>.go, as `mcpfs run` allows
	MaxName      = 64       // characters of <job>
	maxRefusals  = 20       // lines kept in run/ERRORS.txt
	ReadmeFile   = "README.md"
	ErrorsFile   = "ERRORS.txt"
	drainTimeout = 10 * time.Second // how long Close waits for cancelled jobs
)

// streamLimit is how much of a running job's output is shown: what a
// finished job's output keeps before the note that it was cut.
const streamLimit = MaxOutput - 1024

// Kind is the kind of a file in run/.
type Kind int

const (
	KindSource Kind = iota // <job>.go
	KindOut                // <job>.out
	KindStatus             // <job>.status
	KindReadme             // README.md
	KindErrors             // ERRORS.txt
)

var suffixes = map[Kind]string{KindSource: ".go", KindOut: ".out", KindStatus: ".status"}

// Errors of the table. fs/fuse maps each to an errno.
var (
	// ErrNotExist: no such file in run/ (ENOENT). It is io/fs's.
	ErrNotExist = iofs.ErrNotExist
	// ErrRefused: run/ does not take this operation (EPERM); the reason
	// is in run/ERRORS.txt.
	ErrRefused = errors.New("not allowed in run/")
	// ErrBadName: the job name is not valid (EINVAL).
	ErrBadName = errors.New("invalid job name")
	// ErrFull: run/ holds MaxJobs unfinished jobs, or the table is
	// closed (ENOSPC).
	ErrFull = errors.New("run/ is full")
	// ErrReadOnly: only programs can be written (EACCES).
	ErrReadOnly = errors.New("only run/<job>.go can be written")
	// ErrTooLarge: a program over MaxSource (EFBIG).
	ErrTooLarge = errors.New("program too large")
	// ErrNotDir: run/ holds no folders (ENOTDIR).
	ErrNotDir = errors.New("not a folder")
)

// Why a job was cancelled; the cause ends up in run/<job>.out of whoever
// still reads the cancelled run.
var (
	ErrRewritten = errors.New("cancelled: its file was written again; read run/<job>.out again for the new run")
	ErrRemoved   = errors.New("cancelled: its file was removed")
	ErrClosed    = errors.New("cancelled: the mount ended")
)

// ParseName splits a name in run/ into a job and the kind of file. ok is
// false for names that are no file of run/ at all; a job file with an
// invalid job name is reported by CheckName, not here.
func ParseName(name string) (job string, kind Kind, ok bool) {
	switch name {
	case ReadmeFile:
		return "", KindReadme, true
	case ErrorsFile:
		return "", KindErrors, true
	}
	for k, suffix := range suffixes {
		if stem, found := strings.CutSuffix(name, suffix); found {
			return stem, k, true
		}
	}
	return "", 0, false
}

// FileName is the name in run/ of a job's file of kind k.
func FileName(job string, k Kind) string {
	switch k {
	case KindReadme:
		return ReadmeFile
	case KindErrors:
		return ErrorsFile
	}
	return job + suffixes[k]
}

// CheckName says what is wrong with a job name, nil when nothing is.
func CheckName(job string) error {
	switch {
	case job == "":
		return errors.New("the job name before .go is empty")
	case len(job) > MaxName:
		return fmt.Errorf("the job name has %d characters; at most %d are allowed", len(job), MaxName)
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

// Table is the live content of run/. Its methods are safe for concurrent
// use.
type Table struct {
	runner Runner
	log    *slog.Logger
	slots  chan struct{} // one token per running job
	ctx    context.Context
	stop   context.CancelFunc
	jobsWG sync.WaitGroup
	born   time.Time

	waiting atomic.Int64 // reads of run/<job>.out waiting for output

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
// Table.mu; after done is closed they never change.
type jobRun struct {
	done   chan struct{}
	more   chan struct{} // closed (and replaced) when out grows
	cancel context.CancelCauseFunc
	calls  atomic.Int64

	queued, started, ended time.Time
	phase                  string // queued, running, done, failed
	failure                string // the first line of why it failed
	out                    []byte // grows while running; appended to only
}

// New returns an empty table whose jobs run with runner. A nil logger
// discards.
func New(runner Runner, logger *slog.Logger) *Table {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctx, stop := context.WithCancel(context.Background())
	now := time.Now()
	return &Table{
		runner: runner,
		log:    logger,
		slots:  make(chan struct{}, MaxRunning),
		ctx:    ctx,
		stop:   stop,
		born:   now,
		jobs:   map[string]*job{},
		mtime:  now,
	}
}

// Born is when the table was made: the time of run/README.md.
func (t *Table) Born() time.Time { return t.born }

// ModTime is the time of run/ itself: when its listing last changed.
func (t *Table) ModTime() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.mtime
}

// Waiting is how many reads of run/<job>.out wait for output now.
func (t *Table) Waiting() int64 { return t.waiting.Load() }

// refusal messages by operation, for Refuse.
var refusals = map[string]string{
	"rename":  "renaming is not supported in run/: write run/<job>.go directly",
	"mkdir":   "run/ holds files only: write run/<job>.go",
	"mknod":   "run/ holds regular files only: write run/<job>.go",
	"link":    "links are not supported in run/: write run/<job>.go",
	"symlink": "links are not supported in run/: write run/<job>.go",
}

// Refuse records that op ("rename", "mkdir", "mknod", "link",
// "symlink") on name is not supported in run/, for the log and
// run/ERRORS.txt, and returns ErrRefused.
func (t *Table) Refuse(op, name string) error {
	why, ok := refusals[op]
	if !ok {
		why = op + " is not supported in run/: write run/<job>.go"
	}
	t.refuse(op, name, errors.New(why))
	return ErrRefused
}

func (t *Table) refuse(op, name string, why error) {
	now := time.Now()
	line := fmt.Sprintf("%s %s run/%s: %v", now.Format(time.RFC3339), op, name, why)
	t.log.Info("run/: refused", "op", op, "name", name, "error", why)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.refusals = append(t.refusals, line)
	if len(t.refusals) > maxRefusals {
		t.refusals = t.refusals[len(t.refusals)-maxRefusals:]
	}
	t.refused = now
	t.mtime = now
}

// errorsText is run/ERRORS.txt, nil when nothing was refused. t.mu must
// be held.
func (t *Table) errorsText() []byte {
	if len(t.refusals) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("Refused operations in run/, newest last. Only run/<job>.go files can be\nwritten; see run/README.md. rm run/ERRORS.txt clears this file.\n\n")
	for _, l := range t.refusals {
		b.WriteString(l + "\n")
	}
	return []byte(b.String())
}

// Names lists run/, sorted.
func (t *Table) Names() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := []string{ReadmeFile}
	if len(t.refusals) > 0 {
		out = append(out, ErrorsFile)
	}
	for name, j := range t.jobs {
		out = append(out, name+".go")
		if j.run != nil {
			out = append(out, name+".out", name+".status")
		}
	}
	sort.Strings(out)
	return out
}

// Info describes a file of run/.
type Info struct {
	Job      string // "" for README.md and ERRORS.txt
	Kind     Kind
	Size     int
	Writable bool // only programs are
	ModTime  time.Time
}

// Stat describes the file name of run/; ok is false when there is none.
func (t *Table) Stat(name string) (Info, bool) {
	job, kind, ok := ParseName(name)
	if !ok {
		return Info{}, false
	}
	info := Info{Job: job, Kind: kind}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch kind {
	case KindReadme:
		info.Size, info.ModTime = len(ReadmeText), t.born
		return info, true
	case KindErrors:
		info.Size, info.ModTime = len(t.errorsText()), t.refused
		return info, len(t.refusals) > 0
	}
	j := t.jobs[job]
	switch {
	case j == nil:
		return Info{}, false
	case kind == KindSource:
		info.Writable, info.Size, info.ModTime = true, len(j.src), j.mtime
		return info, true
	case j.run == nil:
		return Info{}, false
	case kind == KindOut:
		info.Size = len(j.run.out)
	case kind == KindStatus:
		info.Size = len(t.statusText(job, j.run))
	}
	info.ModTime = j.run.queued
	if !j.run.ended.IsZero() {
		info.ModTime = j.run.ended
	}
	return info, true
}

// Create makes run/<name>, which must be a program of a valid job name,
// as an empty program, or empties an existing one. A refusal is recorded
// in run/ERRORS.txt: ErrRefused for anything but <job>.go, ErrBadName, or
// ErrFull when run/ holds MaxJobs unfinished jobs.
func (t *Table) Create(name string) error {
	job, kind, ok := ParseName(name)
	if !ok || kind != KindSource {
		t.refuse("create", name, errors.New("only run/<job>.go files can be created; <job>.out and <job>.status appear when the job starts"))
		return ErrRefused
	}
	if err := CheckName(job); err != nil {
		t.refuse("create", name, err)
		return fmt.Errorf("%w: %v", ErrBadName, err)
	}
	if err := t.create(job); err != nil {
		t.refuse("create", name, err)
		return fmt.Errorf("%w: %v", ErrFull, err)
	}
	return nil
}

func (t *Table) create(name string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return ErrClosed
	}
	if j := t.jobs[name]; j != nil {
		j.src, j.mtime = []byte{}, time.Now()
		return nil
	}
	t.evict(1)
	if len(t.jobs) >= MaxJobs {
		return fmt.Errorf("run/ holds %d jobs that have not finished: wait for some, or rm run/<job>.go", len(t.jobs))
	}
	now := time.Now()
	t.jobs[name] = &job{src: []byte{}, mtime: now}
	t.mtime = now
	return nil
}

// Source returns the job's program.
func (t *Table) Source(job string) ([]byte, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	j := t.jobs[job]
	if j == nil {
		return nil, false
	}
	return j.src, true
}

// setSource replaces the job's program; edit makes the new one from the
// old.
func (t *Table) setSource(job string, edit func(old []byte) []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	j := t.jobs[job]
	if j == nil {
		return ErrNotExist
	}
	j.src, j.mtime = edit(j.src), time.Now()
	return nil
}

// WriteAt writes data at off into the job's program. The job starts
// with Start, when the file is closed.
func (t *Table) WriteAt(job string, data []byte, off int64) error {
	if off < 0 || off+int64(len(data)) > MaxSource {
		return ErrTooLarge
	}
	return t.setSource(job, func(cur []byte) []byte {
		buf := make([]byte, max(len(cur), int(off)+len(data)))
		copy(buf, cur)
		copy(buf[off:], data)
		return buf
	})
}

// Truncate cuts or extends the job's program to size.
func (t *Table) Truncate(job string, size int64) error {
	if size < 0 || size > MaxSource {
		return ErrTooLarge
	}
	return t.setSource(job, func(old []byte) []byte {
		out := make([]byte, size)
		copy(out, old)
		return out
	})
}

// Start runs the job's current program, cancelling a run still going.
// It returns at once.
func (t *Table) Start(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	j := t.jobs[name]
	if j == nil || t.closed {
		return
	}
	if old := j.run; old != nil && old.ended.IsZero() {
		old.cancel(ErrRewritten)
	}
	ctx, cancel := context.WithCancelCause(t.ctx)
	now := time.Now()
	run := &jobRun{done: make(chan struct{}), more: make(chan struct{}), cancel: cancel, queued: now, phase: "queued"}
	if j.run == nil {
		t.mtime = now // .out and .status appear
	}
	j.run = run
	t.jobsWG.Add(1)
	go t.execute(ctx, name, run, j.src)
}

// execute waits for a slot, runs the job and records its result.
func (t *Table) execute(ctx context.Context, name string, run *jobRun, src []byte) {
	defer t.jobsWG.Done()
	defer run.cancel(nil)
	select {
	case t.slots <- struct{}{}:
	case <-ctx.Done():
		t.finish(name, run, Result{}, context.Cause(ctx))
		return
	}
	defer func() { <-t.slots }()
	t.mu.Lock()
	run.phase, run.started = "running", time.Now()
	t.mu.Unlock()
	t.log.Info("run/: job started", "job", name)
	res := t.call(ctx, name, run, src)
	var cause error
	if ctx.Err() != nil {
		cause = context.Cause(ctx)
	}
	t.finish(name, run, res, cause)
}

// call runs the Runner, turning a panic into a failed job.
func (t *Table) call(ctx context.Context, name string, run *jobRun, src []byte) (res Result) {
	file := name + ".go"
	defer func() {
		if p := recover(); p != nil {
			t.log.Error("run/: the runner panicked", "job", name, "panic", p, "stack", string(debug.Stack()))
			err := fmt.Errorf("internal error while running %s: %v (the mount goes on; please report it)", file, p)
			res = Result{Output: []byte("mcpfs: " + err.Error() + "\n"), Err: err}
		}
	}()
	return t.runner(ctx, Job{Name: file, Source: src, ToolCall: func() { run.calls.Add(1) }, Output: &stream{t: t, run: run}})
}

// stream is a running job's Job.Output.
type stream struct {
	t   *Table
	run *jobRun
}

// Write appends p to the run's output, up to what run/<job>.out shows,
// and wakes the reads waiting for it.
func (s *stream) Write(p []byte) (int, error) {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	r := s.run
	if !r.ended.IsZero() {
		return len(p), nil
	}
	if room := streamLimit - len(r.out); room > 0 && len(p) > 0 {
		r.out = append(r.out, p[:min(room, len(p))]...)
		close(r.more)
		r.more = make(chan struct{})
	}
	return len(p), nil
}

// finish records how a run ended and releases the readers waiting for it.
// cause is why the run was cancelled, nil when it was not.
func (t *Table) finish(name string, run *jobRun, res Result, cause error) {
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

	t.mu.Lock()
	full := b.Bytes()
	if shown := run.out; !bytes.HasPrefix(full, shown) {
		// The Runner's output does not repeat what it streamed: keep
		// both, so that .out only ever grows.
		full = append(append([]byte(nil), shown...), ensureNewline(full, len(shown) > 0)...)
	}
	out := capOutput(full, fmt.Sprintf("exit status %d\n", status))
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
	close(run.more)
	t.evict(0)
	t.mu.Unlock()
	t.log.Info("run/: job ended", "job", name, "exit_status", status, "duration", now.Sub(run.started).Round(time.Millisecond), "tool_calls", run.calls.Load())
}

// ensureNewline puts a newline before rest when after says the bytes
// before it may not end one.
func ensureNewline(rest []byte, after bool) []byte {
	if !after {
		return rest
	}
	return append([]byte("\n"), rest...)
}

// capOutput returns out, cut to fit MaxOutput with a note, followed by
// the trailer.
func capOutput(out []byte, trailer string) []byte {
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	if len(out)+len(trailer) <= MaxOutput {
		return append(out, trailer...)
	}
	note := fmt.Sprintf("\n[mcpfs: output cut: %d of %d bytes shown; run/ keeps %d MiB of a job's output]\n", streamLimit, len(out), MaxOutput>>20)
	res := make([]byte, 0, MaxOutput)
	res = append(res, out[:streamLimit]...)
	res = append(res, note...)
	return append(res, trailer...)
}

// evict forgets the oldest finished jobs while more than MaxJobs-room
// jobs or more than MaxBytes are kept. Unfinished jobs stay. t.mu must be
// held.
func (t *Table) evict(room int) {
	for {
		total := 0
		for _, j := range t.jobs {
			total += len(j.src)
			if j.run != nil {
				total += len(j.run.out)
			}
		}
		if len(t.jobs)+room <= MaxJobs && total <= MaxBytes {
			return
		}
		oldest := ""
		var at time.Time
		for name, j := range t.jobs {
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
		t.log.Debug("run/: forgetting an old job", "job", oldest)
		delete(t.jobs, oldest)
		t.mtime = time.Now()
	}
}

// Remove removes the file name of run/: any file of a job removes the job
// (cancelling its run), ERRORS.txt is emptied. README.md is refused
// (ErrRefused); a file that is not there is ErrNotExist.
func (t *Table) Remove(name string) error {
	job, kind, ok := ParseName(name)
	switch {
	case !ok:
		return ErrNotExist
	case kind == KindReadme:
		t.refuse("remove", name, errors.New("README.md is part of the mount"))
		return ErrRefused
	case kind == KindErrors:
		if !t.clearRefusals() {
			return ErrNotExist
		}
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	j := t.jobs[job]
	if j == nil || (kind != KindSource && j.run == nil) {
		return ErrNotExist // no such result (yet)
	}
	if j.run != nil && j.run.ended.IsZero() {
		j.run.cancel(ErrRemoved)
	}
	delete(t.jobs, job)
	t.mtime = time.Now()
	return nil
}

// clearRefusals empties run/ERRORS.txt; false when it was empty.
func (t *Table) clearRefusals() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.refusals) == 0 {
		return false
	}
	t.refusals = nil
	t.mtime = time.Now()
	return true
}

// Snapshot returns what run/<job>.status or run/ERRORS.txt says now, for
// an open file to read from: reads at growing offsets then agree.
func (t *Table) Snapshot(name string) ([]byte, bool) {
	job, kind, ok := ParseName(name)
	if !ok {
		return nil, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch kind {
	case KindReadme:
		return []byte(ReadmeText), true
	case KindErrors:
		data := t.errorsText()
		return data, data != nil
	case KindStatus:
		j := t.jobs[job]
		if j == nil || j.run == nil {
			return nil, false
		}
		return t.statusText(job, j.run), true
	}
	return nil, false
}

// statusText is run/<job>.status of run. t.mu must be held.
func (t *Table) statusText(name string, run *jobRun) []byte {
	calls := plural(int(run.calls.Load()), "tool call")
	switch run.phase {
	case "queued":
		return fmt.Appendf(nil, "queued %s: %d jobs are running; this one starts when one of them ends\n", since(run.queued), MaxRunning)
	case "running":
		return fmt.Appendf(nil, "running %s, %s; cat run/%s.out shows the output as it comes and ends with the job\n", since(run.started), calls, name)
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

// Output is run/<job>.out opened on one run: it keeps reading that run
// even when the job is written again meanwhile.
type Output struct {
	t   *Table
	run *jobRun
}

// OpenOutput opens run/<job>.out on the job's latest run.
func (t *Table) OpenOutput(job string) (*Output, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	j := t.jobs[job]
	if j == nil || j.run == nil {
		return nil, false
	}
	return &Output{t: t, run: j.run}, true
}

// Read returns up to n bytes of the output at off. While the run goes on
// and has nothing past off yet, it waits for more output or the end; an
// empty result means the end of a finished run. It returns ctx's error
// when ctx ends first.
func (o *Output) Read(ctx context.Context, off int64, n int) ([]byte, error) {
	if off < 0 {
		return nil, iofs.ErrInvalid
	}
	t, r := o.t, o.run
	counted := false
	defer func() {
		if counted {
			t.waiting.Add(-1)
		}
	}()
	for {
		t.mu.Lock()
		out, ended, more := r.out, !r.ended.IsZero(), r.more
		t.mu.Unlock()
		if off < int64(len(out)) {
			end := min(off+int64(n), int64(len(out)))
			return out[off:end], nil
		}
		if ended {
			return nil, nil
		}
		if !counted {
			counted = true
			t.waiting.Add(1)
		}
		select {
		case <-more:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Close cancels every job and waits for them to end, at most 10 seconds.
// Later writes are refused.
func (t *Table) Close() {
	t.mu.Lock()
	t.closed = true
	for _, j := range t.jobs {
		if j.run != nil && j.run.ended.IsZero() {
			j.run.cancel(ErrClosed)
		}
	}
	t.mu.Unlock()
	t.stop()
	done := make(chan struct{})
	go func() { t.jobsWG.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(drainTimeout):
		t.log.Warn("run/: jobs still running after the mount ended; the runner does not honour cancellation", "waited", drainTimeout)
	}
}
