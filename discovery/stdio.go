package discovery

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// inheritedEnv names the variables a stdio server inherits from mcpfs's own
// environment; everything else it sees comes from the config's "env". A
// server gets no API keys or tokens by accident this way.
//
// The base is what MCP's reference clients pass (HOME, LOGNAME, PATH, SHELL,
// TERM, USER). Added: what node, npx, uvx and docker need to start at all or
// to fetch a package on first run: USER's locale (LANG, LC_ALL, LC_CTYPE),
// temporary and cache directories (TMPDIR, XDG_*), TZ, proxies and CA
// bundles (a download through a corporate proxy), and the active node
// version manager's variables (NVM_DIR, NVM_BIN, which npx scripts consult).
var inheritedEnv = []string{
	"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER",
	"LANG", "LC_ALL", "LC_CTYPE",
	"TMPDIR", "TZ",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "XDG_STATE_HOME",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
	"NVM_DIR", "NVM_BIN",
	"DOCKER_HOST",
}

const (
	// stdinWriteTimeout bounds one write to a server's stdin. A server that
	// stops reading for this long is treated as hung and stopped.
	stdinWriteTimeout = 30 * time.Second
	// stderrLineMax bounds one logged stderr line; the rest is dropped.
	stderrLineMax = 4 << 10
	// stderrTailLines is how many stderr lines a failure message quotes.
	stderrTailLines   = 5
	stderrTailLineMax = 300

	// Stopping: close stdin and wait, then SIGTERM the process group and
	// wait, then SIGKILL it.
	stopStdinGrace = 500 * time.Millisecond
	stopTermGrace  = 2 * time.Second
)

// process is a stdio server running in its own process group. mcp-go's
// transport talks to it through stdin and a bounded view of stdout; mcpfs
// owns the process itself: start, stderr, exit status and teardown.
type process struct {
	name   string
	log    *slog.Logger
	cmd    *osexec.Cmd
	pgid   int
	stdin  *stdinWriter
	stdout *stdoutFilter // what the transport reads
	ids    *idTracker
	outR   *os.File
	errR   *os.File

	exited  chan struct{} // closed once the process is reaped
	waitErr error         // cmd.Wait's result, set before exited closes

	stderrDone chan struct{}
	tailMu     sync.Mutex
	tail       []string // the last stderr lines
	stderrRate rateLimit

	reaper *os.File // write end of the group reaper's stdin; nil without one

	failMu  sync.Mutex
	failErr error // why mcpfs killed the process, if it did

	stopOnce sync.Once
}

// startProcess starts sc's command in its own process group with a minimal
// environment, its stderr logged line by line and its stdout capped at
// maxLine bytes per line.
func startProcess(sc ServerConfig, maxLine, maxList int, log *slog.Logger) (*process, error) {
	cmd := osexec.Command(sc.Command, sc.Args...)
	if pathList, ok := sc.Env["PATH"]; ok && !strings.Contains(sc.Command, "/") {
		// The config's PATH decides where the command is found, as it would
		// in a shell started with that environment.
		if p, err := lookPathIn(sc.Command, pathList); err == nil {
			cmd.Path, cmd.Err = p, nil
		}
	}
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if sc.Cwd != "" {
		// Checked here: a missing directory fails the fork with an error
		// naming only the command.
		if fi, err := os.Stat(sc.Cwd); err != nil {
			return nil, fmt.Errorf("working directory (cwd): %w", err)
		} else if !fi.IsDir() {
			return nil, fmt.Errorf("working directory (cwd) %q is not a directory", sc.Cwd)
		}
	}
	cmd.Env = serverEnv(sc.Env)
	cmd.Dir = sc.Cwd
	cmd.SysProcAttr = sysProcAttr()

	var files []*os.File // every end, closed on failure
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, err
	}
	// The child has its ends now; holding them would hide its exit (no EOF).
	inR.Close()
	outW.Close()
	errW.Close()

	ids := newIDTracker(log)
	p := &process{
		name:       sc.Name,
		log:        log,
		cmd:        cmd,
		pgid:       cmd.Process.Pid, // Setpgid with Pgid 0: the group is the child's pid
		stdin:      &stdinWriter{f: inW, sent: ids.sent},
		ids:        ids,
		outR:       outR,
		errR:       errR,
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	p.stdout = newStdoutFilter(outR, maxLine, log, p.fail, p.stdoutEnded)
	p.stdout.frame = ids.received
	if maxList < maxLine {
		p.stdout.maxList, p.stdout.onlyListing = maxList, ids.onlyListing
	}
	p.stderrRate = rateLimit{burst: rateLimitBurst, per: rateLimitWindow}
	p.startReaper()
	log.Debug("started", "pid", cmd.Process.Pid, "command", cmd.Path)
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	go p.drainStderr()
	return p, nil
}

// reaperScript waits for its stdin to end, which happens when mcpfs closes
// the pipe or dies however it dies, then kills its own process group.
const reaperScript = "read _; kill -KILL 0"

// startReaper puts a small shell into the server's process group that
// kills the whole group, grandchildren too, once mcpfs is gone: the
// parent-death signal reaches only the server itself. Without /bin/sh the
// server runs without one.
func (p *process) startReaper() {
	r, w, err := os.Pipe()
	if err != nil {
		p.log.Debug("no process group reaper", "err", err)
		return
	}
	cmd := osexec.Command("/bin/sh", "-c", reaperScript)
	cmd.Stdin = r
	cmd.Env = []string{}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: p.pgid}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		p.log.Debug("no process group reaper", "err", err)
		return
	}
	p.reaper = w
	go func() { _ = cmd.Wait() }()
}

// serverEnv is the inherited minimum plus the configured variables, which
// win.
func serverEnv(configured map[string]string) []string {
	env := make(map[string]string, len(inheritedEnv)+len(configured))
	for _, k := range inheritedEnv {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	maps.Copy(env, configured)
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// lookPathIn finds an executable named name in the directories of pathList.
func lookPathIn(name, pathList string) (string, error) {
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &osexec.Error{Name: name, Err: osexec.ErrNotFound}
}

// fail records why mcpfs gives up on the process and kills its group.
func (p *process) fail(err error) {
	p.failMu.Lock()
	first := p.failErr == nil
	if first {
		p.failErr = err
	}
	p.failMu.Unlock()
	if first {
		p.log.Warn("stopping server", "err", err)
		p.signal(syscall.SIGKILL)
	}
}

// stdoutEnded is called when the server's stdout ends. Normally the
// process is exiting; one that closed stdout and lives on can never answer
// again, so it is stopped.
func (p *process) stdoutEnded() {
	go func() {
		if !waitFor(p.exited, time.Second) {
			p.fail(errors.New("server closed its stdout but kept running"))
		}
	}()
}

// exitError describes how the process ended: mcpfs's reason for killing it,
// or its exit status, with its last stderr lines. Call after exited closed.
func (p *process) exitError() error {
	p.failMu.Lock()
	failErr := p.failErr
	p.failMu.Unlock()
	// Stderr usually ends with the process; wait briefly for its last lines.
	select {
	case <-p.stderrDone:
	case <-time.After(200 * time.Millisecond):
	}
	p.tailMu.Lock()
	tail := slices.Clone(p.tail)
	p.tailMu.Unlock()
	suffix := ""
	if len(tail) > 0 {
		suffix = "; last stderr: " + strings.Join(tail, " | ")
	}
	if failErr != nil {
		return fmt.Errorf("%w%s", failErr, suffix)
	}
	status := "exit status 0"
	var ee *osexec.ExitError
	if errors.As(p.waitErr, &ee) {
		status = ee.String() // "exit status 3", "signal: killed"
	} else if p.waitErr != nil {
		status = p.waitErr.Error()
	}
	return fmt.Errorf("server process exited (%s)%s", status, suffix)
}

// signal sends sig to the whole process group. Errors (the group is gone)
// do not matter.
func (p *process) signal(sig syscall.Signal) {
	_ = syscall.Kill(-p.pgid, sig)
}

// stop ends the server the way MCP's stdio transport describes: close its
// stdin, wait, SIGTERM, wait, SIGKILL; then it SIGKILLs whatever the server
// left in its process group, reaps it and closes mcpfs's pipe ends.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		_ = p.stdin.Close()
		if !waitFor(p.exited, stopStdinGrace) {
			p.signal(syscall.SIGTERM)
			p.signal(syscall.SIGCONT) // a stopped process acts on SIGTERM only once continued
			if !waitFor(p.exited, stopTermGrace) {
				p.signal(syscall.SIGKILL)
				<-p.exited
			}
		}
		p.signal(syscall.SIGKILL)
		if p.reaper != nil {
			p.reaper.Close()
		}
		// Unblocks the transport's reader even if a process outside the
		// group still holds the pipe.
		p.outR.Close()
		if !waitFor(p.stderrDone, 200*time.Millisecond) {
			p.errR.Close()
			<-p.stderrDone
		} else {
			p.errR.Close()
		}
	})
}

func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// drainStderr logs the server's stderr line by line, keeping the last lines
// for failure messages. It reads until the pipe ends, so the server never
// blocks writing to stderr.
func (p *process) drainStderr() {
	defer close(p.stderrDone)
	br := bufio.NewReaderSize(p.errR, stderrLineMax)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// Overlong line: log its head, skip the rest.
			p.logStderr(string(line) + "...")
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil {
				return
			}
			continue
		}
		if len(line) > 0 {
			p.logStderr(string(bytes.TrimRight(line, "\r\n")))
		}
		if err != nil {
			return
		}
	}
}

func (p *process) logStderr(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	if ok, suppressed := p.stderrRate.allow(time.Now()); ok {
		if suppressed > 0 {
			p.log.Info("server stderr: lines not logged (rate limit)", "lines", suppressed)
		}
		p.log.Info("server stderr", "line", line)
	}
	p.tailMu.Lock()
	p.tail = append(p.tail, truncate(line, stderrTailLineMax))
	if len(p.tail) > stderrTailLines {
		p.tail = p.tail[len(p.tail)-stderrTailLines:]
	}
	p.tailMu.Unlock()
}

// stdinWriter is the server's stdin: each write has a deadline, so a server
// that stops reading cannot block a caller forever, and Close is idempotent
// (both the transport and process.stop close it).
type stdinWriter struct {
	f    *os.File
	sent func(frame []byte) // told about each frame; the transport writes one per call
	once sync.Once
	err  error
}

func (w *stdinWriter) Write(b []byte) (int, error) {
	if w.sent != nil {
		w.sent(b)
	}
	_ = w.f.SetWriteDeadline(time.Now().Add(stdinWriteTimeout))
	n, err := w.f.Write(b)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("server did not read its stdin for %v: %w", stdinWriteTimeout, err)
	}
	return n, err
}

func (w *stdinWriter) Close() error {
	w.once.Do(func() { w.err = w.f.Close() })
	return w.err
}

// stdoutFilter passes the server's stdout to mcp-go's transport line by
// line. It bounds each line at max bytes (mcp-go's line reader has no
// bound) and fails the server past that; it drops lines that are not JSON
// objects (a server's debug prints, a banner), logging them at a bounded
// rate. Any read error becomes io.EOF for the transport (which would
// otherwise log it to slog's default logger); the process's exit reports
// what happened.
type stdoutFilter struct {
	br      *bufio.Reader
	max     int
	fail    func(error)
	eof     func()
	log     *slog.Logger
	skipped rateLimit
	flood   floodGate
	frame   func(line []byte) // told about each JSON line passed on, if set

	// A line longer than maxList while onlyListing says that a tools/list
	// alone waits is refused like one over max (the listing's bound).
	maxList     int
	onlyListing func() bool

	line    []byte // the line being read
	pending []byte // the rest of a JSON line not yet handed out
	done    bool
}

func newStdoutFilter(r io.Reader, max int, log *slog.Logger, fail func(error), eof func()) *stdoutFilter {
	return &stdoutFilter{
		br:      bufio.NewReaderSize(r, 64<<10),
		max:     max,
		fail:    fail,
		eof:     eof,
		log:     log,
		skipped: rateLimit{burst: rateLimitBurst, per: rateLimitWindow},
		flood:   floodGate{log: log},
	}
}

func (l *stdoutFilter) Read(b []byte) (int, error) {
	for len(l.pending) == 0 {
		if l.done {
			return 0, io.EOF
		}
		line, err := l.readLine()
		if len(line) > 0 && !l.done {
			if msg, ok := l.guard(line); !ok {
				// dropped, noted
			} else if isJSONObjectLine(msg) {
				l.pending = msg
				if l.frame != nil {
					l.frame(msg)
				}
			} else {
				l.skip(msg)
			}
		}
		if err != nil && !l.done {
			l.done = true
			if !errors.Is(err, io.EOF) && !errors.Is(err, fs.ErrClosed) {
				l.fail(fmt.Errorf("reading the server's stdout: %w", err))
			} else {
				l.eof()
			}
		}
	}
	n := copy(b, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// readLine reads one line, newline included, up to max bytes.
func (l *stdoutFilter) readLine() ([]byte, error) {
	l.line = l.line[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		n := len(l.line) + len(bytes.TrimRight(chunk, "\r\n"))
		if l.onlyListing != nil && n > l.maxList && l.onlyListing() {
			l.done = true
			l.line = l.line[:0]
			l.fail(fmt.Errorf("%w: the answer to tools/list is over %d bytes (the server's \"maxListBytes\" in its \"mcpfs\" object raises the bound)", ErrListTooLarge, l.maxList))
			return nil, io.EOF
		}
		if n > l.max {
			l.done = true
			l.line = l.line[:0]
			l.fail(fmt.Errorf("server wrote a line of more than %d bytes to stdout; a JSON-RPC message that large is refused", l.max))
			return nil, io.EOF
		}
		l.line = append(l.line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return l.line, err
	}
}

// guard looks at a line before anything decodes it: a chatty
// notification past its rate is dropped; a message nested deeper than
// MaxJSONDepth is dropped, or, when it answers a request, replaced by an
// error answer saying why. It returns what to pass on, if anything.
func (l *stdoutFilter) guard(line []byte) ([]byte, bool) {
	t := bytes.TrimLeft(line, " \t\r")
	if len(t) == 0 || t[0] != '{' {
		return line, true
	}
	h := scanHead(t)
	if h.depth > MaxJSONDepth {
		if h.method == "" && h.id != nil {
			l.log.Warn("refused an answer that nests deeper than the bound; its request fails", "id", truncate(string(h.id), 100), "depth", h.depth, "max", MaxJSONDepth)
			return refusal(h.id, h.depth), true
		}
		if ok, suppressed := l.skipped.allow(time.Now()); ok {
			l.log.Warn("dropped a message from the server that nests deeper than the bound", "method", truncate(h.method, 100), "depth", h.depth, "max", MaxJSONDepth, "suppressed-before", suppressed)
		}
		return nil, false
	}
	if h.id == nil && h.method != "" && !l.flood.pass(h.method, time.Now()) {
		return nil, false
	}
	return line, true
}

func (l *stdoutFilter) skip(line []byte) {
	text := strings.TrimSpace(string(line))
	if text == "" {
		return
	}
	if ok, suppressed := l.skipped.allow(time.Now()); ok {
		l.log.Warn("skipping a line on stdout that is not a JSON-RPC message", "line", truncate(text, stderrTailLineMax), "suppressed-before", suppressed)
	}
}

// isJSONObjectLine reports whether line holds one JSON object.
func isJSONObjectLine(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) > 0 && t[0] == '{' && json.Valid(t)
}

// Log rate limits: per source, at most rateLimitBurst records per
// rateLimitWindow; the next one allowed says how many were left out.
const (
	rateLimitBurst  = 20
	rateLimitWindow = time.Second
)

// rateLimit allows burst events per window. Not safe for concurrent use.
type rateLimit struct {
	burst      int
	per        time.Duration
	start      time.Time
	n          int
	suppressed int
}

// allow reports whether an event at now may be logged, and how many events
// were refused since the last one allowed.
func (r *rateLimit) allow(now time.Time) (bool, int) {
	if now.Sub(r.start) >= r.per {
		r.start, r.n = now, 0
	}
	if r.n >= r.burst {
		r.suppressed++
		return false, 0
	}
	r.n++
	s := r.suppressed
	r.suppressed = 0
	return true, s
}
