package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"log/slog"
	"os"
	osexec "os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/builtin"
	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/check"
	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/fs/fuse"
	"github.com/mcpfs/mcpfs/testenv"
)

// npmServers are the pinned reference servers (testenv/package.json) the
// full suite runs, by config name and executable.
var npmServers = []struct{ name, bin string }{
	{"everything", "mcp-server-everything"},
	{"filesystem", "mcp-server-filesystem"},
	{"memory", "mcp-server-memory"},
}

// env is one benchmark environment: a config, its servers connected, the
// tree, a snippet runner and, when FUSE is usable, the tree mounted.
type env struct {
	opts  options
	log   *slog.Logger
	count *counter

	dir      string // scratch folder: config, served files, memory file, mounts
	filesDir string // the folder server-filesystem may read and write
	cfgPath  string // the config file written for the npm servers ("" when none)
	cfg      *discovery.Config
	eng      *engine.Engine // the engine mcpfs runs; sup, tree and runner are its
	sup      *discovery.Supervisor
	tree     *mcpfs.Tree
	runner   *exec.Runner
	mcpfsBin string // the mcpfs binary built by binary ("" until then)

	npm     bool   // the npm servers are in the config
	npmWhy  string // why they are not
	fuseWhy string // why the tree is not mounted ("" when it can be)

	mu     sync.Mutex
	mounts []*fuse.Mounted
	// forget unregisters a mount's clean-up on interrupt.
	forget map[*fuse.Mounted]func()
}

func builtins() map[string]func() *server.MCPServer {
	return map[string]func() *server.MCPServer{"docstore": builtin.NewDocstore}
}

// npmBins returns the executables of the npm servers, or why they cannot run.
func npmBins() (map[string]string, string) {
	if _, err := osexec.LookPath("node"); err != nil {
		return nil, "node is not installed"
	}
	bins := map[string]string{}
	for _, s := range npmServers {
		p := filepath.Join(testenv.Dir(), "node_modules", ".bin", s.bin)
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Sprintf("%s is not installed (run ./test.sh once, or: npm ci --prefix %s)", s.bin, testenv.Dir())
		}
		bins[s.name] = p
	}
	return bins, ""
}

// newEnv writes the config, starts every server and waits until all are
// ready.
func newEnv(ctx context.Context, opts options, count *counter) (_ *env, err error) {
	e := &env{opts: opts, log: opts.log, count: count, forget: map[*fuse.Mounted]func(){}}
	if e.dir, err = os.MkdirTemp("", "mcpfs-bench-"); err != nil {
		return nil, fmt.Errorf("make a scratch folder: %w", err)
	}
	defer func() {
		if err != nil {
			e.close()
		}
	}()
	e.filesDir = filepath.Join(e.dir, "files")
	if err := os.MkdirAll(e.filesDir, 0o755); err != nil {
		return nil, err
	}

	cfg := &discovery.Config{Source: "mcpfs-bench"}
	switch bins, why := npmBins(); {
	case !opts.npm:
		e.npmWhy = "left out with -npm=false"
	case why != "":
		e.npmWhy = why
	default:
		if cfg, err = e.writeConfig(bins); err != nil {
			return nil, err
		}
		e.npm = true
	}
	// The built-in docstore is served in process; a config file cannot
	// name it, so it joins the loaded config here.
	cfg.Servers = append(cfg.Servers, discovery.DefaultConfig().Servers...)
	// The engine would follow the file, which lacks docstore: it must not.
	cfg.Path = ""
	sort.Slice(cfg.Servers, func(i, j int) bool { return cfg.Servers[i].Name < cfg.Servers[j].Name })
	e.cfg = cfg

	e.eng = engine.Start(ctx, cfg, engine.Options{
		Logger: e.log, DataDir: filepath.Join(e.dir, "data"), ConnectTimeout: 60 * time.Second,
		Builtins: builtins(), Timeout: 2 * time.Minute,
	})
	e.sup = e.eng.Supervisor()
	sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	if err := e.eng.Settle(sctx); err != nil {
		return nil, fmt.Errorf("wait for the servers: %w", err)
	}
	for _, s := range e.sup.Catalog().Servers {
		if s.State != discovery.StateReady {
			return nil, fmt.Errorf("server %q is %s: %s", s.Name, s.State, s.Err)
		}
	}
	e.tree = e.eng.Tree()
	e.runner = e.eng.Runner()
	e.fuseWhy = fuseUsable(e.dir)
	return e, nil
}

// writeConfig writes the npm servers as a Claude-Desktop-style config and
// loads it the way mcpfs does.
func (e *env) writeConfig(bins map[string]string) (*discovery.Config, error) {
	servers := map[string]any{
		"everything": map[string]any{"command": bins["everything"], "args": []string{"stdio"}},
		"filesystem": map[string]any{"command": bins["filesystem"], "args": []string{e.filesDir}},
		"memory":     map[string]any{"command": bins["memory"], "env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(e.dir, "memory.jsonl")}},
	}
	data, err := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err != nil {
		return nil, err
	}
	e.cfgPath = filepath.Join(e.dir, "mcp.json")
	if err := os.WriteFile(e.cfgPath, data, 0o644); err != nil {
		return nil, fmt.Errorf("write the config: %w", err)
	}
	return discovery.Load(e.cfgPath, discovery.LoadOptions{})
}

// fuseUsable says why the tree cannot be mounted, or "" when it can.
func fuseUsable(scratch string) string {
	if os.Geteuid() != 0 {
		return "not root: the benchmark mounts directly, which needs root (fusermount3 mounts are not measured)"
	}
	dir := filepath.Join(scratch, "probe")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err.Error()
	}
	if err := fuse.Check(dir, fuse.Options{}); err != nil {
		return err.Error()
	}
	return ""
}

// mount mounts t under the scratch folder; it is unmounted by close.
func (e *env) mount(t *mcpfs.Tree) (*fuse.Mounted, error) {
	dir, err := os.MkdirTemp(e.dir, "mnt-")
	if err != nil {
		return nil, err
	}
	m, err := fuse.Mount(dir, t, fuse.Options{Logger: e.log})
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.mounts = append(e.mounts, m)
	e.mu.Unlock()
	remove := onInterrupt(func() { m.Unmount() })
	e.mu.Lock()
	e.forget[m] = remove
	e.mu.Unlock()
	return m, nil
}

func (e *env) unmount(m *fuse.Mounted) {
	if err := m.Unmount(); err != nil {
		e.log.Warn("unmount", "dir", m.Dir(), "err", err)
	}
	waitUnmounted(m, e.log)
	e.mu.Lock()
	defer e.mu.Unlock()
	if remove := e.forget[m]; remove != nil {
		remove()
		delete(e.forget, m)
	}
	for i, x := range e.mounts {
		if x == m {
			e.mounts = append(e.mounts[:i], e.mounts[i+1:]...)
			break
		}
	}
}

// waitUnmounted waits for a mount's request loop to end, at most 10 s: a
// mount detached lazily ends only when its last user leaves, and the run
// must not hang on that.
func waitUnmounted(m *fuse.Mounted, log *slog.Logger) {
	done := make(chan struct{})
	go func() {
		m.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		log.Error("the mount's request loop did not end 10 s after unmount; going on", "dir", m.Dir())
	}
}

func (e *env) close() {
	e.mu.Lock()
	mounts := e.mounts
	e.mounts = nil
	e.mu.Unlock()
	for _, m := range mounts {
		if err := m.Unmount(); err != nil {
			e.log.Warn("unmount", "dir", m.Dir(), "err", err)
		}
		waitUnmounted(m, e.log)
	}
	if e.eng != nil {
		e.eng.Close()
	}
	if e.dir != "" {
		os.RemoveAll(e.dir)
	}
}

// snapshot returns the live snapshot of a server.
func (e *env) snapshot(name string) discovery.ServerSnapshot {
	s, _ := e.sup.Catalog().Server(name)
	return s
}

// call is one tool call a snippet made, with what went over the wire.
type call struct {
	Server, Tool string
	Args, Result json.RawMessage
}

// recorder sends a snippet's tool calls to the servers and keeps each
// call's arguments and result: the direct way makes the same calls, and
// every byte of them passes through the model's context.
type recorder struct {
	next  exec.CallFunc
	mu    sync.Mutex
	calls []call
}

func (r *recorder) call(ctx context.Context, srv, tool string, args json.RawMessage) (json.RawMessage, error) {
	res, err := r.next(ctx, srv, tool, args)
	if err == nil {
		r.mu.Lock()
		r.calls = append(r.calls, call{Server: srv, Tool: tool, Args: append(json.RawMessage(nil), args...), Result: res})
		r.mu.Unlock()
	}
	return res, err
}

// run checks and runs a snippet against tree and returns its stdout and
// the tool calls it made.
func (e *env) run(ctx context.Context, tree *mcpfs.Tree, filename, src string) (string, []call, error) {
	prog, err := check.Check(filename, []byte(src), tree, check.Options{})
	if err != nil {
		return "", nil, fmt.Errorf("snippet %s did not pass the check: %w", filename, err)
	}
	rec := &recorder{next: e.sup.CallTool}
	res, err := e.runner.Run(ctx, exec.Request{Filename: filename, Source: prog.Source, Tree: tree, Packages: prog.TreePackages, Files: prog.Files, Call: rec.call})
	if err != nil {
		stderr := ""
		if res != nil {
			stderr = strings.TrimSpace(string(res.Stderr))
		}
		return "", nil, fmt.Errorf("run snippet %s: %w (stderr: %s)", filename, err, stderr)
	}
	if len(res.Stderr) > 0 {
		return "", nil, fmt.Errorf("snippet %s wrote to stderr: %s", filename, strings.TrimSpace(string(res.Stderr)))
	}
	return string(res.Stdout), rec.calls, nil
}

// shell is what an agent runs to look at the tree: ls, cat and grep, as
// real commands on the FUSE mount when there is one, else the same output
// produced from the io/fs tree (ls -1 order, cat bytes, grep -rli paths).
type shell struct {
	fsys iofs.FS
	dir  string // mount point; "" when not mounted
}

// newShell mounts t when FUSE is usable and returns the shell over it.
func (e *env) newShell(t *mcpfs.Tree) (*shell, func(), error) {
	if e.fuseWhy != "" {
		return &shell{fsys: t}, func() {}, nil
	}
	m, err := e.mount(t)
	if err != nil {
		return nil, nil, err
	}
	return &shell{fsys: t, dir: m.Dir()}, func() { e.unmount(m) }, nil
}

func (s *shell) command(args ...string) (string, error) {
	cmd := inDir(s.dir, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *osexec.ExitError
	if args[0] == "grep" && errors.As(err, &ee) && ee.ExitCode() == 1 {
		err = nil // no match
	}
	if err != nil {
		return "", fmt.Errorf("%s in %s: %w: %s", strings.Join(args, " "), s.dir, err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// inDir returns the command that runs args with dir as its working
// directory. It must not be started with cmd.Dir set to a mount this
// process serves: the child changes directory before exec, while the
// parent's thread waits for it in vfork, and a garbage collection that
// stops the world then waits for that thread while the child waits for
// the mount's handlers, which cannot run: a deadlock (seen here). A shell
// started outside the mount changes directory after its exec instead.
func inDir(dir string, args ...string) *osexec.Cmd {
	return osexec.Command("sh", append([]string{"-c", `cd "$0" && exec "$@"`, dir}, args...)...)
}

// ls is `ls DIR`: one name per line.
func (s *shell) ls(p string) (string, error) {
	if s.dir != "" {
		return s.command("ls", p)
	}
	entries, err := iofs.ReadDir(s.fsys, p)
	if err != nil {
		return "", fmt.Errorf("ls %s: %w", p, err)
	}
	var b strings.Builder
	for _, en := range entries {
		b.WriteString(en.Name())
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// cat is `cat FILE`.
func (s *shell) cat(p string) (string, error) {
	if s.dir != "" {
		return s.command("cat", p)
	}
	data, err := iofs.ReadFile(s.fsys, p)
	if err != nil {
		return "", fmt.Errorf("cat %s: %w", p, err)
	}
	return string(data), nil
}

// grep is `grep -rli WORD DIR`: the files that mention word, ignoring case.
func (s *shell) grep(word, dir string) (string, error) {
	if s.dir != "" {
		return s.command("grep", "-rli", word, dir)
	}
	var b strings.Builder
	lw := strings.ToLower(word)
	err := iofs.WalkDir(s.fsys, dir, func(p string, d iofs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := iofs.ReadFile(s.fsys, p)
		if err != nil {
			return err
		}
		if strings.Contains(strings.ToLower(string(data)), lw) {
			b.WriteString(p)
			b.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("grep -rli %s %s: %w", word, dir, err)
	}
	return b.String(), nil
}

// readStep is one command of the mcpfs way: what the agent typed and the
// file or folder it names.
type readStep struct {
	cmd  string // "ls", "cat" or "grep"
	arg  string // path
	word string // grep only
}

func (r readStep) String() string {
	if r.cmd == "grep" {
		return fmt.Sprintf("grep -rli %s %s", r.word, r.arg)
	}
	return r.cmd + " " + r.arg
}

// read runs the steps in sh and adds each output to l.
func (sh *shell) read(l *ledger, steps ...readStep) error {
	for _, st := range steps {
		var out string
		var err error
		switch st.cmd {
		case "ls":
			out, err = sh.ls(st.arg)
		case "cat":
			out, err = sh.cat(st.arg)
		case "grep":
			out, err = sh.grep(st.word, st.arg)
		default:
			err = fmt.Errorf("unknown step %q", st.cmd)
		}
		if err != nil {
			return err
		}
		l.add(st.String(), out)
	}
	return nil
}

// toolFile is the path of a tool's generated file: servers/<s>/<file>.
func toolFile(t *mcpfs.Tree, srv, tool string) (string, error) {
	dir := path.Join(mcpfs.ServersDir, srv)
	entries, err := t.ReadDir(dir)
	if err != nil {
		return "", err
	}
	needle := fmt.Sprintf("(%q, %q, args", srv, tool) // mcp.Call or mcp.CallExtra in the function's body
	for _, en := range entries {
		p := path.Join(dir, en.Name())
		data, err := t.ReadFile(p)
		if err == nil && bytes.Contains(data, []byte(needle)) {
			return p, nil
		}
	}
	return "", fmt.Errorf("no file in %s generated for tool %q", dir, tool)
}
