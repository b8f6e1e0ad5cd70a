package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"path"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpfs/mcpfs/exec/internal/sandbox"
	"github.com/mcpfs/mcpfs/exec/worker"
)

// Layer is one sandbox mechanism and whether it is in force.
type Layer = sandbox.Layer

// CallFunc sends one tool call: server is the server's package name, as
// the generated stubs pass it; the result is the raw CallToolResult. The
// discovery Supervisor's CallTool fits.
type CallFunc func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error)

// Options configure a Runner. The zero value is ready to use.
type Options struct {
	// Logger receives worker start-up problems and the sandbox report at
	// debug level. Nil discards.
	Logger *slog.Logger
	// Timeout is the run time of a Request that sets none. Default 30 s.
	Timeout time.Duration
	// MaxTimeout caps Request.Timeout; it also sets the worker's CPU-time
	// backstop. Default 10 minutes.
	MaxTimeout time.Duration
	// Memory is the memory a snippet may use, in bytes. Default 1 GiB.
	Memory int64
	// MaxOutput is how much of stdout and of stderr a Result holds, each.
	// Longer output is cut with a marker and saved whole (up to
	// MaxOutputFile) in a file under OutputDir. Default 1 MiB.
	MaxOutput int
	// MaxOutputFile caps the saved file of one stream. Default 256 MiB.
	MaxOutputFile int64
	// OutputDir holds the saved output of long runs: an absolute path to
	// a directory of the user's own, such as <data dir>/output (created
	// 0700 when missing; narrowed to 0700 when looser). Never a shared
	// folder such as /tmp/mcpfs-output: a directory another user owns, a
	// symlink or a relative path is refused, and so is "": long output is
	// then cut without being saved, and the cut says why. The saved files
	// of all runs in this process stay within 1 GiB and 64 files at every
	// moment (see CheckOutputDir).
	OutputDir string
	// PoolSize is how many sandboxed workers wait, started, for a job.
	// Default 1; negative means none (every run starts its own).
	PoolSize int
	// MaxConcurrentCalls bounds the tool calls one run has in flight to
	// one server; each server has its own slots, so a server that does
	// not answer never holds up calls to another. Default 16.
	MaxConcurrentCalls int
	// MaxRunMemory bounds what the parent holds on one run's behalf: the
	// arguments of the calls it has read and the results it has not sent
	// back yet. When it is reached the parent stops reading the run's
	// calls until some end (the snippet's calls wait); calls to a server
	// that holds a quarter of it already fail at once. Output is bounded
	// apart (MaxOutput). Default 128 MiB.
	MaxRunMemory int64
	// Strict refuses to run snippets unless every sandbox layer is active.
	Strict bool
	// User is the user a worker switches to, with no capabilities, when
	// mcpfs runs as root: the worker starts as root, then drops to it
	// before it reads its job (sandbox.DropPrivileges). Nil means nobody
	// (65534:65534); a Uid or Gid of 0 is refused. Ignored when mcpfs does
	// not run as root: workers then run as its own user, with no
	// capabilities.
	User *syscall.Credential
	// Executable is the program to start as a worker. Default
	// /proc/self/exe: this program, whose main must call worker.IsWorker
	// and worker.Main first.
	Executable string
}

// Defaults of Options.
const (
	DefaultTimeout            = 30 * time.Second
	DefaultMaxTimeout         = 10 * time.Minute
	DefaultMemory             = sandbox.DefaultMemory
	DefaultMaxOutput          = 1 << 20
	DefaultMaxOutputFile      = 256 << 20
	DefaultPoolSize           = 1
	DefaultMaxConcurrentCalls = 16
	DefaultMaxRunMemory       = 128 << 20
)

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxTimeout <= 0 {
		o.MaxTimeout = DefaultMaxTimeout
	}
	if o.Timeout > o.MaxTimeout {
		o.MaxTimeout = o.Timeout
	}
	if o.Memory <= 0 {
		o.Memory = DefaultMemory
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if o.MaxOutputFile <= 0 {
		o.MaxOutputFile = DefaultMaxOutputFile
	}
	if o.PoolSize == 0 {
		o.PoolSize = DefaultPoolSize
	}
	if o.MaxConcurrentCalls <= 0 {
		o.MaxConcurrentCalls = DefaultMaxConcurrentCalls
	}
	if o.MaxRunMemory <= 0 {
		o.MaxRunMemory = DefaultMaxRunMemory
	}
	if o.Executable == "" {
		o.Executable = "/proc/self/exe"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Request is one snippet to run.
type Request struct {
	// Filename names the snippet in errors. Default "snippet.go".
	Filename string
	// Source is the snippet as check.Check returned it (Program.Source).
	Source []byte
	// Tree holds the packages the snippet imports (an mcpfs tree), and
	// Packages lists them (Program.TreePackages, "mcpfs/servers/x"). The
	// worker has no file access: these packages' sources are sent to it.
	// The runtime package mcpfs/mcp is never sent: the worker has it
	// compiled in.
	Tree     iofs.FS
	Packages []string
	// Files replaces files of Tree by path ("skills/x/x.go"): the skill
	// files that check rewrote for the interpreter (Program.Files).
	Files map[string][]byte
	// Timeout bounds the run. Zero means Options.Timeout.
	Timeout time.Duration
	// Strict refuses to run unless every sandbox layer is active, as
	// Options.Strict does for every run.
	Strict bool
	// Call sends the snippet's tool calls. Nil makes every call fail.
	Call CallFunc
	// Progress, when set, is called after each tool call ends, from the
	// goroutine that ran it.
	Progress func(Call)
	// Stdout and Stderr, when set, also receive the snippet's output as
	// it is written, line by line (a line left unfinished for 50 ms as
	// it is): the start of what Result.Stdout and Result.Stderr will
	// hold, and, once Run returns, the rest of it. A stream over
	// Options.MaxOutput is cut there at once with a note line; at the end
	// it gets the Result's marker (how long it was, where it is saved).
	// On stderr the lines of a panic report are held until the end and
	// come as the Result has them (trimmed). Writes may block: the run
	// does not wait for them (the bytes wait in memory, at most MaxOutput
	// per stream), but Run returns only after the last one.
	Stdout, Stderr io.Writer

	unrestricted bool // tests of the sandbox: see worker.Unrestricted
}

// Call is one tool call a snippet made.
type Call struct {
	Server   string
	Tool     string
	Duration time.Duration
	Err      string // "" when the call returned a result (even an isError one)
}

// Result is what a run produced. Run returns it whenever the worker ran,
// also with an error.
type Result struct {
	// Stdout and Stderr are the snippet's output, cut at
	// Options.MaxOutput with a marker line.
	Stdout, Stderr []byte
	// StdoutFile and StderrFile hold a cut stream in full ("" when the
	// stream was not cut).
	StdoutFile, StderrFile string
	// Calls are the tool calls in the order they ended.
	Calls    []Call
	Duration time.Duration
	// ExitCode is the worker's exit status: 0 after main returned, -1 when
	// killed by a signal.
	ExitCode int
	// Layers are the sandbox layers the run had.
	Layers []Layer
}

// Errors of a run; a *RunError wraps one of them.
var (
	ErrCompile       = errors.New("the snippet did not compile")
	ErrPanic         = errors.New("the snippet panicked")
	ErrTimeout       = errors.New("the snippet ran out of time")
	ErrOutOfMemory   = errors.New("the snippet ran out of memory")
	ErrStackOverflow = errors.New("the snippet overflowed its stack")
	ErrCrashed       = errors.New("the snippet's worker process died")
	ErrSandbox       = errors.New("the sandbox is incomplete")
	ErrClosed        = errors.New("the runner is closed")
)

// RunError is why a run failed. Msg starts with file:line:col when the
// interpreter knew the position.
type RunError struct {
	Kind error // one of the Err values
	Msg  string
}

func (e *RunError) Error() string {
	if e.Msg == "" {
		return e.Kind.Error()
	}
	return e.Kind.Error() + ": " + e.Msg
}

func (e *RunError) Unwrap() error { return e.Kind }

// Runner runs snippets in sandboxed worker processes, one process per
// run, with a pool of workers started ahead. It is safe for concurrent use.
type Runner struct {
	opts Options
	cfg  worker.Config
	exe  string

	mu      sync.Mutex
	closed  bool
	idle    []*proc
	filling bool
	fillErr error
	wg      sync.WaitGroup // the filler
	exiting sync.WaitGroup // workers of finished runs, being reaped
	layers  []Layer        // from the last worker that started
}

// NewRunner returns a Runner and starts filling its pool in the
// background.
func NewRunner(opts Options) *Runner {
	opts = opts.withDefaults()
	cpu := uint64(2*opts.MaxTimeout/time.Second) + 10
	r := &Runner{
		opts: opts,
		exe:  opts.Executable,
		cfg: worker.Config{
			Limits:   sandbox.Limits{Memory: opts.Memory, CPUSeconds: cpu},
			MaxStack: int(min(256<<20, opts.Memory/4)),
			// The worker holds calls beyond a server's slots or its
			// share of the run's budget (see budget).
			CallSlots:   opts.MaxConcurrentCalls,
			ServerBytes: newBudget(opts.MaxRunMemory).serverShare(),
			UID:         sandbox.Nobody,
			GID:         sandbox.Nobody,
		},
	}
	if u := opts.User; u != nil {
		r.cfg.UID, r.cfg.GID = int(u.Uid), int(u.Gid)
	}
	r.refill()
	return r
}

// Layers starts a worker if none has started yet and reports the sandbox
// layers it has.
func (r *Runner) Layers(ctx context.Context) ([]Layer, error) {
	r.mu.Lock()
	l := r.layers
	r.mu.Unlock()
	if l != nil {
		return l, nil
	}
	p, err := r.get(ctx)
	if err != nil {
		return nil, err
	}
	r.put(p)
	return p.layers, nil
}

// get returns a ready worker: a pooled one or a new one.
func (r *Runner) get(ctx context.Context) (*proc, error) {
	for {
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return nil, ErrClosed
		}
		var p *proc
		if n := len(r.idle); n > 0 {
			p = r.idle[0]
			r.idle = r.idle[1:]
		}
		r.mu.Unlock()
		if p == nil {
			break
		}
		r.refill()
		if p.alive() {
			return p, nil
		}
		p.wait()
		p.close()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := r.startProc()
	if err != nil {
		return nil, err
	}
	r.setLayers(p.layers)
	r.refill()
	return p, nil
}

// put returns an unused worker to the pool, or ends it.
func (r *Runner) put(p *proc) {
	r.mu.Lock()
	if !r.closed && len(r.idle) < r.opts.PoolSize {
		r.idle = append(r.idle, p)
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	p.kill()
	p.wait()
	p.close()
}

func (r *Runner) setLayers(l []Layer) {
	r.mu.Lock()
	r.layers = l
	r.mu.Unlock()
}

// refill starts the background filler if the pool is short.
func (r *Runner) refill() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.filling || r.opts.PoolSize < 0 || len(r.idle) >= r.opts.PoolSize {
		return
	}
	r.filling = true
	r.wg.Add(1)
	go r.fill()
}

func (r *Runner) fill() {
	defer r.wg.Done()
	for {
		r.mu.Lock()
		if r.closed || len(r.idle) >= r.opts.PoolSize {
			r.filling = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		p, err := r.startProc()
		r.mu.Lock()
		if err != nil {
			// Runs start their own worker and report the error; do not spin.
			r.fillErr = err
			r.filling = false
			r.mu.Unlock()
			r.opts.Logger.Warn("start snippet worker for the pool", "error", err)
			return
		}
		r.layers = p.layers
		if r.closed {
			r.mu.Unlock()
			p.kill()
			p.wait()
			p.close()
			return
		}
		r.idle = append(r.idle, p)
		r.mu.Unlock()
	}
}

// Close ends the pooled workers and waits for them. Runs in progress finish
// on their own; later runs fail with ErrClosed.
func (r *Runner) Close() error {
	r.mu.Lock()
	r.closed = true
	idle := r.idle
	r.idle = nil
	r.mu.Unlock()
	r.wg.Wait()
	for _, p := range idle {
		p.kill()
	}
	for _, p := range idle {
		p.wait()
		p.close()
	}
	r.exiting.Wait()
	return nil
}

// reapLater waits in the background for p, already killed, to be gone;
// Close waits for it.
func (r *Runner) reapLater(p *proc) {
	r.exiting.Add(1)
	go func() {
		defer r.exiting.Done()
		p.wait()
	}()
}

// packageFiles reads the Go files of the tree packages a run needs;
// a file in rewritten (by tree path) is sent instead of the tree's.
func packageFiles(tree iofs.FS, pkgs []string, rewritten map[string][]byte) (map[string][]byte, error) {
	files := map[string][]byte{}
	if tree == nil {
		if len(pkgs) > 0 {
			return nil, fmt.Errorf("the snippet imports %s but the request has no tree", strings.Join(pkgs, ", "))
		}
		return files, nil
	}
	want := map[string]bool{}
	for _, p := range pkgs {
		if p != worker.RuntimeImport { // compiled into the worker
			want[p] = true
		}
	}
	names := make([]string, 0, len(want))
	for p := range want {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		dir, ok := strings.CutPrefix(p, "mcpfs/")
		if !ok || !iofs.ValidPath(dir) {
			return nil, fmt.Errorf("package %q is not in the tree (tree packages start with mcpfs/)", p)
		}
		entries, err := iofs.ReadDir(tree, dir)
		if err != nil {
			return nil, fmt.Errorf("read package %q: %w", p, err)
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			if data, ok := rewritten[path.Join(dir, name)]; ok {
				files[p+"/"+name] = data
				continue
			}
			data, err := iofs.ReadFile(tree, path.Join(dir, name))
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", path.Join(dir, name), err)
			}
			files[p+"/"+name] = data
		}
	}
	return files, nil
}
