package main

import (
	"cmp"
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpfs/mcpfs/cache"
	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/audit"
	"github.com/mcpfs/mcpfs/discovery/naming"
	"github.com/mcpfs/mcpfs/discovery/trust"
	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/check"
	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/fs/search"
	"github.com/mcpfs/mcpfs/skills"
)

// engine is what a long-lived mcpfs process owns: the config, the
// supervisor with every server connection (and the cache), the current
// tree, rebuilt on every catalog the supervisor publishes, and the snippet
// runner with its warm worker pool. `mcpfs mount` and `mcpfs serve`
// (with or without --mount) run one engine: one set of connections for
// every face.
type engine struct {
	cfg            *discovery.Config
	sup            *discovery.Supervisor
	connectTimeout time.Duration
	outputDir      string
	log            *slog.Logger
	flags          runFlags // what the command line set over the config
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

	// search keeps the search index of the newest tree.
	search search.Indexer

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
	settings  *runSettings
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
}

// engineOptions configure an engine.
type engineOptions struct {
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
	Flags runFlags
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

// loadConfig loads the config the global flags name and logs what was
// found. A bad config, including an "mcpfs" section that allows a
// package snippets may never import, is an error that exits 2.
func (g *globals) loadConfig() (*discovery.Config, error) {
	if g.connectTimeout <= 0 {
		return nil, usagef("--connect-timeout must be positive, got %v", g.connectTimeout)
	}
	cfg, err := discovery.Load(g.config, discovery.LoadOptions{})
	if err != nil {
		return nil, err
	}
	if _, err := settingsFor(cfg, runFlags{}); err != nil {
		return nil, err
	}
	cfg = dropSelf(cfg, g.log)
	if cfg.Path == "" {
		g.log.Info("no config file found; using the built-in default", "servers", len(cfg.Servers))
	} else {
		g.log.Info("config", "file", cfg.Path, "found-by", cfg.Source, "servers", len(cfg.Servers))
	}
	for _, w := range cfg.Warnings {
		g.log.Warn("config: " + w)
	}
	return cfg, nil
}

// startEngine starts every server of cfg in the background and returns at
// once; the tree shows each server as connecting until it is ready. Close
// must be called.
func startEngine(ctx context.Context, g *globals, cfg *discovery.Config, opts engineOptions) *engine {
	flags := opts.Flags
	if opts.Strict && flags.Sandbox == "" {
		flags.Sandbox = "strict"
	}
	if flags.DefaultTimeout <= 0 {
		flags.DefaultTimeout = opts.Timeout
	}
	e := &engine{
		cfg:            cfg,
		connectTimeout: g.connectTimeout,
		outputDir:      engineOutputDir(g.dataDir),
		log:            g.log,
		flags:          flags,
		warmRunner:     opts.WarmRunner,
		oneShot:        opts.OneShot,
		watchers:       map[chan *mcpfs.Tree]struct{}{},
		followed:       make(chan struct{}),
	}
	rs, err := settingsFor(cfg, flags)
	if err != nil {
		// loadConfig checked the config; only flags beyond its bounds get
		// here, and the flags are then dropped.
		g.log.Warn("snippet settings: flags ignored", "error", err)
		e.flags = runFlags{}
		if rs, err = settingsFor(cfg, e.flags); err != nil {
			g.log.Warn("snippet settings: the config's mcpfs section ignored", "error", err)
			rs, _ = settingsFor(&discovery.Config{Path: cfg.Path}, e.flags)
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
		if c, why := g.openCache(); c != nil {
			e.cache, dc = c, c
		} else {
			e.cacheWhy = why
		}
	}
	e.sup = g.startServers(ctx, cfg, dc)
	e.startTrust(g, cfg)
	if st, err := g.openSkills(); err != nil {
		g.log.Warn("skills are not available", "error", err)
	} else {
		e.skills = st
		e.skillsKey, e.treeSkills = skillsState(st.List())
	}
	e.treeGen = e.trust.Gen()
	e.tree.Store(mcpfs.New(e.trust.Apply(e.sup.Catalog()), mcpfs.Options{Skills: e.treeSkills}))
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
	e.watchConfig(ctx, g)
	e.watchSkills(g)
	return e
}

// watchSkills publishes a new tree when the skill store changes: a save
// through this process (the mount, the MCP face), or one by another
// process, which a periodic Refresh finds.
func (e *engine) watchSkills(g *globals) {
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
					g.log.Warn("read saved skills", "dir", e.skills.Dir(), "error", err)
				}
			case <-quit:
				return
			}
		}
	}()
}

// Skills returns the skill store, nil when skills are not available.
func (e *engine) Skills() *skills.Store { return e.skills }

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
func (e *engine) publishSkills() *mcpfs.Tree {
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
func (e *engine) watchConfig(ctx context.Context, g *globals) {
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	e.stopConfigWatch = func() { cancel(); <-done }
	go func() {
		defer close(done)
		discovery.WatchConfig(wctx, e.cfg, 0, nil,
			func(cfg *discovery.Config) {
				cfg = dropSelf(cfg, g.log)
				if cur := e.Config(); reflect.DeepEqual(cfg.Servers, cur.Servers) && cfg.Settings.Equal(cur.Settings) {
					return // only entries mcpfs skips changed
				}
				rs, err := settingsFor(cfg, e.flags)
				if err != nil {
					g.log.Warn("config file changed but is not valid; still using the last good one", "err", err)
					return
				}
				g.log.Warn("config file changed: applying it", "file", cfg.Path, "servers", len(cfg.Servers))
				for _, w := range cfg.Warnings {
					g.log.Warn("config: " + w)
				}
				e.mu.Lock()
				e.cfg = cfg
				e.mu.Unlock()
				e.sup.Reconfigure(cfg)
				e.applySettings(rs)
				e.applyTrust(cfg)
			},
			func(err error) {
				g.log.Warn("config file changed but is not valid; still using the last good one", "err", err)
			})
	}()
}

// engineOutputDir is where long snippet output is saved: <data
// dir>/output, or <temp dir>/mcpfs-output.
func engineOutputDir(dataDir string) string {
	if dataDir != "" {
		return filepath.Join(dataDir, "output")
	}
	return filepath.Join(os.TempDir(), "mcpfs-output")
}

// Tree returns the tree of the newest catalog with the saved skills. It
// is the same value until the catalog or the skills change, so that what
// is derived from a tree (type-checked packages, search indexes) is
// reused.
func (e *engine) Tree() *mcpfs.Tree { return e.publishSkills() }

// Catalog returns the catalog of the current tree.
func (e *engine) Catalog() *discovery.Catalog { return e.Tree().Catalog() }

// Config returns the config in use: the one loaded at start, or the last
// good edit of its file.
func (e *engine) Config() *discovery.Config {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cfg
}

// publish makes the tree of cat current if cat is newer than the current
// tree's catalog, and tells the watchers.
func (e *engine) publish(cat *discovery.Catalog) *mcpfs.Tree {
	e.pubMu.Lock()
	defer e.pubMu.Unlock()
	cur := e.tree.Load()
	gen := e.trust.Gen()
	if cat.Version <= cur.Catalog().Version && gen == e.treeGen {
		return cur
	}
	if cat.Version < cur.Catalog().Version {
		cat = e.sup.Catalog() // a new policy or trust: the newest catalog
	}
	e.treeGen = gen
	t := mcpfs.New(e.trust.Apply(cat), mcpfs.Options{Skills: e.treeSkills})
	e.tree.Store(t)
	e.notify(t)
	return t
}

// notify hands t to every watcher, replacing a tree not yet received.
func (e *engine) notify(t *mcpfs.Tree) {
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
func (e *engine) follow(since *mcpfs.Tree, f func(*mcpfs.Tree)) (stop func()) {
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
func (e *engine) getRunner() *exec.Runner {
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
func (e *engine) acquireRunner() (*runnerRef, *runSettings) {
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
func (e *engine) runnerOptions() exec.Options {
	o := e.settings.Options
	o.Logger = e.log
	o.OutputDir = e.outputDir
	if e.oneShot {
		o.PoolSize = -1
	}
	return o
}

// Settings returns the settings snippets run with now.
func (e *engine) Settings() *runSettings {
	e.runMu.Lock()
	defer e.runMu.Unlock()
	return e.settings
}

// applySettings makes rs the settings of new runs. When they differ from
// the current ones the runner is replaced: runs in progress finish on the
// old one, which is closed after them.
func (e *engine) applySettings(rs *runSettings) {
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
	for _, k := range settingKeys {
		changed = append(changed, k+"="+rs.value(k))
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
// that failed with no tools known is an *unavailableError.
func (e *engine) Run(ctx context.Context, filename string, src []byte, timeout time.Duration) (*exec.Result, error) {
	return e.runWith(ctx, filename, src, runOptions{Timeout: timeout, Face: faceServe})
}

// runOptions are what one run asks beyond the engine's settings.
type runOptions struct {
	Timeout  time.Duration   // zero: the settings' default
	Strict   bool            // refuse unless every sandbox layer is in force
	Progress func(exec.Call) // called after each tool call ends; may be nil
	Face     string          // where the run comes from, for the audit log; "" is the CLI
}

// runWithProgress is Run, calling progress (when not nil) after each tool
// call of the snippet ends.
func (e *engine) runWithProgress(ctx context.Context, filename string, src []byte, timeout time.Duration, progress func(exec.Call)) (*exec.Result, error) {
	return e.runWith(ctx, filename, src, runOptions{Timeout: timeout, Progress: progress, Face: faceMount})
}

// runWith is Run with per-run options.
func (e *engine) runWith(ctx context.Context, filename string, src []byte, ro runOptions) (*exec.Result, error) {
	imports := snippetServers(filename, src)
	e.waitFor(ctx, func(name string) bool { return imports[naming.Package(name)] })
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
	return ref.r.Run(ctx, exec.Request{
		Filename: filename,
		Source:   prog.Source,
		Tree:     tree,
		Packages: prog.TreePackages,
		Files:    prog.Files,
		Timeout:  ro.Timeout,
		Strict:   ro.Strict,
		Call:     e.callFunc(cmp.Or(ro.Face, faceCLI), newRunID()),
		Progress: ro.Progress,
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

// unavailableError is the error of a run that imports servers that are
// down with no tools known: one line per server, instead of an undefined
// name for every use.
type unavailableError struct{ lines []string }

func (e *unavailableError) Error() string {
	return strings.Join(e.lines, "\n") + "\n(the snippet imports them; mcpfs ls servers shows every server's state)"
}

// unavailable returns an *unavailableError naming each server of imports
// (package names) that cat has down without any tools, or nil.
func unavailable(cat *discovery.Catalog, imports map[string]bool) error {
	var lines []string
	for _, s := range cat.Servers {
		if !imports[naming.Package(s.Name)] || len(s.Tools) > 0 {
			continue
		}
		switch s.State {
		case discovery.StateFailed:
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
	return &unavailableError{lines}
}

// settle waits until every server is ready or has failed (each bounded
// by the connect timeout) and makes the newest catalog's tree current:
// what a command that runs in process does before reading the tree.
func (e *engine) settle(ctx context.Context) error {
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
func (e *engine) WaitReady(ctx context.Context) {
	e.waitFor(ctx, func(string) bool { return true })
	e.publish(e.sup.Catalog())
}

// waitFor waits until no server that match selects is connecting without
// tools, bounded by the connect timeout.
func (e *engine) waitFor(ctx context.Context, match func(name string) bool) {
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
func (e *engine) Close() {
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
		e.sup.Close()
		if e.audit != nil {
			e.audit.Close()
		}
	})
}
