package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/spf13/cobra"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/builtin"
	"github.com/mcpfs/mcpfs/discovery/naming"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// Exit codes (the README's table).
const (
	exitOK      = 0
	exitFailed  = 1 // the command ran and failed
	exitUsage   = 2 // bad flags, arguments or config: nothing was started
	exitCheck   = 3 // the snippet did not pass the check
	exitSnippet = 4 // the snippet panicked, crashed or did not compile in the interpreter
	exitTimeout = 5 // the snippet ran out of time
	exitLimit   = 6 // the snippet ran out of memory or stack
	exitServer  = 7 // the snippet imports a server that is down
	exitEngine  = 8 // the resident engine went away during the command
	exitSignal  = 130
)

// exitError ends a command with a code of its own.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withExit gives err the exit code code; nil stays nil.
func withExit(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code, err}
}

// usageError marks errors that exit with exitUsage.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// globals are the flags every command takes.
type globals struct {
	config         string
	dataDir        string
	verbose        int
	connectTimeout time.Duration

	noEngine   bool          // --no-engine: run in process
	engineIdle time.Duration // --engine-idle: a started engine's idle time

	stdin          io.Reader
	stdout, stderr io.Writer
	log            *slog.Logger

	// args are the command line, as given.
	args []string
	// cwd is where relative paths start: the client's working directory
	// when the engine runs a command for it.
	cwd string
	// env is the client's environment when the engine runs a command for
	// it; nil means this process's own.
	env []string
	// ttyStderr, when set, says whether the client's stderr is a
	// terminal.
	ttyStderr *bool
	// eng is the resident engine, set in the engine process: commands
	// use it instead of starting servers.
	eng *engine.Engine
}

// Main runs mcpfs with the given arguments and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	wd, _ := os.Getwd()
	return execute(ctx, &globals{stdin: stdin, stdout: stdout, stderr: stderr, cwd: wd}, args)
}

// execute runs the command line args with g and returns the exit code.
func execute(ctx context.Context, g *globals, args []string) int {
	g.args = args
	root := newRoot(g)
	root.SetArgs(args)
	root.SetIn(g.stdin)
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var fwd errForwarded
	if errors.As(err, &fwd) {
		return fwd.code
	}
	var (
		ue usageError
		fe *engine.FlagError
		xe *exitError
	)
	if errors.As(err, &xe) {
		if xe.err != errSilent {
			fmt.Fprintf(g.stderr, "mcpfs: %v\n", err)
		}
		return xe.code
	}
	fmt.Fprintf(g.stderr, "mcpfs: %v\n", err)
	if errors.As(err, &ue) || errors.As(err, &fe) || errors.Is(err, discovery.ErrConfig) {
		return exitUsage
	}
	return exitFailed
}

func newRoot(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "mcpfs",
		Short: "Every MCP server's tools as typed Go packages",
		Long: `mcpfs connects to the MCP servers in your config, reads their live
tools/list, and presents each tool as a typed Go function in a generated
package, servers/<server>/<tool>.go. An agent discovers tools with ls, cat
and grep, then runs one Go snippet that chains calls and prints a summary.

Config look-up: --config FILE, $MCPFS_CONFIG, $MCP_SERVERS_CONFIG,
./.mcp.json, <user config dir>/mcpfs/servers.json, the Claude Desktop
config. With none, a built-in demo server (docstore) is used.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			g.log = newLogger(g.stderr, g.verbose)
			if g.eng == nil && usesEngine(cmd) {
				if err := g.nestedError(); err != nil {
					return err
				}
			}
			if g.eng == nil && usesEngine(cmd) && !g.engineDisabled() {
				handled, code, err := g.forward(cmd.Context(), g.args)
				if err != nil {
					return err
				}
				if handled {
					return errForwarded{code}
				}
			}
			return nil
		},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w (see mcpfs %s --help)", err, cmd.Name())}
	})
	pf := root.PersistentFlags()
	pf.StringVar(&g.config, "config", "", "MCP config `file` (Claude Desktop, Claude Code, Cursor or VS Code format); \"builtin\" for the built-in default")
	pf.StringVar(&g.dataDir, "data-dir", "", "`dir` for mcpfs's cache and skills (default: the user cache dir, and the user data dir for skills)")
	pf.CountVarP(&g.verbose, "verbose", "v", "say more on stderr: which config is used, server states (-vv: debug)")
	pf.DurationVar(&g.connectTimeout, "connect-timeout", 20*time.Second, "how long one server may take to start and list its tools")
	pf.BoolVar(&g.noEngine, "no-engine", false, "run in this process, starting the servers, instead of on the resident engine (also $"+noEngineEnv+"=1)")
	pf.DurationVar(&g.engineIdle, "engine-idle", 0, "how long an engine started now stays up unused (default: the config's mcpfs.engine.idle, or 10m)")

	root.AddCommand(newLsCmd(g), newCatCmd(g), newExportCmd(g), newMountCmd(g), newBuiltinCmd(g), newRunCmd(g), newCacheCmd(g), newVersionCmd(g))
	root.AddCommand(newSkillsCmd(g))
	root.AddCommand(newServeCmd(g))
	root.AddCommand(newDoctorCmd(g))
	root.AddCommand(newEngineCmd(g))
	root.AddCommand(newSearchCmd(g))
	root.AddCommand(newCallCmd(g), newLearnCmd(g))
	root.AddCommand(newInitCmd(g), newInstallCmd(g))
	root.AddCommand(newAuditCmd(g), newDiffCmd(g), newTrustCmd(g), newAuthCmd(g))
	root.AddCommand(newUICmd(g))
	g.addCompletions(root)
	return root
}

// engineCommands are the commands that run on the resident engine (with
// their sub-commands).
var engineCommands = map[string]bool{
	"ls": true, "cat": true, "export": true, "run": true, "mount": true,
	"serve": true, "skills": true, "cache": true, "search": true,
	"doctor": true, "call": true, "audit": true, "diff": true,
	"trust": true, "auth": true, "ui": true,
	// Completion reads the warm tree.
	cobra.ShellCompRequestCmd: true,
}

// usesEngine reports whether cmd runs on the resident engine.
func usesEngine(cmd *cobra.Command) bool {
	for c := cmd; c != nil && c.HasParent(); c = c.Parent() {
		if !c.Parent().HasParent() {
			return engineCommands[c.Name()]
		}
	}
	return false
}

// getenv is os.Getenv over the environment commands run with.
func (g *globals) getenv(k string) string {
	v, _ := g.lookupEnv(k)
	return v
}

// lookupEnv is os.LookupEnv over the environment commands run with.
func (g *globals) lookupEnv(k string) (string, bool) {
	if g.env == nil {
		return os.LookupEnv(k)
	}
	for i := len(g.env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(g.env[i], k+"="); ok {
			return v, true
		}
	}
	return "", false
}

// environ is os.Environ over the environment commands run with.
func (g *globals) environ() []string {
	if g.env == nil {
		return os.Environ()
	}
	return g.env
}

// abs makes a relative path relative to the command's working directory.
func (g *globals) abs(p string) string {
	if p == "" || filepath.IsAbs(p) || g.cwd == "" {
		return p
	}
	return filepath.Join(g.cwd, p)
}

// stderrTTY reports whether the command's stderr is a terminal.
func (g *globals) stderrTTY() bool {
	if g.ttyStderr != nil {
		return *g.ttyStderr
	}
	f, ok := g.stderr.(*os.File)
	return ok && isTerminal(f)
}

func newLogger(w io.Writer, verbose int) *slog.Logger {
	level := slog.LevelWarn
	switch {
	case verbose == 1:
		level = slog.LevelInfo
	case verbose >= 2:
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: dropTime}))
}

func dropTime(groups []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey && len(groups) == 0 {
		return slog.Attr{}
	}
	return a
}

// builtins are the in-process servers a config can name.
func builtins() map[string]func() *server.MCPServer {
	m := map[string]func() *server.MCPServer{}
	for _, name := range builtin.Names() {
		m[name] = func() *server.MCPServer {
			s, err := builtin.New(name)
			if err != nil {
				panic(err) // unreachable: name comes from builtin.Names
			}
			return s
		}
	}
	return m
}

// loadConfig loads the config the global flags name and logs what was
// found. A bad config, including an "mcpfs" section that allows a
// package snippets may never import, is an error that exits 2.
func (g *globals) loadConfig() (*discovery.Config, error) {
	if g.connectTimeout <= 0 {
		return nil, usagef("--connect-timeout must be positive, got %v", g.connectTimeout)
	}
	cfg, err := g.findConfig()
	if err != nil {
		return nil, err
	}
	if _, err := engine.SettingsFor(cfg, engine.Flags{}); err != nil {
		return nil, err
	}
	cfg = engine.DropSelf(cfg, g.log)
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

// builtinConfig is the --config value that names the built-in default.
const builtinConfig = "builtin"

// findConfig loads the config the flags and the environment name (see
// discovery.Load); --config builtin is the built-in default, whatever
// config files exist.
func (g *globals) findConfig() (*discovery.Config, error) {
	if g.config == builtinConfig {
		if _, err := os.Stat(g.abs(g.config)); err != nil {
			return discovery.DefaultConfig(), nil
		}
	}
	return discovery.Load(g.abs(g.config), discovery.LoadOptions{Getenv: g.lookupEnv, WorkDir: g.cwd})
}

// engineOptions completes o with what the global flags say.
func (g *globals) engineOptions(o engine.Options) engine.Options {
	o.Logger = g.log
	o.DataDir = g.absDataDir()
	o.ConnectTimeout = g.connectTimeout
	o.Builtins = builtins()
	return o
}

// dirs are the data dirs the global flags name.
func (g *globals) dirs() engine.Dirs { return engine.Dirs{Data: g.absDataDir(), Logger: g.log} }

// absDataDir is --data-dir as an absolute path ("" when not given).
func (g *globals) absDataDir() string {
	if g.dataDir == "" {
		return ""
	}
	if abs, err := filepath.Abs(g.abs(g.dataDir)); err == nil {
		return abs
	}
	return g.dataDir
}

// useEngine returns the engine a command runs on: the resident one in
// the engine process, or else one started for this command alone, which
// release closes.
func (g *globals) useEngine(ctx context.Context, opts engine.Options) (e *engine.Engine, release func(), err error) {
	if g.eng != nil {
		cfg := g.eng.Config()
		g.log.Info("config", "file", engine.ConfigName(cfg.Path), "servers", len(cfg.Servers), "engine", os.Getpid())
		return g.eng, func() {}, nil
	}
	cfg, err := g.loadConfig()
	if err != nil {
		return nil, nil, err
	}
	e = engine.Start(ctx, cfg, g.engineOptions(opts))
	return e, e.Close, nil
}

// treeFor returns the tree a command reads paths of. In process, it
// waits until every server is ready or failed; on the resident engine it
// answers at once from what is known (cached listings included), waiting
// (at most the connect timeout) only for servers that the paths name,
// that are still connecting and that have no tools yet: `ls servers`
// and the tree's README.md (it lists them) name every server.
func (g *globals) treeFor(ctx context.Context, e *engine.Engine, paths ...string) (*mcpfs.Tree, error) {
	if g.eng == nil {
		if err := e.Settle(ctx); err != nil {
			return nil, err
		}
		return e.Tree(), nil
	}
	all := false
	want := map[string]bool{}
	for _, p := range paths {
		if p == mcpfs.ServersDir || p == "README.md" {
			all = true
		}
		if rest, ok := strings.CutPrefix(p, mcpfs.ServersDir+"/"); ok {
			name, _, _ := strings.Cut(rest, "/")
			want[name] = true
		}
	}
	if all || len(want) > 0 {
		e.WaitServers(ctx, func(s string) bool { return all || want[naming.Package(s)] })
	}
	return e.Tree(), nil
}

// treeAll returns the tree once no server is still connecting without
// tools (each bounded by the connect timeout): for commands that read
// all of it.
func (g *globals) treeAll(ctx context.Context, e *engine.Engine) (*mcpfs.Tree, error) {
	if g.eng == nil {
		if err := e.Settle(ctx); err != nil {
			return nil, err
		}
		return e.Tree(), nil
	}
	e.WaitReady(ctx)
	return e.Tree(), nil
}
