package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// Errors returned by [Supervisor.CallTool] and [Supervisor.Settle], wrapped
// with the server's name and state; test them with errors.Is.
var (
	// ErrUnknownServer means no server of that (normalised) name is configured.
	ErrUnknownServer = errors.New("no such server")
	// ErrNotReady means the server is configured but not connected: it is
	// still connecting, failed, or disabled.
	ErrNotReady = errors.New("server not ready")
	// ErrClosed means the Supervisor has been closed.
	ErrClosed = errors.New("supervisor closed")
	// ErrListTooLarge means a server's tools/list answer was over its
	// bound (Options.MaxListBytes, ServerConfig.MaxListBytes); the server
	// is then published as failed with this error.
	ErrListTooLarge = errors.New("tool list too large")
)

// Defaults for the zero values of Options.
const (
	DefaultConnectTimeout  = 20 * time.Second
	DefaultCallTimeout     = 60 * time.Second
	DefaultMaxToolPages    = 100
	DefaultMaxMessageBytes = 64 << 20
	DefaultMaxListBytes    = 16 << 20
	DefaultRestartMinDelay = 500 * time.Millisecond
	DefaultRestartMaxDelay = 30 * time.Second
	DefaultHealthyUptime   = 60 * time.Second
	DefaultPingInterval    = 15 * time.Second
	DefaultMaxStarts       = 8
)

// Options tunes a Supervisor. The zero value is ready to use.
type Options struct {
	// Logger receives connection events and every stdio server's stderr,
	// one record per line. Nil discards them.
	Logger *slog.Logger
	// ConnectTimeout bounds, per server, starting it, initialize and the
	// first full tools/list. Zero means DefaultConnectTimeout; a server's
	// ServerConfig.Timeout overrides it.
	ConnectTimeout time.Duration
	// CallTimeout bounds every CallTool call (the caller's deadline wins
	// when it is sooner). Zero means DefaultCallTimeout; a server's
	// ServerConfig.CallTimeout overrides it.
	CallTimeout time.Duration
	// MaxToolPages bounds tools/list pagination per listing; a server with
	// more pages is published with ToolsTruncated set. Zero means
	// DefaultMaxToolPages.
	MaxToolPages int
	// MaxMessageBytes bounds one JSON-RPC line a stdio server writes to
	// stdout (a longer line fails the server) and one message an HTTP
	// server sends (a longer answer fails its request). Zero means
	// DefaultMaxMessageBytes (64 MiB).
	MaxMessageBytes int
	// MaxStarts bounds how many servers start at once (process start,
	// initialize and first tools/list); the others wait, published as
	// connecting, and their connect timeout counts from their turn. A
	// server a call waits for goes first. Zero means DefaultMaxStarts.
	MaxStarts int
	// MaxListBytes bounds one server's tools/list answer, all pages
	// together; a server over it fails with ErrListTooLarge. A stdio
	// server's answer is cut off while it is read, so memory stays
	// bounded; HTTP and SSE answers are checked once read. Zero means
	// DefaultMaxListBytes; ServerConfig.MaxListBytes overrides it.
	MaxListBytes int64
	// Builtins are the in-process servers available to configs with
	// Transport "builtin", keyed by ServerConfig.Builtin. Each call of the
	// function must return a new server.
	Builtins map[string]func() *server.MCPServer
	// ServerEnv holds variables every stdio server gets besides its
	// configured ones (which win).
	ServerEnv map[string]string

	// Cache, when set, keeps each server's last tool listing (published at
	// once on Start, marked Stale, until the server answers) and the
	// results of read-only tools of servers that opt in. If it also
	// implements io.Closer, the Supervisor owns it: Close closes it after
	// every server has stopped.
	Cache Cache

	// A server that fails is started again after RestartMinDelay, doubling
	// on each further failure up to RestartMaxDelay; once it has stayed
	// ready for HealthyUptime, the delay starts over. Zero values mean
	// DefaultRestartMinDelay, DefaultRestartMaxDelay and
	// DefaultHealthyUptime.
	RestartMinDelay time.Duration
	RestartMaxDelay time.Duration
	HealthyUptime   time.Duration

	// PingInterval is how often a ready HTTP or SSE server is pinged, and
	// a stdio server while calls to it wait or after a call to it ran out
	// of time (until a ping is answered): an HTTP server can go away
	// without a sign, and a stdio server can hang or be stopped (SIGSTOP)
	// without exiting. Two pings in a row without an answer (within
	// PingInterval, or the connect timeout if shorter) mark the server
	// failed, with its last tool list kept as stale, and start it again; a
	// stdio server's process group is killed first, so its waiting calls
	// fail at once. Zero means DefaultPingInterval; negative turns pings
	// off.
	PingInterval time.Duration

	// OAuthDir holds the OAuth logins of servers with ServerConfig.OAuth
	// set, one file each (0600). Empty: such servers need a login every
	// time (their tokens are not kept).
	OAuthDir string
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.MaxToolPages <= 0 {
		o.MaxToolPages = DefaultMaxToolPages
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.RestartMinDelay <= 0 {
		o.RestartMinDelay = DefaultRestartMinDelay
	}
	if o.RestartMaxDelay <= 0 {
		o.RestartMaxDelay = DefaultRestartMaxDelay
	}
	o.RestartMaxDelay = max(o.RestartMaxDelay, o.RestartMinDelay)
	if o.HealthyUptime <= 0 {
		o.HealthyUptime = DefaultHealthyUptime
	}
	if o.PingInterval == 0 {
		o.PingInterval = DefaultPingInterval
	}
	if o.MaxListBytes <= 0 {
		o.MaxListBytes = DefaultMaxListBytes
	}
	if o.MaxStarts <= 0 {
		o.MaxStarts = DefaultMaxStarts
	}
	return o
}

// Supervisor is the long-lived owner of the connections to every configured
// server. It connects to all of them concurrently, keeps their tool lists
// current, routes tool calls, and publishes what it knows as Catalog
// snapshots. All methods are safe for concurrent use.
type Supervisor struct {
	cfg  *Config
	opts Options
	log  *slog.Logger

	starts *startGate // bounds concurrent starts

	cancel context.CancelFunc // ends every session; called by Close
	// baseCtx is the parent of every server's goroutine; it lives as long
	// as the Supervisor (Reconfigure starts servers under it).
	baseCtx context.Context
	wg      sync.WaitGroup // one per running session

	mu       sync.Mutex
	servers  map[string]*serverRuntime // by normalised name
	order    []*serverRuntime          // s.servers sorted by name
	version  uint64                    // of the newest publish
	catalog  *Catalog                  // built lazily: nil or stale when dirty
	dirty    bool
	changed  chan struct{} // closed and replaced on every publish
	watchers map[*watcher]struct{}
	closed   bool

	closeOnce sync.Once
}

// serverRuntime is the mutable state of one configured server, guarded by
// Supervisor.mu. snap is replaced, never modified in place, so published
// catalogs can share its slices.
type serverRuntime struct {
	cfg    ServerConfig
	key    string       // ServerKey(cfg)
	log    *slog.Logger // with the server's name, secrets redacted
	redact *redactor

	snap ServerSnapshot
	conn *conn // set while ready

	started  bool          // a goroutine runs the server
	failures int           // sessions that ended in failure
	failedAt time.Time     // when the last failure was published
	kick     chan struct{} // capacity 1: a call asks for a restart now
	urgent   atomic.Bool   // a call waits for this server to start

	stop    context.CancelFunc // ends this server's goroutine (set by launch)
	done    chan struct{}      // closed when that goroutine has returned
	removed bool               // dropped by Reconfigure: no longer published
}

type watcher struct {
	ch chan *Catalog
}

// Start begins connecting to every enabled server in cfg and returns at once.
// Each server connects in its own goroutine with its own deadline, so a slow
// or broken server never delays the others. Servers run until Close, or
// until ctx is done; Close must be called in either case to stop their
// processes and release resources.
//
// Disabled servers are published as StateDisabled and never started; a
// server whose ServerConfig.Err is set is published as StateFailed with that
// error and never started.
func Start(ctx context.Context, cfg *Config, opts Options) *Supervisor {
	if cfg == nil {
		cfg = &Config{}
	}
	opts = opts.withDefaults()
	baseCtx, cancel := context.WithCancel(ctx)
	s := &Supervisor{
		cfg:      cfg,
		opts:     opts,
		log:      opts.Logger,
		cancel:   cancel,
		starts:   newStartGate(opts.MaxStarts),
		servers:  make(map[string]*serverRuntime, len(cfg.Servers)),
		changed:  make(chan struct{}),
		watchers: make(map[*watcher]struct{}),
	}
	s.baseCtx = baseCtx
	now := time.Now()
	var start []*serverRuntime
	for _, sc := range cfg.Servers {
		if _, dup := s.servers[sc.Name]; dup {
			s.log.Warn("duplicate server name in config; keeping the first", "server", sc.Name, "key", sc.Key)
			continue
		}
		rt := s.newRuntime(sc, now)
		if rt.started {
			start = append(start, rt)
		}
		s.servers[sc.Name] = rt
	}
	s.mu.Lock()
	s.reorderLocked()
	s.publishLocked()
	s.mu.Unlock()
	for _, rt := range start {
		s.launch(rt)
	}
	return s
}

// newRuntime prepares the runtime of one configured server, with its cached
// listing if there is one. It does not start it.
func (s *Supervisor) newRuntime(sc ServerConfig, now time.Time) *serverRuntime {
	red := newRedactor(sc)
	rt := &serverRuntime{
		cfg:    sc,
		key:    ServerKey(sc),
		log:    redactLogger(s.log.With("server", sc.Name), red),
		redact: red,
		kick:   make(chan struct{}, 1),
		snap: ServerSnapshot{
			Name:      sc.Name,
			Key:       sc.Key,
			Transport: sc.Transport,
			Since:     now,
		},
	}
	switch {
	case sc.Disabled:
		rt.snap.State = StateDisabled
	case sc.Err != "":
		rt.snap.State = StateFailed
		rt.snap.Err = red.String(sc.Err)
	default:
		rt.snap.State = StateConnecting
		rt.started = true
		s.loadCachedTools(rt)
	}
	return rt
}

// launch runs rt in its own goroutine until Close or until rt is removed by
// Reconfigure.
func (s *Supervisor) launch(rt *serverRuntime) {
	ctx, cancel := context.WithCancel(s.baseCtx)
	rt.stop = cancel
	rt.done = make(chan struct{})
	s.wg.Add(1)
	go func() {
		defer close(rt.done)
		defer cancel()
		s.runServer(ctx, rt)
	}()
}

// Reconfigure moves the Supervisor to a new config, for example after the
// user edited the config file: servers that were added are started, servers
// that were removed are stopped, and servers whose config changed are
// restarted. Servers whose config is unchanged keep their connection and
// are not disturbed. A new Catalog is published at once; Reconfigure does
// not wait for removed servers to finish stopping.
func (s *Supervisor) Reconfigure(cfg *Config) {
	if cfg == nil {
		cfg = &Config{}
	}
	next := make(map[string]ServerConfig, len(cfg.Servers))
	var order []ServerConfig
	for _, sc := range cfg.Servers {
		if _, dup := next[sc.Name]; !dup {
			next[sc.Name] = sc
			order = append(order, sc)
		}
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	var keep = map[string]bool{}
	for name, rt := range s.servers {
		if sc, ok := next[name]; ok && reflect.DeepEqual(sc, rt.cfg) {
			keep[name] = true
		}
	}
	s.mu.Unlock()

	// Prepared outside the lock: loading a cached listing does I/O.
	now := time.Now()
	fresh := map[string]*serverRuntime{}
	for _, sc := range order {
		if !keep[sc.Name] {
			fresh[sc.Name] = s.newRuntime(sc, now)
		}
	}

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	var stop, start []*serverRuntime
	for name, rt := range s.servers {
		if !keep[name] {
			rt.removed = true
			stop = append(stop, rt)
			delete(s.servers, name)
		}
	}
	for _, sc := range order {
		if rt, ok := fresh[sc.Name]; ok {
			s.servers[sc.Name] = rt
			if rt.started {
				start = append(start, rt)
			}
		}
	}
	s.cfg = cfg
	s.reorderLocked()
	s.publishLocked()
	s.mu.Unlock()

	for _, rt := range stop {
		if rt.stop != nil {
			rt.stop()
		}
		rt.log.Info("server removed or changed in the config: stopping it")
	}
	for _, rt := range start {
		s.launch(rt)
	}
}

// Config returns the config the Supervisor runs with: the one given to
// Start, or to the last Reconfigure.
func (s *Supervisor) Config() *Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

// Catalog returns the current snapshot. It is never nil and must not be
// modified.
func (s *Supervisor) Catalog() *Catalog {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.catalogLocked()
}

// catalogLocked returns the Catalog of the newest publish, building it if
// it has not been yet. Building waits for a reader: a config of thousands
// of servers publishes thousands of times while it starts. s.mu must be
// held.
func (s *Supervisor) catalogLocked() *Catalog {
	if s.catalog == nil || s.dirty {
		servers := make([]ServerSnapshot, len(s.order))
		for i, rt := range s.order {
			servers[i] = rt.snap
		}
		s.catalog = &Catalog{Version: s.version, Servers: servers}
		s.dirty = false
	}
	return s.catalog
}

// Watch returns a channel that holds the latest Catalog: it starts with the
// current one, and each publish replaces any value not yet received, so a
// slow reader skips intermediate versions but always sees the newest. The
// returned function stops the watch and closes the channel; Close closes it
// too.
func (s *Supervisor) Watch() (<-chan *Catalog, func()) {
	w := &watcher{ch: make(chan *Catalog, 1)}
	s.mu.Lock()
	defer s.mu.Unlock()
	w.ch <- s.catalogLocked()
	if s.closed {
		close(w.ch)
		return w.ch, func() {}
	}
	s.watchers[w] = struct{}{}
	return w.ch, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.watchers[w]; ok {
			delete(s.watchers, w)
			close(w.ch)
		}
	}
}

// Settle waits until no server is connecting: each is ready, failed or
// disabled. It returns ctx's error if ctx ends first, and ErrClosed if the
// Supervisor is closed first.
func (s *Supervisor) Settle(ctx context.Context) error {
	for {
		s.mu.Lock()
		closed, changed := s.closed, s.changed
		connecting := slices.ContainsFunc(s.order, func(rt *serverRuntime) bool {
			return rt.snap.State == StateConnecting
		})
		s.mu.Unlock()
		if !connecting {
			return nil
		}
		if closed {
			return ErrClosed
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("settle: %w", ctx.Err())
		}
	}
}

// CallTool calls tool on the server named server (its normalised name)
// with args, a JSON object (nil means no arguments), and returns the
// server's CallToolResult exactly as sent: content, structuredContent and
// isError are all preserved. A tool that reports failure with isError is not
// an error here; a JSON-RPC error from the server is returned as *RPCError.
//
// A server that is connecting (or restarting) is waited for. A failed
// server is started again at once, and waited for, unless it failed less
// than Options.RestartMinDelay ago; if it cannot be reached the error wraps
// ErrNotReady and says why.
//
// Every call is bounded by the server's ServerConfig.CallTimeout, else
// Options.CallTimeout, or by ctx's deadline when that is sooner; waiting
// for a connecting server counts. When that time is up, or ctx is
// cancelled, before the answer, the server is sent notifications/cancelled
// for the request and the call fails with an error wrapping
// context.DeadlineExceeded (or ctx's error) that says which bound it hit;
// the server itself is left running. If the server's process dies during
// the call, the call fails at once with how it ended.
//
// For a server with ServerConfig.CacheResults set, results of tools whose
// listing has annotations.readOnlyHint true are served from Options.Cache
// while fresh, even when the server is down; see [WithoutResultCache].
func (s *Supervisor) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
	s.mu.Lock()
	closed := s.closed
	rt := s.servers[server]
	s.mu.Unlock()
	switch {
	case closed:
		return nil, fmt.Errorf("call %q on server %q: %w", tool, server, ErrClosed)
	case rt == nil:
		return nil, fmt.Errorf("call %q on server %q: %w (configured: %s)", tool, server, ErrUnknownServer, s.serverNames())
	}
	timeout := s.opts.CallTimeout
	if rt.cfg.CallTimeout > 0 {
		timeout = rt.cfg.CallTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, &callTimeoutError{timeout})
	defer cancel()

	cacheKey := ""
	if rt.cfg.CacheResults > 0 && s.opts.Cache != nil && !resultCacheBypassed(ctx) {
		s.mu.Lock()
		snap := rt.snap
		s.mu.Unlock()
		if readOnlyTool(snap, tool) {
			cacheKey = resultKey(rt.key, tool, args)
			if res, ok := s.opts.Cache.LoadResult(cacheKey); ok {
				rt.log.Debug("result from the cache", "tool", tool)
				return res, nil
			}
		}
	}

	cn, err := s.readyConn(ctx, rt)
	if err != nil {
		return nil, fmt.Errorf("call %q on server %q: %w", tool, server, err)
	}
	res, err := cn.callTool(ctx, tool, args)
	if err != nil {
		return nil, rt.redact.Error(fmt.Errorf("call %q on server %q: %w", tool, server, err))
	}
	if cacheKey != "" && !isErrorResult(res) {
		s.opts.Cache.StoreResult(cacheKey, res, rt.cfg.CacheResults)
	}
	return res, nil
}

// callTimeoutError is the cause of a call's end when the server's call
// timeout, not the caller's deadline, ran out.
type callTimeoutError struct{ timeout time.Duration }

func (e *callTimeoutError) Error() string {
	return fmt.Sprintf("no answer within %v (the server's callTimeout; raise it in the server's \"mcpfs\" object if the tool is just slow): %v", e.timeout, context.DeadlineExceeded)
}

func (e *callTimeoutError) Unwrap() error { return context.DeadlineExceeded }

// ctxErr is why ctx ended: its cause when that wraps its error (the
// server's call timeout), else its error.
func ctxErr(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, err) {
		return cause
	}
	return err
}

// readyConn returns rt's live connection, waiting while it connects and
// asking a failed server to restart now when its backoff allows.
func (s *Supervisor) readyConn(ctx context.Context, rt *serverRuntime) (*conn, error) {
	kickedAt := -1 // rt.failures when this call asked for a restart
	for {
		s.mu.Lock()
		closed, changed := s.closed, s.changed
		snap, cn, failures, failedAt, removed := rt.snap, rt.conn, rt.failures, rt.failedAt, rt.removed
		s.mu.Unlock()
		if closed {
			return nil, ErrClosed
		}
		if removed {
			return nil, fmt.Errorf("%w: it was removed from the config or changed", ErrNotReady)
		}
		switch snap.State {
		case StateReady:
			if cn != nil {
				select {
				case <-cn.dead:
					// Dying: wait until the failure is published.
				default:
					return cn, nil
				}
			}
		case StateConnecting:
			rt.urgent.Store(true) // first in line for a start slot
		case StateDisabled:
			return nil, fmt.Errorf("%w: it is disabled", ErrNotReady)
		case StateFailed:
			why := ""
			if snap.Err != "" {
				why = ": " + snap.Err
			}
			if !rt.started || (kickedAt >= 0 && failures > kickedAt) {
				return nil, fmt.Errorf("%w: it is failed%s", ErrNotReady, why)
			}
			if kickedAt < 0 {
				if wait := s.opts.RestartMinDelay - time.Since(failedAt); wait > 0 {
					return nil, fmt.Errorf("%w: it is failed%s (it failed %v ago; mcpfs tries again in %v)",
						ErrNotReady, why, time.Since(failedAt).Round(time.Millisecond), wait.Round(time.Millisecond))
				}
				kickedAt = failures
				select {
				case rt.kick <- struct{}{}:
				default:
				}
				rt.log.Info("call to a failed server: starting it again now")
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: it is still %s: %w", ErrNotReady, snap.State, ctxErr(ctx))
		}
	}
}

// Close stops every server: it closes connections, ends stdio servers'
// process groups (SIGTERM, then SIGKILL after a short grace) and reaps
// them, and closes all Watch channels. It waits for all of that and is safe
// to call more than once.
func (s *Supervisor) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.cancel()
		s.wg.Wait()
		if c, ok := s.opts.Cache.(io.Closer); ok {
			if err := c.Close(); err != nil {
				s.log.Warn("closing the cache", "err", err)
			}
		}
		s.mu.Lock()
		for w := range s.watchers {
			close(w.ch)
		}
		clear(s.watchers)
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
	})
	return nil
}

func (s *Supervisor) serverNames() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.order) == 0 {
		return "none"
	}
	names := make([]string, len(s.order))
	for i, rt := range s.order {
		names[i] = rt.cfg.Name
	}
	return strings.Join(names, ", ")
}

// reorderLocked sorts s.order after s.servers changed. s.mu must be held.
func (s *Supervisor) reorderLocked() {
	s.order = s.order[:0]
	for _, rt := range s.servers {
		s.order = append(s.order, rt)
	}
	slices.SortFunc(s.order, func(a, b *serverRuntime) int { return strings.Compare(a.cfg.Name, b.cfg.Name) })
}

// update applies f to the server's runtime and publishes a new catalog,
// unless the Supervisor is closing: once Close has begun, the last catalog
// stays as it was.
func (s *Supervisor) update(rt *serverRuntime, f func(rt *serverRuntime)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	f(rt)
	if rt.removed {
		return
	}
	s.publishLocked()
}

// publishLocked makes a new Catalog version and hands it to watchers, if
// any (it is built only when read). s.mu must be held.
func (s *Supervisor) publishLocked() {
	s.version++
	s.dirty = true
	for w := range s.watchers {
		select {
		case <-w.ch:
		default:
		}
		w.ch <- s.catalogLocked()
	}
	close(s.changed)
	s.changed = make(chan struct{})
}
