package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcpfs/mcpfs/cache"
	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/discovery"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

const (
	// defaultEngineIdle is how long an engine stays up unused when
	// neither --engine-idle nor the config's mcpfs.engine.idle says.
	defaultEngineIdle = 10 * time.Minute
	// helloTimeout bounds the exchange of hellos.
	helloTimeout = 10 * time.Second
	// shutdownGrace is how long an engine that is stopping waits for its
	// commands to end after cancelling them.
	shutdownGrace = 10 * time.Second
	// maxSocketPath is the longest path a unix socket address holds
	// (sun_path, with its terminating NUL).
	maxSocketPath = 107
)

// engineStatus is what `mcpfs engine status` shows.
type engineStatus struct {
	PID      int            `json:"pid"`
	Config   string         `json:"config"`
	DataDir  string         `json:"data_dir,omitempty"`
	Started  time.Time      `json:"started"`
	Idle     time.Duration  `json:"idle_timeout"`
	Commands int            `json:"commands_running"`
	Served   int64          `json:"commands_served"`
	RSS      int64          `json:"rss_bytes"`
	Log      string         `json:"log"`
	Socket   string         `json:"socket"`
	Cache    string         `json:"cache"`
	Configs  []string       `json:"configs"`
	Servers  []engineServer `json:"servers"`
	// Tree is what the config's tree holds of generated packages.
	Tree *mcpfs.GenStats `json:"tree,omitempty"`
}

// engineServer is one server in an engineStatus.
type engineServer struct {
	Name  string `json:"name"`
	State string `json:"state"`
	Tools int    `json:"tools"`
	Error string `json:"error,omitempty"`
}

// residentServer is the engine process's side: it runs the commands that
// clients send on its socket against one engine, and stops itself after
// an idle time with no command running.
type residentServer struct {
	g       *globals // the engine process's own (its log)
	addr    engineAddr
	ln      *net.UnixListener
	ino     uint64
	idle    time.Duration
	started time.Time

	ctx    context.Context // ends when the engine stops: cancels commands
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// cache is the data dir's cache, shared by the engines of every
	// config (Badger allows one process per folder); nil without one.
	cache    *cache.Store
	cacheWhy string

	mu      sync.Mutex
	engines map[string]configEngine // by engineKey
	active  int
	served  int64
	timer   *time.Timer
	conns   map[net.Conn]struct{}

	stopOnce sync.Once
	stopped  chan struct{} // closed when the engine starts stopping
}

// serveResident runs the resident engine process for addr (one data dir)
// until ctx ends, it is asked to stop, or it has been idle for idle. It
// runs one engine per config file that clients name, all sharing the data
// dir's cache.
func serveResident(ctx context.Context, g *globals, addr engineAddr, idle time.Duration) error {
	// The descriptor that tells the starting client we listen must not
	// reach the servers this engine starts.
	var ready *os.File
	if fd := os.Getenv(readyFDEnv); fd != "" {
		if n, err := strconv.Atoi(fd); err == nil {
			syscall.CloseOnExec(n)
			ready = os.NewFile(uintptr(n), "ready")
		}
		os.Unsetenv(readyFDEnv)
	}
	if idle <= 0 {
		idle = defaultEngineIdle
	}
	startupGC()
	ln, ino, err := listenPrivate(addr.sock())
	if err != nil {
		return err
	}
	// Never keep a working directory that a mount of ours could cover.
	os.Chdir("/")
	s := &residentServer{
		g: g, addr: addr, ln: ln, ino: ino, idle: idle, started: time.Now(),
		conns:   map[net.Conn]struct{}{},
		engines: map[string]configEngine{},
		stopped: make(chan struct{}),
	}
	s.cache, s.cacheWhy = g.dirs().OpenCache()
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	s.timer = time.AfterFunc(idle, s.idleOut)
	s.writeInfo()
	g.log.Warn("engine ready", "pid", os.Getpid(), "socket", addr.sock(), "idle", idle)
	if ready != nil {
		ready.WriteString("ready\n")
		ready.Close()
	}
	s.wg.Add(1)
	go s.accept()
	select {
	case <-ctx.Done():
		g.log.Warn("engine stopping: signalled")
	case <-s.stopped:
	}
	s.stop("")
	done := make(chan struct{})
	go func() { s.shutdown(); close(done) }()
	select {
	case <-done:
	case <-time.After(shutdownGrace + 10*time.Second):
		g.log.Warn("engine stopped without closing everything: closing took too long")
	}
	return nil
}

// startupGC sets the collector of the engine process. For its first
// startupWindow it does not collect unless the process's memory nears
// startupMemory: the heap is small then and grows fast (the cache, tool
// listings, trees, generated packages), and collections that keep it near
// a small live size were a fifth of a cold 50-server mount's CPU. Then one
// collection returns what starting left over, and the process, which
// stays resident holding trees that are mostly read, keeps its heap
// closer to what is live (GOGC 50).
func startupGC() {
	debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(-1) // GOMEMLIMIT, if set
	debug.SetMemoryLimit(min(limit, startupMemory))
	time.AfterFunc(startupWindow, func() {
		debug.SetGCPercent(50)
		debug.SetMemoryLimit(limit)
		debug.FreeOSMemory()
	})
}

// The collector's start-up setting (startupGC).
const (
	startupWindow = time.Second
	startupMemory = 128 << 20
)

// configEngine is the engine of one config file.
type configEngine struct {
	path string // "" is the built-in default
	e    *engine.Engine
}

// engineKey names the engine of the config at path for a client: the
// path and the values the client's environment gives the variables the
// file names (${VAR}), so two commands that give a config different
// values (DATABASE_URL=... mcpfs run) get their own servers, and every
// command that agrees shares them.
func engineKey(path string, named []string, lookup func(string) (string, bool)) string {
	var b strings.Builder
	b.WriteString(path)
	for _, k := range slices.Compact(slices.Sorted(slices.Values(named))) {
		v, ok := lookup(k)
		b.WriteString("\x00" + k)
		if ok {
			b.WriteString("=" + v)
		}
	}
	return b.String()
}

// envLookup looks variables up in a client's environment (KEY=value
// lines), the last one winning as in os/exec.
func envLookup(env []string) func(string) (string, bool) {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// engineFor returns the engine of the config at path ("" for the built-in
// default) for a client with environment env, starting it on first use.
// The file's ${VAR}s are expanded from the client's environment, not the
// engine's.
func (s *residentServer) engineFor(path string, env []string) (*engine.Engine, error) {
	lookup := envLookup(env)
	cfg := discovery.DefaultConfig()
	var named []string
	if path != "" {
		var err error
		getenv := func(k string) (string, bool) { named = append(named, k); return lookup(k) }
		if cfg, err = discovery.Load(path, discovery.LoadOptions{Getenv: getenv}); err != nil {
			return nil, err
		}
	}
	key := engineKey(path, named, lookup)
	s.mu.Lock()
	defer s.mu.Unlock()
	if ce, ok := s.engines[key]; ok {
		return ce.e, nil
	}
	if s.ctx.Err() != nil {
		return nil, errors.New("the engine is stopping: run the command again")
	}
	if _, err := engine.SettingsFor(cfg, engine.Flags{}); err != nil {
		return nil, err
	}
	cfg = engine.DropSelf(cfg, s.g.log)
	if cfg.Settings.EngineIdle > 0 && s.g.engineIdle <= 0 {
		s.idle = cfg.Settings.EngineIdle
	}
	e := engine.Start(s.ctx, cfg, s.g.engineOptions(engine.Options{WarmRunner: true, Cache: s.cache, CacheWhy: s.cacheWhy, Shared: true, Getenv: lookup}))
	s.engines[key] = configEngine{path: path, e: e}
	s.g.log.Warn("engine: serving a config", "config", configName(path), "servers", len(cfg.Servers), "variables", len(named))
	return e, nil
}

// listenPrivate listens on a unix socket at path, mode 0600, replacing a
// socket file left by an engine that is gone. The socket is bound in a
// private folder and linked into place only once its mode is set, so no
// one connects before that.
func listenPrivate(path string) (*net.UnixListener, uint64, error) {
	if len(path) > maxSocketPath {
		return nil, 0, fmt.Errorf("engine socket %s: the path is over %d bytes, too long for a unix socket: set $XDG_RUNTIME_DIR or $TMPDIR to a shorter folder", path, maxSocketPath)
	}
	dir := filepath.Dir(path)
	priv, err := os.MkdirTemp(dir, ".sock-")
	if err != nil {
		return nil, 0, fmt.Errorf("engine socket: %w", err)
	}
	defer os.RemoveAll(priv)
	tmp := filepath.Join(priv, "s")
	if len(tmp) > maxSocketPath {
		return nil, 0, fmt.Errorf("engine socket %s: the path is too long for a unix socket", path)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, 0, fmt.Errorf("engine socket: %w", err)
	}
	ln.SetUnlinkOnClose(false)
	fail := func(err error) (*net.UnixListener, uint64, error) {
		ln.Close()
		return nil, 0, err
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
			return fail(fmt.Errorf("engine socket %s: another engine already listens there", path))
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, iofs.ErrNotExist) {
			return fail(fmt.Errorf("remove the socket of an engine that is gone: %w", err))
		}
	}
	var ino uint64
	if info, err := os.Lstat(path); err == nil {
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			ino = st.Ino
		}
	}
	return ln, ino, nil
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

// engineInfo is the file beside an engine's socket that says what the
// engine is for: `mcpfs engine status --all` reads it.
type engineInfo struct {
	PID     int       `json:"pid"`
	DataDir string    `json:"data_dir,omitempty"`
	Started time.Time `json:"started"`
	Socket  string    `json:"socket"`
	Log     string    `json:"log"`
}

func (s *residentServer) writeInfo() {
	b, _ := json.MarshalIndent(engineInfo{
		PID: os.Getpid(), DataDir: s.g.dataDir, Started: s.started,
		Socket: s.addr.sock(), Log: s.addr.log(),
	}, "", "  ")
	tmp := s.addr.info() + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err == nil {
		os.Rename(tmp, s.addr.info())
	}
}

func (s *residentServer) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.ctx.Err() != nil {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.active++
		s.timer.Stop()
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.handle(c)
			c.Close()
			s.mu.Lock()
			delete(s.conns, c)
			s.active--
			if s.active == 0 && s.ctx.Err() == nil {
				s.timer.Reset(s.idle)
			}
			s.mu.Unlock()
		}()
	}
}

// idleOut stops the engine if no command has run for the idle time.
func (s *residentServer) idleOut() {
	s.mu.Lock()
	idle := s.active == 0
	s.mu.Unlock()
	if idle {
		s.stop(fmt.Sprintf("idle for %v", s.idle))
	}
}

// stop makes the engine stop: no new connections, and the socket file
// goes at once, so that the next command starts a new engine.
func (s *residentServer) stop(why string) {
	s.stopOnce.Do(func() {
		if why != "" {
			s.g.log.Warn("engine stopping: " + why)
		}
		s.ln.Close()
		if info, err := os.Lstat(s.addr.sock()); err == nil {
			if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Ino == s.ino {
				os.Remove(s.addr.sock())
				os.Remove(s.addr.info())
			}
		}
		close(s.stopped)
	})
}

// shutdown cancels the commands in progress, waits for them a while and
// closes the engine.
func (s *residentServer) shutdown() {
	s.mu.Lock()
	s.cancel()
	s.timer.Stop()
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(shutdownGrace):
		s.mu.Lock()
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		<-done
	}
	s.mu.Lock()
	engines := s.engines
	s.engines = map[string]configEngine{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, ce := range engines {
		wg.Add(1)
		go func() { defer wg.Done(); ce.e.Close() }()
	}
	wg.Wait()
	if s.cache != nil {
		s.cache.Close()
	}
	s.g.log.Warn("engine stopped")
}

// handle serves one connection: a command, or a request to the engine.
func (s *residentServer) handle(c *net.UnixConn) {
	if uid, err := peerUID(c); err != nil || uid != os.Geteuid() {
		s.g.log.Warn("engine: refused a connection from another user", "uid", uid, "error", err)
		return
	}
	fc := newFrameConn(c)
	c.SetReadDeadline(time.Now().Add(helloTimeout))
	var h clientHello
	if err := fc.readJSON(frameHello, &h); err != nil {
		s.g.log.Info("engine: bad hello", "error", err)
		return
	}
	c.SetReadDeadline(time.Time{})
	reply := engineHello{Protocol: residentProtocol, Build: buildID(), PID: os.Getpid()}
	switch {
	case h.Protocol != residentProtocol:
		reply.Error = fmt.Sprintf("protocol %d, the engine speaks %d: stop it (mcpfs engine stop) and run again", h.Protocol, residentProtocol)
	case h.Build != reply.Build && h.Control == "":
		reply.Error = "another build of mcpfs: stop the engine (mcpfs engine stop) and run again"
	case h.Control == "status":
		reply.Status = s.status(h.Config)
	case h.Control == "stop":
		fc.writeJSON(frameHello, reply)
		s.stop("asked to stop (mcpfs engine stop)")
		return
	case h.Control != "":
		reply.Error = fmt.Sprintf("unknown request %q", h.Control)
	}
	if err := fc.writeJSON(frameHello, reply); err != nil || reply.Error != "" || h.Control != "" {
		return
	}
	s.mu.Lock()
	s.served++
	s.mu.Unlock()
	e, err := s.engineFor(h.Config, h.Env)
	if err != nil {
		fc.write(frameStderr, []byte("mcpfs: "+err.Error()+"\n"))
		fc.writeJSON(frameExit, struct{ Code int }{exitUsage})
		return
	}
	s.runCommand(c, fc, h, e)
}

// runCommand runs the command of h with the client's stdin, stdout,
// stderr, working directory and environment, and sends its exit code.
func (s *residentServer) runCommand(c *net.UnixConn, fc *frameConn, h clientHello, e *engine.Engine) {
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	stdin := &remoteStdin{fc: fc, data: make(chan []byte, 4)}
	go func() {
		defer stdin.close()
		for {
			kind, p, err := fc.read(maxFrame)
			if err != nil {
				cancel() // the client hung up
				return
			}
			switch kind {
			case frameStdin:
				select {
				case stdin.data <- p:
				case <-ctx.Done():
					return
				}
			case frameStdinEOF:
				stdin.close()
			case frameCancel:
				cancel()
			}
		}
	}()
	tty := h.StderrTTY
	g := &globals{
		stdin:     stdin,
		stdout:    frameWriter{fc, frameStdout},
		stderr:    frameWriter{fc, frameStderr},
		cwd:       h.Cwd,
		env:       h.Env,
		ttyStderr: &tty,
		eng:       e,
		dataDir:   s.g.dataDir,
		config:    h.Config,
	}
	s.g.log.Info("engine: command", "args", strings.Join(h.Args, " "))
	code := execute(ctx, g, h.Args)
	fc.writeJSON(frameExit, struct{ Code int }{code})
}

// remoteStdin is a command's stdin read from its client: the first read
// asks the client to start sending.
type remoteStdin struct {
	fc     *frameConn
	data   chan []byte
	asked  sync.Once
	closed sync.Once
	buf    []byte
}

func (r *remoteStdin) Read(p []byte) (int, error) {
	r.asked.Do(func() { r.fc.write(frameWantStdin, nil) })
	if len(r.buf) == 0 {
		b, ok := <-r.data
		if !ok {
			return 0, io.EOF
		}
		r.buf = b
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

func (r *remoteStdin) close() { r.closed.Do(func() { close(r.data) }) }

// status reports the engine for `mcpfs engine status`: the process, and
// the servers of the config at path when it serves that config.
func (s *residentServer) status(path string) *engineStatus {
	s.mu.Lock()
	st := &engineStatus{
		PID: os.Getpid(), Started: s.started, Idle: s.idle,
		Commands: s.active - 1, Served: s.served,
		Log: s.addr.log(), Socket: s.addr.sock(), DataDir: s.g.dataDir,
		Config: path,
	}
	var e *engine.Engine
	for _, ce := range s.engines {
		st.Configs = append(st.Configs, configName(ce.path))
		if ce.path == path && e == nil {
			e = ce.e
		}
	}
	s.mu.Unlock()
	sort.Strings(st.Configs)
	st.Configs = slices.Compact(st.Configs)
	st.RSS = selfRSS()
	if s.cache != nil {
		st.Cache = s.cache.Dir()
	} else {
		st.Cache = "none: " + s.cacheWhy
	}
	if e != nil {
		ts := e.Tree().GenCache().Stats()
		st.Tree = &ts
		for _, sv := range e.Catalog().Servers {
			st.Servers = append(st.Servers, engineServer{Name: sv.Name, State: string(sv.State), Tools: len(sv.Tools), Error: oneLine(sv.Err)})
		}
	}
	return st
}

// selfRSS returns this process's resident memory in bytes, 0 if unknown.
func selfRSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// configName names a config path for messages.
func configName(path string) string { return engine.ConfigName(path) }
