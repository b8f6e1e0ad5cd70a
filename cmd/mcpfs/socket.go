package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/check"
)

// A long-lived engine (mcpfs mount, mcpfs serve) listens on a unix socket
// in the data dir, so that `mcpfs run` uses its warm server connections
// instead of starting every server again.
//
// The protocol is newline-delimited JSON on one connection per run:
//
//	client: socketHello   {protocol, config, strict, settings}
//	engine: socketHello   {protocol, config, strict, settings, pid}
//	client: socketRequest {filename, source, timeout}   (or it hangs up)
//	engine: socketResponse
//
// The client only sends the request when the engine runs the same config
// file with the same "mcpfs" settings (and the sandbox mode it asks for);
// otherwise it starts its own servers. A request's zero timeout means the
// engine's default. Closing the connection during a run cancels the run.

const (
	// engineSocketName is the socket's file name in the data dir.
	engineSocketName = "engine.sock"
	// socketProtocol changes when the messages do.
	socketProtocol = 2
	// maxSocketMessage bounds what a client sends: a hello and a request
	// carrying a snippet of at most maxSnippet bytes, base64-encoded.
	maxSocketMessage = 2*maxSnippet + 64<<10
	// socketHandshakeTimeout bounds the exchange before a run starts.
	socketHandshakeTimeout = 10 * time.Second
	// maxSocketRuns bounds the runs an engine does at once for clients of
	// its socket; more wait.
	maxSocketRuns = 8
	// maxSocketPath is the longest path a unix socket address holds
	// (sun_path, with its terminating NUL).
	maxSocketPath = 107
)

// socketHello is the first message each way.
type socketHello struct {
	Protocol int `json:"protocol"`
	// Config is the config file's absolute path; "" for the built-in
	// default.
	Config string `json:"config"`
	// Strict: the client wants, or the engine has, --sandbox=strict.
	Strict bool `json:"strict"`
	// Settings are the config's "mcpfs" section as the sender read it.
	Settings *discovery.Settings `json:"settings,omitempty"`
	// PID is the engine's process id (engine to client only).
	PID int `json:"pid,omitempty"`
}

// socketRequest is one snippet to run.
type socketRequest struct {
	Filename string        `json:"filename"`
	Source   []byte        `json:"source"`
	Timeout  time.Duration `json:"timeout"`
}

// socketResponse is what a run produced: the result when the snippet
// ran, and why it failed when it did.
type socketResponse struct {
	Result *exec.Result `json:"result,omitempty"`
	// Check holds the positioned problems of a snippet that did not pass
	// the check, one per line.
	Check []string `json:"check,omitempty"`
	// RunKind and RunMsg are an *exec.RunError: RunKind is its Kind's
	// text.
	RunKind string `json:"run_kind,omitempty"`
	RunMsg  string `json:"run_msg,omitempty"`
	// Error is any other error's text.
	Error string `json:"error,omitempty"`
}

// runErrorKinds are the exec.RunError kinds, by their text.
var runErrorKinds = func() map[string]error {
	m := map[string]error{}
	for _, k := range []error{exec.ErrCompile, exec.ErrPanic, exec.ErrTimeout, exec.ErrOutOfMemory,
		exec.ErrStackOverflow, exec.ErrCrashed, exec.ErrSandbox, exec.ErrClosed} {
		m[k.Error()] = k
	}
	return m
}()

// engineSocketPath is where an engine of this data dir listens:
// <data dir>/engine.sock. ok is false when there is no data dir (see
// cacheDir).
func (g *globals) engineSocketPath() (path string, ok bool, err error) {
	cache, ok, err := g.cacheDir()
	if err != nil || !ok {
		return "", ok, err
	}
	return filepath.Join(filepath.Dir(cache), engineSocketName), true, nil
}

// checkSocketDir returns an error unless dir belongs to this user and no
// one else may write in it: otherwise another user could put a socket of
// theirs in our place.
func checkSocketDir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("engine socket dir: %w", err)
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("engine socket dir %s: cannot read its owner", dir)
	}
	if int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("engine socket dir %s belongs to uid %d, not to this user (uid %d): give --data-dir a folder of yours", dir, st.Uid, os.Geteuid())
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("engine socket dir %s can be written by other users (mode %04o): chmod go-w it", dir, perm)
	}
	return nil
}

// socketServer serves an engine's runs on a unix socket.
type socketServer struct {
	e    *engine
	log  *slog.Logger
	ln   *net.UnixListener
	path string
	ino  uint64 // the socket file's inode: removed on Close only if still ours

	runs atomic.Int64  // runs served, for -v and tests
	sem  chan struct{} // bounds runs at once

	ctx    context.Context // ends with Close; cancels runs in progress
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	once   sync.Once
}

// errEngineRunning is returned by listenEngineSocket when another live
// engine already listens on the path.
var errEngineRunning = errors.New("another mcpfs engine already listens there")

// listenEngineSocket makes a socket at path, mode 0600, for e's runs and
// serves it until Close. The folder of path is created (mode 0700) when
// missing and must belong to this user and be writable by no one else. A
// socket file left by a killed engine is replaced; one with a live engine
// behind it is an error matching errEngineRunning.
func listenEngineSocket(ctx context.Context, e *engine, path string, log *slog.Logger) (*socketServer, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("engine socket %s: the path is over %d bytes, too long for a unix socket: use a shorter --data-dir", path, maxSocketPath)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("engine socket: %w", err)
	}
	if err := checkSocketDir(dir); err != nil {
		return nil, err
	}
	// Bind in a private folder, make the socket 0600 there, and only then
	// link it into place: no one can connect before the mode is set.
	priv, err := os.MkdirTemp(dir, ".engine-sock-")
	if err != nil {
		return nil, fmt.Errorf("engine socket: %w", err)
	}
	defer os.RemoveAll(priv)
	tmp := filepath.Join(priv, "s")
	if len(tmp) > maxSocketPath {
		return nil, fmt.Errorf("engine socket %s: the path is too long for a unix socket: use a shorter --data-dir", path)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("engine socket: %w", err)
	}
	ln.SetUnlinkOnClose(false)
	fail := func(err error) (*socketServer, error) {
		ln.Close()
		return nil, err
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return fail(fmt.Errorf("engine socket: %w", err))
	}
	for attempt := 0; ; attempt++ {
		err := os.Link(tmp, path)
		if err == nil {
			break
		}
		if !errors.Is(err, iofs.ErrExist) || attempt > 0 {
			return fail(fmt.Errorf("engine socket: %w", err))
		}
		if socketAlive(path) {
			return fail(fmt.Errorf("engine socket %s: %w", path, errEngineRunning))
		}
		log.Info("removing the socket of an engine that is gone", "socket", path)
		if err := os.Remove(path); err != nil && !errors.Is(err, iofs.ErrNotExist) {
			return fail(fmt.Errorf("remove stale engine socket: %w", err))
		}
	}
	var ino uint64
	if info, err := os.Lstat(path); err == nil {
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			ino = st.Ino
		}
	}
	s := &socketServer{
		e: e, log: log, ln: ln, path: path, ino: ino,
		sem:   make(chan struct{}, maxSocketRuns),
		conns: map[net.Conn]struct{}{},
	}
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

// socketAlive reports whether something accepts connections at path.
func socketAlive(path string) bool {
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Runs returns how many runs the socket has served.
func (s *socketServer) Runs() int64 { return s.runs.Load() }

// Path returns the socket's path.
func (s *socketServer) Path() string { return s.path }

// Close stops listening, cancels runs in progress, waits for them and
// removes the socket file if it is still this server's.
func (s *socketServer) Close() {
	s.once.Do(func() {
		s.ln.Close()
		s.cancel()
		s.mu.Lock()
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
		if info, err := os.Lstat(s.path); err == nil {
			if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Ino == s.ino {
				os.Remove(s.path)
			}
		}
	})
}

func (s *socketServer) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			if s.ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
				s.log.Warn("engine socket: accept", "socket", s.path, "error", err)
			}
			return
		}
		s.mu.Lock()
		if s.ctx.Err() != nil {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.handle(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			c.Close()
		}()
	}
}

// handle serves one connection: the hello, then at most one run.
func (s *socketServer) handle(c *net.UnixConn) {
	if uid, err := peerUID(c); err != nil || uid != os.Geteuid() {
		s.log.Warn("engine socket: refused a connection from another user", "uid", uid, "error", err)
		return
	}
	c.SetReadDeadline(time.Now().Add(socketHandshakeTimeout))
	dec := json.NewDecoder(io.LimitReader(c, maxSocketMessage))
	enc := json.NewEncoder(c)
	var hello socketHello
	if err := dec.Decode(&hello); err != nil {
		s.log.Debug("engine socket: bad hello", "error", err)
		return
	}
	cfg := s.e.Config()
	if err := enc.Encode(socketHello{
		Protocol: socketProtocol,
		Config:   cfg.Path,
		Strict:   s.e.Settings().Options.Strict,
		Settings: &cfg.Settings,
		PID:      os.Getpid(),
	}); err != nil {
		return
	}
	var req socketRequest
	if err := dec.Decode(&req); err != nil {
		// The client went its own way: another config, or no run.
		return
	}
	c.SetReadDeadline(time.Time{})

	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	// The client hangs up (interrupted): cancel the run.
	go func() {
		io.Copy(io.Discard, c)
		cancel()
	}()
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	case <-ctx.Done():
		return
	}
	s.runs.Add(1)
	s.log.Info("engine socket: run", "file", req.Filename, "bytes", len(req.Source))
	res, err := s.runRequest(ctx, req)
	resp := socketResponse{Result: res}
	var (
		list   check.ErrorList
		runErr *exec.RunError
	)
	switch {
	case err == nil:
	case errors.As(err, &list):
		for _, e := range list {
			resp.Check = append(resp.Check, e.Error())
		}
	case errors.As(err, &runErr) && runErr.Kind != nil:
		resp.RunKind, resp.RunMsg = runErr.Kind.Error(), runErr.Msg
	default:
		resp.Error = err.Error()
	}
	if err := enc.Encode(resp); err != nil {
		s.log.Debug("engine socket: send result", "error", err)
	}
}

func (s *socketServer) runRequest(ctx context.Context, req socketRequest) (*exec.Result, error) {
	if req.Filename == "" {
		req.Filename = "snippet.go"
	}
	if len(req.Source) > maxSnippet {
		return nil, fmt.Errorf("snippet %s is over %d MiB: keep data in tools, not in the snippet", req.Filename, maxSnippet>>20)
	}
	if req.Timeout < 0 {
		return nil, fmt.Errorf("run %s: the timeout %v is negative", req.Filename, req.Timeout)
	}
	return s.e.Run(ctx, req.Filename, req.Source, req.Timeout)
}

// peerUID returns the user id of the process at the other end of c.
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	var (
		cred *unix.Ucred
		cerr error
	)
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if cerr != nil {
		return -1, fmt.Errorf("read the peer's credentials: %w", cerr)
	}
	return int(cred.Uid), nil
}

// serveEngineSocket serves e's runs on the data dir's socket until the
// returned stop is called. Any problem is logged: the engine works
// without its socket, and `mcpfs run` then starts its own servers.
func (g *globals) serveEngineSocket(ctx context.Context, e *engine) (stop func()) {
	path, ok, err := g.engineSocketPath()
	if err != nil || !ok {
		g.log.Info("no engine socket: there is no data dir (give --data-dir)", "error", err)
		return func() {}
	}
	s, err := listenEngineSocket(ctx, e, path, g.log)
	if errors.Is(err, errEngineRunning) {
		g.log.Info("no engine socket: another mcpfs engine serves `mcpfs run` for this data dir", "socket", path)
		return func() {}
	}
	if err != nil {
		g.log.Warn("no engine socket: `mcpfs run` will start its own servers", "error", err)
		return func() {}
	}
	g.log.Info("engine socket: `mcpfs run` uses this engine", "socket", path)
	return s.Close
}

// engineRun is the outcome of a run through a running engine.
type engineRun struct {
	pid  int
	res  *exec.Result
	resp socketResponse
}

// engineConn is a connection to a running engine, past the hellos.
type engineConn struct {
	c     *net.UnixConn
	dec   *json.Decoder
	hello socketHello
}

// dialEngine connects to the engine of the data dir and exchanges hellos.
// It returns nil, and a reason for -v, when there is no engine to use:
// none running, another user's, or one with another config or a weaker
// sandbox than asked for.
func (g *globals) dialEngine(ctx context.Context, cfg *discovery.Config, strict bool) (*engineConn, string) {
	path, ok, err := g.engineSocketPath()
	if err != nil || !ok {
		return nil, "no data dir"
	}
	info, err := os.Lstat(path)
	if err != nil {
		return nil, "no engine is running"
	}
	if err := checkSocketDir(filepath.Dir(path)); err != nil {
		return nil, err.Error()
	}
	if info.Mode().Type() != iofs.ModeSocket {
		return nil, path + " is not a socket"
	}
	if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() {
		return nil, path + " belongs to another user"
	}
	d := net.Dialer{Timeout: 2 * time.Second}
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, "no engine is running (" + err.Error() + ")"
	}
	c := nc.(*net.UnixConn)
	fail := func(why string) (*engineConn, string) {
		c.Close()
		return nil, why
	}
	if uid, err := peerUID(c); err != nil || uid != os.Geteuid() {
		return fail("the engine socket is served by another user")
	}
	c.SetDeadline(time.Now().Add(socketHandshakeTimeout))
	if err := json.NewEncoder(c).Encode(socketHello{Protocol: socketProtocol, Config: cfg.Path, Strict: strict, Settings: &cfg.Settings}); err != nil {
		return fail("the engine did not answer: " + err.Error())
	}
	dec := json.NewDecoder(c)
	var hello socketHello
	if err := dec.Decode(&hello); err != nil {
		return fail("the engine did not answer: " + err.Error())
	}
	c.SetDeadline(time.Time{})
	switch {
	case hello.Protocol != socketProtocol:
		return fail(fmt.Sprintf("the running engine (pid %d) is another mcpfs version", hello.PID))
	case !sameFile(hello.Config, cfg.Path):
		return fail(fmt.Sprintf("the running engine (pid %d) uses another config (%s)", hello.PID, configName(hello.Config)))
	case hello.Settings == nil || !hello.Settings.Equal(cfg.Settings):
		return fail(fmt.Sprintf("the running engine (pid %d) has other mcpfs settings than %s (an edit it has not applied, or one it refused: see its log)", hello.PID, configName(cfg.Path)))
	case strict && !hello.Strict:
		return fail(fmt.Sprintf("the running engine (pid %d) does not run with --sandbox=strict", hello.PID))
	}
	return &engineConn{c: c, dec: dec, hello: hello}, ""
}

// configName names a config path for messages.
func configName(path string) string {
	if path == "" {
		return "the built-in default"
	}
	return path
}

// sameFile reports whether two config paths name the same file; "" (the
// built-in default) only matches "".
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}

// runOnEngine runs a snippet on the running engine of the data dir, if
// there is one for the same config; started is called when the request
// has been sent. used is false, and nothing ran, when there is none: the
// caller starts its own servers.
func (g *globals) runOnEngine(ctx context.Context, filename string, src []byte, timeout time.Duration, strict bool, started func()) (run *engineRun, used bool, err error) {
	cfg, err := discovery.Load(g.config, discovery.LoadOptions{})
	if err != nil {
		return nil, false, nil // starting servers reports it
	}
	ec, why := g.dialEngine(ctx, cfg, strict)
	if ec == nil {
		g.log.Info("starting servers: " + why)
		return nil, false, nil
	}
	c, hello := ec.c, ec.hello
	defer c.Close()
	g.log.Info(fmt.Sprintf("using the running engine (pid %d)", hello.PID), "config", configName(hello.Config))
	stop := context.AfterFunc(ctx, func() { c.Close() }) // the engine cancels the run
	defer stop()
	if err := json.NewEncoder(c).Encode(socketRequest{Filename: filename, Source: src, Timeout: timeout}); err != nil {
		return nil, true, g.engineLost(ctx, hello.PID, err)
	}
	if started != nil {
		started()
	}
	var resp socketResponse
	if err := ec.dec.Decode(&resp); err != nil {
		return nil, true, g.engineLost(ctx, hello.PID, err)
	}
	return &engineRun{pid: hello.PID, res: resp.Result, resp: resp}, true, nil
}

// engineLost is the error of a run whose engine connection broke.
func (g *globals) engineLost(ctx context.Context, pid int, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %w", ctx.Err())
	}
	return fmt.Errorf("the running engine (pid %d) went away during the run (%v): its tool calls may have been made; run again", pid, err)
}

// err turns the response's error back into the error a local run returns.
func (r *engineRun) err() error {
	switch {
	case r.resp.RunKind != "":
		if kind, ok := runErrorKinds[r.resp.RunKind]; ok {
			return &exec.RunError{Kind: kind, Msg: r.resp.RunMsg}
		}
		if r.resp.RunMsg == "" {
			return errors.New(r.resp.RunKind)
		}
		return errors.New(r.resp.RunKind + ": " + r.resp.RunMsg)
	case r.resp.Error != "":
		return errors.New(r.resp.Error)
	}
	return nil
}
