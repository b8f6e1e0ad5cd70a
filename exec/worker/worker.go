package worker

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	iofs "io/fs"
	"os"
	"path"
	"reflect"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"testing/fstest"
	"time"
	_ "time/tzdata" // time zones without file access

	"github.com/traefik/yaegi/interp"

	"github.com/mcpfs/mcpfs/exec/check"
	"github.com/mcpfs/mcpfs/exec/internal/sandbox"
	"github.com/mcpfs/mcpfs/exec/internal/shim"
	"github.com/mcpfs/mcpfs/exec/internal/stdsyms"
	"github.com/mcpfs/mcpfs/fs/gen/runtime/mcp"
)

// Arg is the first argument that marks a worker process; EnvMarker=1 must
// be set as well, so that a user typing the argument does not get one.
const (
	Arg       = "__mcpfs_worker"
	EnvMarker = "MCPFS_WORKER"
)

// ControlFD is the file descriptor of the control channel in the worker.
const ControlFD = 3

// Config is what the parent tells a worker on its command line.
type Config struct {
	Limits sandbox.Limits `json:"limits"`
	// UID and GID are the user and group a worker started as root
	// switches to before it runs anything (sandbox.DropPrivileges).
	UID int `json:"uid,omitempty"`
	GID int `json:"gid,omitempty"`
	// CallSlots bounds the calls in flight to one server, and ServerBytes
	// their bytes (CallCharge): the parent refuses calls beyond either, so
	// the worker holds them until there is room. Zero: no limit.
	CallSlots   int   `json:"call_slots,omitempty"`
	ServerBytes int64 `json:"server_bytes,omitempty"`
	// Skip names sandbox layers to leave out: only for tests of the
	// layers below one (sandbox.Apply).
	Skip []string `json:"skip,omitempty"`
	// MaxStack bounds one goroutine's stack in bytes (deep recursion).
	MaxStack int `json:"max_stack,omitempty"`
	// OwnProc says the parent started the worker as pid 1 of new PID and
	// mount namespaces: it mounts a /proc of its own first
	// (sandbox.OwnProc).
	OwnProc bool `json:"own_proc,omitempty"`
}

// Args returns the command line arguments (after argv[0]) that start a
// worker with cfg.
func Args(cfg Config) []string {
	b, _ := json.Marshal(cfg) // cannot fail: plain values
	return []string{Arg, string(b)}
}

// IsWorker reports whether this process was started as a snippet worker.
func IsWorker() bool {
	return len(os.Args) >= 3 && os.Args[1] == Arg && os.Getenv(EnvMarker) == "1"
}

// Unrestricted are the symbols a job marked Unrestricted gets in place of
// the allowlisted standard library. It is nil in mcpfs; the sandbox tests
// set it (the whole standard library, syscall, unsafe) to prove that the
// process layers hold when the interpreter's allowlist does not.
var Unrestricted interp.Exports

// Exit statuses of Main.
const (
	exitOK       = 0
	exitProtocol = 3 // the control channel broke or sent nonsense
	// ExitNoProc: asked for a PID namespace, a cgo build could not have a
	// /proc of its own there, without which Landlock's libpsx hangs. The
	// parent starts workers without a PID namespace then.
	ExitNoProc = 4
)

// Main runs the worker and returns its exit status. Call it only when
// IsWorker is true.
func Main() int {
	// Before anything else: descriptors mcpfs inherited without
	// close-on-exec must not reach the snippet.
	fds := sandbox.CloseInherited(ControlFD)
	var cfg Config
	if err := json.Unmarshal([]byte(os.Args[2]), &cfg); err != nil {
		fmt.Fprintf(os.Stderr, "mcpfs worker: bad configuration %q: %v\n", os.Args[2], err)
		return exitProtocol
	}
	os.Clearenv()
	var pidns []sandbox.Layer
	if cfg.OwnProc {
		l := sandbox.OwnProc()
		switch {
		case !l.Active && sandbox.PSX:
			fmt.Fprintf(os.Stderr, "mcpfs worker: no PID namespace: %s\n", l.Detail)
			return ExitNoProc
		case !l.Active:
			// Born in the namespace, the worker signals no process outside
			// it; only the host's /proc stays in view (Landlock and
			// seccomp's file rules keep it closed).
			l = sandbox.Layer{Name: sandbox.LayerPIDNS, Active: true, Detail: "its own PID namespace: the worker is pid 1 and signals no other process (the host's /proc stays mounted: " + l.Detail + ")"}
		}
		pidns = append(pidns, l)
	}
	// Non-blocking, the channel goes through the runtime's poller: a call
	// waiting for its result parks its goroutine, not a thread, and can be
	// woken by its context through a read deadline (see bridge).
	if err := syscall.SetNonblock(ControlFD, true); err != nil {
		fmt.Fprintf(os.Stderr, "mcpfs worker: no control channel on fd %d: %v\n", ControlFD, err)
		return exitProtocol
	}
	ctl := os.NewFile(ControlFD, "control")
	if err := ctl.SetReadDeadline(time.Time{}); err != nil {
		fmt.Fprintf(os.Stderr, "mcpfs worker: control channel on fd %d: %v\n", ControlFD, err)
		return exitProtocol
	}
	conn := NewConn(ctl, ctl)

	// Everything that needs files happens before the sandbox: the local
	// time zone, /proc for the memory size.
	_ = time.Now().Local().String()
	if cfg.MaxStack > 0 {
		debug.SetMaxStack(cfg.MaxStack)
	}
	layers := append(append([]sandbox.Layer{fds}, pidns...), sandbox.Apply(cfg.Limits, cfg.UID, cfg.GID, cfg.Skip...)...)

	// The interpreter with its standard library is ready before the job
	// arrives: that is most of a short run's start-up.
	br := newBridge(conn, ctl.SetReadDeadline, os.Exit)
	br.flow = newFlow(cfg.CallSlots, cfg.ServerBytes)
	mcp.Transport = br.Call
	// The run ends with one Done message: when main returns, or when the
	// snippet calls mcp.Exit (in any goroutine), which then ends the
	// process as os.Exit would.
	var doneOnce sync.Once
	done := func(f *Failure) (sent bool, err error) {
		doneOnce.Do(func() {
			sent = true
			// The snippet's output ends here, as Go's does when main
			// returns: closed first, so that the parent has all of it once
			// it reads to the end, and need not wait for this process to
			// exit.
			os.Stdout.Close()
			os.Stderr.Close()
			err = conn.Write(&Message{Type: TypeDone, Failure: f})
		})
		return sent, err
	}
	mcp.Exiter = func(code int) {
		var f *Failure
		if code != 0 {
			f = &Failure{Kind: FailExit, Code: code, Msg: fmt.Sprintf("exit status %d", code)}
		}
		sent, err := done(f)
		switch {
		case !sent:
			select {} // main returned: the worker is ending already
		case err != nil:
			os.Exit(exitProtocol)
		}
		os.Exit(exitOK)
	}
	files := &jobFS{}
	prepared, prepErr := newInterp(files, false)

	if err := conn.Write(&Message{Type: TypeReady, Layers: layers}); err != nil {
		return exitProtocol
	}
	// Started with GOGC=off (see exec's spawn): the snippet runs with the
	// collector on.
	debug.SetGCPercent(100)
	m, err := conn.Read()
	if err != nil || m.Type != TypeJob || m.Job == nil {
		// The parent closed the channel (pool shut down) or broke protocol.
		return exitProtocol
	}

	var fail *Failure
	switch {
	case m.Job.Unrestricted:
		files = &jobFS{}
		i, err := newInterp(files, true)
		if err != nil {
			fail = &Failure{Kind: FailCompile, Msg: err.Error()}
			break
		}
		fail = run(m.Job, i, files)
	case prepErr != nil:
		fail = &Failure{Kind: FailCompile, Msg: prepErr.Error()}
	default:
		fail = run(m.Job, prepared, files)
	}
	sent, err := done(fail)
	switch {
	case !sent:
		select {} // mcp.Exit is ending the process
	case err != nil:
		return exitProtocol
	}
	return exitOK
}

// jobFS is the interpreter's source file system: empty until the job
// fills it. Only the goroutine that runs the job touches it.
type jobFS struct{ m fstest.MapFS }

func (j *jobFS) Open(name string) (iofs.File, error) {
	if j.m == nil {
		return nil, &iofs.PathError{Op: "open", Path: name, Err: iofs.ErrNotExist}
	}
	return j.m.Open(name)
}

// newInterp returns an interpreter over files with the allowlisted
// standard library (or, for unrestricted, the Unrestricted symbols) and the
// compiled runtime package, whose Transport Main points at the bridge.
func newInterp(files *jobFS, unrestricted bool) (*interp.Interpreter, error) {
	i := interp.New(interp.Options{
		GoPath:               ".",
		SourcecodeFilesystem: files,
		Stdin:                strings.NewReader(""),
		Stdout:               os.Stdout,
		Stderr:               os.Stderr,
		Args:                 []string{"snippet"},
		Env:                  []string{},
		Unrestricted:         unrestricted,
	})
	syms := allowed(unrestricted)
	if syms == nil {
		return nil, errors.New("this worker refuses unrestricted jobs")
	}
	if err := i.Use(syms); err != nil {
		return nil, fmt.Errorf("load the standard library: %w", err)
	}
	if err := i.Use(runtimeSymbols); err != nil {
		return nil, fmt.Errorf("load the runtime package %s: %w", RuntimeImport, err)
	}
	if err := i.Use(shim.Symbols); err != nil {
		return nil, fmt.Errorf("load the rewrite's helpers %s: %w", shim.ImportPath, err)
	}
	// A snippet's os.Stdout and os.Stderr (the check lets nothing else of
	// os through, and the rewrite imports this package in its place) write
	// where fmt.Print and the interpreter write.
	if err := i.Use(shim.OSSymbols(os.Stdout, os.Stderr)); err != nil {
		return nil, fmt.Errorf("load the snippets' os %s: %w", shim.OSPath, err)
	}
	return i, nil
}

// run interprets the job's snippet with i and returns why it failed, or nil.
func run(job *Job, i *interp.Interpreter, files *jobFS) (fail *Failure) {
	name := path.Base(job.Filename)
	if name == "." || name == "/" || !strings.HasSuffix(name, ".go") {
		name = "snippet.go"
	}
	m := fstest.MapFS{name: &fstest.MapFile{Data: job.Source, Mode: 0o444}}
	for p, data := range job.Files {
		m["src/"+p] = &fstest.MapFile{Data: data, Mode: 0o444}
	}
	files.m = m

	defer func() {
		if r := recover(); r != nil {
			fail = &Failure{Kind: FailPanic, Msg: panicMessage(name, r, token.Position{})}
		}
	}()
	if _, err := i.EvalPath(name); err != nil {
		var p interp.Panic
		if errors.As(err, &p) {
			return &Failure{Kind: FailPanic, Msg: panicMessage(name, p.Value, p.Pos)}
		}
		return &Failure{Kind: FailCompile, Msg: err.Error()}
	}
	return nil
}

// panicMessage is Go's message for the panic value v (reflect's messages
// for run-time errors become Go's), after "file:line: " when the rewrite
// recorded where it happened or else the interpreter knows it (pos, the
// expression that panicked: a nil pointer dereference, a write to a nil
// map, a failed type assertion, a division by zero).
func panicMessage(file string, v any, pos token.Position) string {
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
		v = rv.Interface() // how the interpreter hands over some panic values
	}
	if l, ok := v.(shim.Located); ok {
		return string(l) // "file:line: message"
	}
	v = shim.GoPanic(v)
	if re, ok := v.(*shim.RuntimeError); ok && re.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", file, re.Line, re.Msg)
	}
	var msg string
	if err, ok := v.(error); ok {
		msg = err.Error()
	} else {
		msg = fmt.Sprint(v)
	}
	if m := interpPos.FindStringSubmatch(msg); m != nil {
		// The interpreter's own message for a failed type assertion
		// starts with its position: file:line, then Go's words.
		return sourceName(m[1]) + ": " + m[2]
	}
	if pos.IsValid() && pos.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", sourceName(pos.Filename), pos.Line, msg)
	}
	return msg
}

// interpPos is the position at the start of some of the interpreter's
// panic messages: file:line, then the column to drop.
var interpPos = regexp.MustCompile(`^(\S+\.go:\d+):\d+: (.*)$`)

// sourceName is how a message names the interpreter's file name: the
// snippet's as it is, a package's file by its import path
// ("mcpfs/skills/report/report.go").
func sourceName(name string) string {
	return strings.TrimPrefix(name, "src/")
}

var (
	allowOnce sync.Once
	allowSyms interp.Exports
)

// allowed returns the standard library symbols of the packages a snippet
// may import (check.Allowable: the default allowlist and what a config may
// add; the checker applies each run's own list): never the interpreter's
// own symbol table, os, syscall, unsafe or reflect.
func allowed(unrestricted bool) interp.Exports {
	if unrestricted {
		return Unrestricted
	}
	allowOnce.Do(func() {
		allow := map[string]bool{}
		for _, p := range check.Allowable() {
			allow[p] = true
		}
		allowSyms = interp.Exports{}
		for k, v := range stdsyms.Exports() {
			if k == "." || allow[path.Dir(k)] {
				allowSyms[k] = v
			}
		}
		// text/template's file functions are not there at all (the
		// checker refuses them, this worker again when it is bypassed).
		// Its Template's methods of the same names cannot be taken out:
		// they and any other route to a file are refused by the process
		// layers (Landlock, and seccomp's file calls on kernels without
		// it).
		if syms, ok := allowSyms["text/template/template"]; ok {
			trimmed := map[string]reflect.Value{}
			for name, v := range syms {
				if name != "ParseFiles" && name != "ParseGlob" && name != "ParseFS" {
					trimmed[name] = v
				}
			}
			allowSyms["text/template/template"] = trimmed
		}
	})
	return allowSyms
}
