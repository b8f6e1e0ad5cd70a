// Package engine is what a long-lived mcpfs process owns for one config:
// the supervisor with every server connection (and the cache), the
// current tree, rebuilt on every catalog the supervisor publishes, the
// skill store, the search index and the snippet runner with its warm
// worker pool. The CLI's commands, the mount, serve and the benchmark
// all run on an Engine.
//
// It wires discovery, fs, exec and skills together; nothing but the
// commands imports it.
package engine

import (
	"cmp"
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfs/mcpfs/cache"
	"github.com/mcpfs/mcpfs/cmd/internal/audit"
	"github.com/mcpfs/mcpfs/cmd/internal/runlog"
	"github.com/mcpfs/mcpfs/cmd/internal/trust"
	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/naming"
	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/check"
	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/fs/search"
	"github.com/mcpfs/mcpfs/skills"
)

// Engine is what a long-lived mcpfs process owns for one config: the
// config, the supervisor with every server connection (and the cache),
// the current tree, rebuilt on every catalog the supervisor publishes, and
// the snippet runner with its warm worker pool: one set of connections
// for every face.
type Engine struct {
	cfg            *discovery.Config
	sup            *discovery.Supervisor
	connectTimeout time.Duration
	outputDir      string
	log            *slog.Logger
	flags          Flags // what the command line set over the config
	getenv         func(string) (string, bool)
	warmRunner     bool
	oneShot        bool

	// cache is the store the supervisor uses; nil when running without
	// one (cacheWhy says why).
	cache    *cache.Store
	cacheWhy string

	tree atomic.Pointer[mcpfs.Tree]

	// trust filters and pins the catalog the tree shows and refuses
	// denied calls; audit logs every call (nil when there is no place).
	trust   *trust.View
	audit   *audit.Log
	treeGen uint64 // trust.Gen of the current tree; pubMu guards it

	// learn keeps the learned result types (learn.go); treeShapes is
	// its generation in the current tree (pubMu guards it).
	learn      *learner
	treeShapes uint64

	// search keeps the search index of the newest tree.
	search search.Indexer

	// slots bounds the runs in progress (MaxRuns).
	slots chan struct{}
	// runs is the short history of runs, of every face (the page's).
	runs runlog.Log

	// skills is the skill store; nil when there is no place for one.
	// Trees include its current skills.
	skills *skills.Store

	pubMu      sync.Mutex    // serializes making a new tree current
	skillsKey  string        // names and versions of treeSkills
	treeSkills []mcpfs.Skill // the skills of the current tree

	// runMu guards settings and runner. A change of the config's "mcpfs"
	// section replaces both: the old runner is closed once the runs that
	// use it end (retired waits for that).
	runMu     sync.Mutex
	settings  *Settings
	runner    *runnerRef // nil until first used
	runClosed bool
	retired   sync.WaitGroup

	mu       sync.Mutex
	watchers map[chan *mcpfs.Tree]struct{}
	closed   bool

	stopSup         func()        // stops the supervisor watch
	stopConfigWatch func()        // stops following the config file
	stopSkills      func()        // stops following the skill store
	followed        chan struct{} // closed when the watch loop ends
	closeOnce       sync.Once
	genCache        *mcpfs.GenCache
}

// Options configure an Engine.
type Options struct {
	// Logger receives the engine's and the servers' logs; nil discards.
	Logger *slog.Logger
	// DataDir holds the cache, the skills and saved output; "" means the
	// user's cache and data dirs (see Dirs).
	DataDir string
	// ConnectTimeout bounds one server's start and first listing; zero
	// means discovery's default.
	ConnectTimeout time.Duration
	// Builtins are the in-process servers a config can name.
	Builtins map[string]func() *server.MCPServer

	// WarmRunner starts the snippet runner, and a worker for its pool, at
	// once; otherwise the runner starts on the first Run.
	WarmRunner bool
	// Timeout is a snippet's run time when neither Run nor the config
	// (mcpfs.limits.timeout) gives one, capped by the config's maxTimeout.
	// Zero means exec.DefaultTimeout.
	Timeout time.Duration
	// Strict refuses to run snippets unless every sandbox layer is active,
	// whatever the config's mcpfs.sandbox says.
	Strict bool
	// Flags are command-line flags the user gave; they override the
	// config's settings.
	Flags Flags
	// OneShot: the engine serves one command and ends; its runner keeps
	// no worker waiting for a second run.
	OneShot bool
	// Cache, when set, is a cache the engine shares (and does not
	// close); otherwise it opens the data dir's own. CacheWhy says why
	// a shared one is missing.
	Cache    *cache.Store
	CacheWhy string
	// Shared: the cache is given, or there is none (CacheWhy).
	Shared bool
	// TreeMemory bounds the bytes of generated server packages the
	// engine's trees keep (see fs.GenCache) when the config's
	// mcpfs.engine.treeMemory does not; 0 means fs.DefaultGenerated,
	// negative no bound.
	TreeMemory int64
	// Getenv expands ${VAR} in the config file when an edit makes the
	// engine read it again: the environment it was loaded with (a
	// resident engine serves commands from other environments). Nil means
	// os.LookupEnv.
	Getenv func(string) (string, bool)
}

// sharedCache is a cache the supervisor uses but does not close: it has
// no Close method.
type sharedCache struct{ discovery.Cache }

// runnerRef is a runner and the runs using it.
type runnerRef struct {
	r    *exec.Runner
	runs sync.WaitGroup
}

// skillsRefresh is how often an engine looks for skills that other
// processes saved (mcpfs skills add, another mount).
const skillsRefresh = 2 * time.Second

// Start starts every server of cfg in the background and returns at once;
// the tree shows each server as connecting until it is ready. Close must
// be called.
func Start(ctx context.Context, cfg *discovery.Config, opts Options) *Engine {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	flags := opts.Flags
	if opts.Strict && flags.Sandbox == "" {
		flags.Sandbox = "strict"
	}
	if flags.DefaultTimeout <= 0 {
		flags.DefaultTimeout = opts.Timeout
	}
	dirs := Dirs{Data: opts.DataDir, Logger: log}
	e := &Engine{
		cfg:            cfg,
		connectTimeout: opts.ConnectTimeout,
		outputDir:      dirs.OutputDir(),
		log:            log,
		flags:          flags,
		getenv:         opts.Getenv,
		warmRunner:     opts.WarmRunner,
		oneShot:        opts.OneShot,
		watchers:       map[chan *mcpfs.Tree]struct{}{},
		followed:       make(chan struct{}),
		slots:          make(chan struct{}, MaxRuns),
		learn:          newLearner(),
	}
	if e.connectTimeout <= 0 {
		e.connectTimeout = discovery.DefaultConnectTimeout
	}
	rs, err := SettingsFor(cfg, flags)
	if err != nil {
		// The caller checked the config; only flags beyond its bounds get
		// here, and the flags are then dropped.
		log.Warn("snippet settings: flags ignored", "error", err)
		e.flags = Flags{}
		if rs, err = SettingsFor(cfg, e.flags); err != nil {
			log.Warn("snippet settings: the config's mcpfs section ignored", "error", err)
			rs, _ = SettingsFor(&discovery.Config{Path: cfg.Path}, e.flags)
		}
	}
	e.settings = rs
	var dc discovery.Cache
	switch {
	case opts.Cache != nil:
		e.cache, dc = opts.Cache, sharedCache{opts.Cache}
	case opts.Shared:
		e.cacheWhy = opts.CacheWhy
	default:
		if c, why := dirs.OpenCache(); c != nil {
			e.cache, dc = c, c
		} else {
			e.cacheWhy = why
		}
	}
	// The pin files are read beside the cached listings.
	e.startTrust(dirs, cfg)
	e.trust.Preload(cfg.Servers)
	e.sup = discovery.Start(ctx, cfg, discovery.Options{
		Logger:         log,
		ConnectTimeout: opts.ConnectTimeout,
		Builtins:       opts.Builtins,
		Cache:          dc,
		// An mcpfs started as one of the servers starts none of its own.
		ServerEnv: map[string]string{ServedByEnv: ConfigName(cfg.Path)},
		OAuthDir:  dirs.TrustDir("oauth"),
	})
	if st, err := dirs.OpenSkills(); err != nil {
		log.Warn("skills are not available", "error", err)
	} else {
		e.skills = st
		e.skillsKey, e.treeSkills = skillsState(st.List())
	}
	e.treeGen, e.treeShapes = e.trust.Gen(), e.shapesGen()
	// Every tree the engine publishes keeps its generated packages in one
	// cache, within one bound.
	e.genCache = mcpfs.NewGenCache(cmp.Or(cfg.Settings.TreeMemory, opts.TreeMemory))
	if b := Build(); e.cache != nil && b != "" {
		// The next engine reads the tool files this one generates
		// (unless this build cannot be told from another).
		e.genCache.Persist(e.cache, b)
	}
	e.tree.Store(mcpfs.New(e.withShapes(e.trust.Apply(e.sup.Catalog())), mcpfs.Options{Skills: e.treeSkills, Cache: e.genCache}))
	updates, stop := e.sup.Watch()
	e.stopSup = stop
	go func() {
		defer close(e.followed)
		for cat := range updates {
			e.publish(cat)
		}
	}()
	if opts.WarmRunner {
		e.getRunner()
	}
	e.watchConfig(ctx)
	e.watchSkills()
	return e
}

// watchSkills publishes a new tree when the skill store changes: a save
// through this process (the mount, the MCP face), or one by another
// process, which a periodic Refresh finds.
func (e *Engine) watchSkills() {
	if e.skills == nil {
		e.stopSkills = func() {}
		return
	}
	changes, stopWatch := e.skills.Watch()
	quit, done := make(chan struct{}), make(chan struct{})
	e.stopSkills = func() { close(quit); <-done; stopWatch() }
	go func() {
		defer close(done)
		tick := time.NewTicker(skillsRefresh)
		defer tick.Stop()
		for {
			select {
			case <-changes:
				e.publishSkills()
			case <-tick.C:
				if _, err := e.skills.Refresh(); err != nil {
					e.log.Warn("read saved skills", "dir", e.skills.Dir(), "error", err)
				}
			case <-quit:
				return
			}
		}
	}()
}

// Skills returns the skill store, nil when skills are not available.
func (e *Engine) Skills() *skills.Store { return e.skills }

// skillsState returns what a tree shows of list, and a key that changes
// when any skill of list does.
func skillsState(list []skills.Skill) (string, []mcpfs.Skill) {
	var key strings.Builder
	for _, sk := range list {
		fmt.Fprintf(&key, "%s@%d ", sk.Name, sk.Version)
	}
	return key.String(), skills.ForTree(list)
}

// publishSkills makes current a tree with the store's current skills, if
// they differ from the current tree's, and tells the watchers.
func (e *Engine) publishSkills() *mcpfs.Tree {
	if e.skills == nil {
		return e.tree.Load()
	}
	e.pubMu.Lock()
	defer e.pubMu.Unlock()
	cur := e.tree.Load()
	key, list := skillsState(e.skills.List())
	if key == e.skillsKey {
		return cur
	}
	e.skillsKey, e.treeSkills = key, list
	t := cur.WithSkills(list)
	e.tree.Store(t)
	e.notify(t)
	return t
}

// watchConfig follows edits of the config file: servers added, removed or
// changed in it are started, stopped or restarted without a restart of
// mcpfs, and an edit that breaks the file is reported while the last good
// config stays in use.
func (e *Engine) watchConfig(ctx context.Context) {
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	e.stopConfigWatch = func() { cancel(); <-done }
	go func() {
		defer close(done)
		discovery.WatchConfig(wctx, e.cfg, 0, e.getenv,
			func(cfg *discovery.Config) {
				cfg = DropSelf(cfg, e.log)
				if cur := e.Config(); reflect.DeepEqual(cfg.Servers, cur.Servers) && cfg.Settings.Equal(cur.Settings) {
					return // only entries mcpfs skips changed
				}
				rs, err := SettingsFor(cfg, e.flags)
				if err != nil {
					e.log.Warn("config file changed but is not valid; still using the last good one", "err", err)
					return
				}
				e.log.Warn("config file changed: applying it", "file", cfg.Path, "servers", len(cfg.Servers))
				for _, w := range cfg.Warnings {
					e.log.Warn("config: " + w)
				}
				e.mu.Lock()
				e.cfg = cfg
				e.mu.Unlock()
				e.sup.Reconfigure(cfg)
				e.applySettings(rs)
				e.applyTrust(cfg)
			},
			func(err error) {
				e.log.Warn("config file changed but is not valid; still using the last good one", "err", err)
			})
	}()
}

// Tree returns the tree of the newest catalog with the saved skills. It
// is the same value until the catalog or the skills change, so that what
// is derived from a tree (type-checked packages, search indexes) is
// reused.
func (e *Engine) Tree() *mcpfs.Tree { return e.publishSkills() }

// Catalog returns the catalog of the current tree.
func (e *Engine) Catalog() *discovery.Catalog { return e.Tree().Catalog() }

// Config returns the config in use: the one loaded at start, or the last
// good edit of its file.
func (e *Engine) Config() *discovery.Config {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cfg
}

// publish makes the tree of cat current if cat is newer than the current
// tree's catalog, and tells the watchers.
func (e *Engine) publish(cat *discovery.Catalog) *mcpfs.Tree {
	e.pubMu.Lock()
	defer e.pubMu.Unlock()
	cur := e.tree.Load()
	gen, shapes := e.trust.Gen(), e.shapesGen()
	if cat.Version <= cur.Catalog().Version && gen == e.treeGen && shapes == e.treeShapes {
		return cur
	}
	if cat.Version < cur.Catalog().Version {
		cat = e.sup.Catalog() // a new policy, trust or learned type: the newest catalog
	}
	e.treeGen, e.treeShapes = gen, shapes
	t := mcpfs.New(e.withShapes(e.trust.Apply(cat)), mcpfs.Options{Skills: e.treeSkills, Cache: e.genCache})
	e.tree.Store(t)
	e.notify(t)
	return t
}

// notify hands t to every watcher, replacing a tree not yet received.
func (e *Engine) notify(t *mcpfs.Tree) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for ch := range e.watchers {
		select {
		case <-ch:
		default:
		}
		ch <- t
	}
}

// follow calls f with every tree newer than since (the tree the caller
// has already seen), from one goroutine, until the returned stop is
// called; stop waits for a call in progress. A slow f skips trees, never
// the newest one.
func (e *Engine) Follow(since *mcpfs.Tree, f func(*mcpfs.Tree)) (stop func()) {
	ch := make(chan *mcpfs.Tree, 1)
	e.mu.Lock()
	if cur := e.tree.Load(); cur != since {
		ch <- cur
	}
	if !e.closed {
		e.watchers[ch] = struct{}{}
	} else {
		close(ch)
	}
	e.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for t := range ch {
			f(t)
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			e.mu.Lock()
			if _, ok := e.watchers[ch]; ok {
				delete(e.watchers, ch)
				close(ch)
			}
			e.mu.Unlock()
			<-done
		})
	}
}

// getRunner returns the current runner, starting it if there is none;
// nil after Close. A change of settings may close it: runs go through
// acquireRunner, which keeps it open while they use it.
func (e *Engine) getRunner() *exec.Runner {
	ref, _ := e.acquireRunner()
	if ref == nil {
		return nil
	}
	ref.runs.Done()
	return ref.r
}

// acquireRunner returns the current runner, started if need be, and the
// settings it runs with; the caller calls ref.runs.Done when its run
// ends. ref is nil after Close.
func (e *Engine) acquireRunner() (*runnerRef, *Settings) {
	e.runMu.Lock()
	defer e.runMu.Unlock()
	if e.runClosed {
		return nil, e.settings
	}
	if e.runner == nil {
		e.runner = &runnerRef{r: exec.NewRunner(e.runnerOptions())}
	}
	e.runner.runs.Add(1)
	return e.runner, e.settings
}

// runnerOptions are the current settings' runner options. e.runMu must
// be held.
func (e *Engine) runnerOptions() exec.Options {
	o := e.settings.Options
	o.Logger = e.log
	o.OutputDir = e.outputDir
	if e.oneShot {
		o.PoolSize = -1
	}
	return o
}

// Settings returns the settings snippets run with now.
func (e *Engine) Settings() *Settings {
	e.runMu.Lock()
	defer e.runMu.Unlock()
	return e.settings
}

// applySettings makes rs the settings of new runs. When they differ from
// the current ones the runner is replaced: runs in progress finish on the
// old one, which is closed after them.
func (e *Engine) applySettings(rs *Settings) {
	e.runMu.Lock()
	if e.runClosed || e.settings.equal(rs) {
		e.runMu.Unlock()
		return
	}
	old := e.runner
	e.settings, e.runner = rs, nil
	if e.warmRunner {
		e.runner = &runnerRef{r: exec.NewRunner(e.runnerOptions())}
	}
	e.runMu.Unlock()
	var changed []string
	for _, k := range SettingKeys {
		changed = append(changed, k+"="+rs.Value(k))
	}
	e.log.Warn("config: snippet settings changed; new runs use them", "settings", strings.Join(changed, " "))
	if old == nil {
		return
	}
	e.retired.Add(1)
	go func() {
		defer e.retired.Done()
		old.runs.Wait()
		old.r.Close()
	}()
}

// Run type-checks a snippet against the current tree and runs it in a
// sandboxed worker, its tool calls going to the supervisor. A snippet that
// does not pass the check returns its check.ErrorList and a nil Result.
// When the snippet imports a server that is still connecting and has no
// tools yet, Run first waits for it (at most the connect timeout); one
// that failed with no tools known is an *UnavailableError.
func (e *Engine) Run(ctx context.Context, filename string, src []byte, timeout time.Duration) (*exec.Result, error) {
	return e.RunWith(ctx, filename, src, RunOptions{Timeout: timeout, Face: FaceServe})
}

// MaxRuns is how many snippets one engine runs at once; more wait for a
// slot, and the wait counts against their time limit.
const MaxRuns = 8

// RunOptions are what one run asks beyond the engine's settings.
type RunOptions struct {
	// Waiting, when set, is called once when the run must wait for a
	// slot, with how many runs are in progress.
	Waiting  func(running int)
	Timeout  time.Duration   // zero: the settings' default
	Strict   bool            // refuse unless every sandbox layer is in force
	Progress func(exec.Call) // called after each tool call ends; may be nil
	Face     string          // where the run comes from, for the audit log; "" is the CLI
	Tag      string          // who started it within its face, kept in the run history (a page's own runs)
	// WrapCall, when set, wraps the function tool calls go through.
	WrapCall func(exec.CallFunc) exec.CallFunc
	// Stdout and Stderr, when set, receive the output as it comes (see
	// exec.Request: line by line, cut at the output limit with a note,
	// then the rest of what the Result holds).
	Stdout, Stderr io.Writer
	// Connecting, when set, is told the servers the snippet imports that
	// are connecting, while the run waits for them (no tools known yet)
	// or runs (its calls to them wait): when there are some, each time
	// that set changes, and nil at the end. From a goroutine of the
	// run's own.
	Connecting func(servers []string)
}

// runWithProgress is Run, calling progress (when not nil) after each tool
// call of the snippet ends.
func (e *Engine) RunWithProgress(ctx context.Context, filename string, src []byte, timeout time.Duration, progress func(exec.Call)) (*exec.Result, error) {
	return e.RunWith(ctx, filename, src, RunOptions{Timeout: timeout, Progress: progress, Face: FaceMount})
}

// RunWith is Run with per-run options. The run, its calls and its end go
// to the engine's run history (Runs).
func (e *Engine) RunWith(ctx context.Context, filename string, src []byte, ro RunOptions) (*exec.Result, error) {
	rec := e.runs.Start(cmp.Or(ro.Face, FaceCLI), ro.Tag, filename, src)
	wrap := ro.WrapCall
	ro.WrapCall = func(next exec.CallFunc) exec.CallFunc {
		if wrap != nil {
			next = wrap(next)
		}
		return rec.Wrap(next)
	}
	res, err := e.runWith(ctx, filename, src, ro)
	rec.End(res, err)
	return res, err
}

// Runs is the engine's history of the runs it made, from every face.
func (e *Engine) Runs() *runlog.Log { return &e.runs }

func (e *Engine) runWith(ctx context.Context, filename string, src []byte, ro RunOptions) (*exec.Result, error) {
	start := time.Now()
	limit := ro.Timeout
	if limit <= 0 {
		limit = e.Settings().Options.Timeout
	}
	select {
	case e.slots <- struct{}{}:
	default:
		if ro.Waiting != nil {
			ro.Waiting(len(e.slots))
		}
		wctx, cancel := context.WithTimeout(ctx, limit)
		select {
		case e.slots <- struct{}{}:
			cancel()
		case <-wctx.Done():
			cancel()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &exec.RunError{Kind: exec.ErrTimeout, Msg: fmt.Sprintf("waited %v for a run slot: %d runs were in progress on the engine", limit, MaxRuns)}
		}
	}
	defer func() { <-e.slots }()
	if waited := time.Since(start); waited > time.Millisecond {
		ro.Timeout = max(limit-waited, time.Millisecond)
	}
	imports := snippetServers(filename, src)
	defer e.watchImports(imports, ro.Connecting)()
	e.waitImports(ctx, imports)
	if err := unavailable(e.sup.Catalog(), imports); err != nil {
		return nil, err
	}
	if e.skills != nil {
		// Skills saved by another process since the last look.
		if _, err := e.skills.Refresh(); err != nil {
			e.log.Warn("read saved skills", "dir", e.skills.Dir(), "error", err)
		}
		e.publishSkills()
	}
	tree := e.publish(e.sup.Catalog())
	// The runner and the allowlist come from the same settings, and the
	// runner stays open until this run ends.
	ref, rs := e.acquireRunner()
	if ref == nil {
		return nil, fmt.Errorf("run %s: %w", filename, exec.ErrClosed)
	}
	defer ref.runs.Done()
	prog, err := check.Check(filename, src, tree, rs.Check())
	if err != nil {
		return nil, err
	}
	call := e.callFunc(cmp.Or(ro.Face, FaceCLI), newRunID())
	if ro.WrapCall != nil {
		call = ro.WrapCall(call)
	}
	return ref.r.Run(ctx, exec.Request{
		Filename: filename,
		Source:   prog.Source,
		Tree:     tree,
		Packages: prog.TreePackages,
		Files:    prog.Files,
		Timeout:  ro.Timeout,
		Strict:   ro.Strict,
		Call:     call,
		Progress: ro.Progress,
		Stdout:   ro.Stdout,
		Stderr:   ro.Stderr,
	})
}

// snippetServers returns the package names of the servers a snippet
// imports. A snippet that does not parse imports none here: the check
// reports it.
func snippetServers(filename string, src []byte) map[string]bool {
	f, err := parser.ParseFile(token.NewFileSet(), filename, src, parser.ImportsOnly)
	if err != nil {
		return nil
	}
	want := map[string]bool{}
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		if name, ok := strings.CutPrefix(p, "mcpfs/"+mcpfs.ServersDir+"/"); ok {
			want[name] = true
		}
	}
	return want
}

// UnavailableError is the error of a run that imports servers that are
// down with no tools known: one line per server, instead of an undefined
// name for every use.
type UnavailableError struct{ Lines []string }

func (e *UnavailableError) Error() string {
	return strings.Join(e.Lines, "\n") + "\n(the snippet imports them; mcpfs ls servers shows every server's state)"
}

// unavailable returns an *UnavailableError naming each server of imports
// (package names) that cat has down without any tools, or nil.
func unavailable(cat *discovery.Catalog, imports map[string]bool) error {
	var lines []string
	for _, s := range cat.Servers {
		if !imports[naming.Package(s.Name)] || len(s.Tools) > 0 {
			continue
		}
		switch s.State {
		case discovery.StateFailed:
			if strings.HasPrefix(s.Err, "needs login: ") {
				lines = append(lines, fmt.Sprintf("%s/%s: %s", mcpfs.ServersDir, naming.Package(s.Name), s.Err))
				continue
			}
			lines = append(lines, fmt.Sprintf("%s/%s: failed: %s", mcpfs.ServersDir, naming.Package(s.Name), s.Err))
		case discovery.StateDisabled:
			lines = append(lines, fmt.Sprintf("%s/%s: disabled in the config", mcpfs.ServersDir, naming.Package(s.Name)))
		case discovery.StateConnecting:
			lines = append(lines, fmt.Sprintf("%s/%s: still connecting after the connect timeout", mcpfs.ServersDir, naming.Package(s.Name)))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return &UnavailableError{lines}
}

// settle waits until every server is ready or has failed (each bounded
// by the connect timeout) and makes the newest catalog's tree current:
// what a command that runs in process does before reading the tree.
func (e *Engine) Settle(ctx context.Context) error {
	sctx, cancel := context.WithTimeout(ctx, e.connectTimeout+5*time.Second)
	defer cancel()
	if err := e.sup.Settle(sctx); err != nil && ctx.Err() != nil {
		return fmt.Errorf("interrupted while connecting to servers: %w", ctx.Err())
	}
	e.publish(e.sup.Catalog())
	return nil
}

// WaitReady waits until no server is connecting without tools, at most
// the connect timeout, and makes the newest catalog's tree current.
func (e *Engine) WaitReady(ctx context.Context) {
	e.WaitFor(ctx, func(string) bool { return true })
	e.publish(e.sup.Catalog())
}

// waitFor waits until no server that match selects is connecting without
// tools, bounded by the connect timeout.
func (e *Engine) WaitFor(ctx context.Context, match func(name string) bool) {
	waiting := func(cat *discovery.Catalog) bool {
		for _, s := range cat.Servers {
			if match(s.Name) && s.State == discovery.StateConnecting && len(s.Tools) == 0 {
				return true
			}
		}
		return false
	}
	if !waiting(e.sup.Catalog()) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, e.connectTimeout+5*time.Second)
	defer cancel()
	updates, stop := e.sup.Watch()
	defer stop()
	for {
		select {
		case cat, ok := <-updates:
			if !ok || !waiting(cat) {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// Close stops the runner, every server and every watcher.
func (e *Engine) Close() {
	e.closeOnce.Do(func() {
		e.stopConfigWatch()
		e.stopSkills()
		e.stopSup()
		<-e.followed
		e.mu.Lock()
		e.closed = true
		for ch := range e.watchers {
			delete(e.watchers, ch)
			close(ch)
		}
		e.mu.Unlock()
		e.runMu.Lock()
		e.runClosed = true // no runner starts after Close
		cur := e.runner
		e.runMu.Unlock()
		if cur != nil {
			cur.r.Close()
		}
		e.retired.Wait()
		e.flushShapes()
		e.sup.Close()
		if e.audit != nil {
			e.audit.Close()
		}
	})
}

// WaitServers waits (at most the connect timeout) until no server that
// match selects is connecting without tools, and makes the newest
// catalog's tree current.
func (e *Engine) WaitServers(ctx context.Context, match func(name string) bool) {
	e.WaitFor(ctx, match)
	e.publish(e.sup.Catalog())
}

// Cache returns the cache the engine uses, nil when it runs without one;
// CacheWhy then says why.
func (e *Engine) Cache() *cache.Store { return e.cache }

// CacheWhy says why the engine runs without a cache.
func (e *Engine) CacheWhy() string { return e.cacheWhy }

// OutputDir is where cut snippet output is saved whole.
func (e *Engine) OutputDir() string { return e.outputDir }

// Search ranks the tools and skills of tree t for query, as the faces
// show it: one line per hit, at most n.
func (e *Engine) Search(t *mcpfs.Tree, query string, n int) string {
	return e.search.Search(t, query, n)
}

// Supervisor returns the supervisor of the engine's servers.
func (e *Engine) Supervisor() *discovery.Supervisor { return e.sup }

// Runner returns the snippet runner, started if need be; nil after Close.
// Runs that go through it directly skip the engine's check and waits.
func (e *Engine) Runner() *exec.Runner { return e.getRunner() }
