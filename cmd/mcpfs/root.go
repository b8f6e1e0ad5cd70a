package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/spf13/cobra"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/builtin"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1 // the command ran and failed
	exitUsage  = 2 // bad flags, arguments or config: nothing was started
)

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

	stdin          io.Reader
	stdout, stderr io.Writer
	log            *slog.Logger
}

// Main runs mcpfs with the given arguments and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := &globals{stdin: stdin, stdout: stdout, stderr: stderr}
	root := newRoot(g)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "mcpfs: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) || errors.Is(err, discovery.ErrConfig) {
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
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			g.log = newLogger(g.stderr, g.verbose)
			return nil
		},
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w (see mcpfs %s --help)", err, cmd.Name())}
	})
	pf := root.PersistentFlags()
	pf.StringVar(&g.config, "config", "", "MCP config `file` (Claude Desktop, Claude Code, Cursor or VS Code format)")
	pf.StringVar(&g.dataDir, "data-dir", "", "`dir` for mcpfs's cache and skills (default: the user cache dir, and the user data dir for skills)")
	pf.CountVarP(&g.verbose, "verbose", "v", "say more on stderr: which config is used, server states (-vv: debug)")
	pf.DurationVar(&g.connectTimeout, "connect-timeout", 20*time.Second, "how long one server may take to start and list its tools")

	root.AddCommand(newLsCmd(g), newCatCmd(g), newExportCmd(g), newMountCmd(g), newBuiltinCmd(g), newRunCmd(g), newCacheCmd(g), newVersionCmd(g))
	root.AddCommand(newSkillsCmd(g))
	root.AddCommand(newServeCmd(g))
	root.AddCommand(newDoctorCmd(g))
	return root
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

// session is a loaded config with its servers connected.
type session struct {
	cfg *discovery.Config
	sup *discovery.Supervisor

	skillsDir string // where saved skills are; "" for none
	log       *slog.Logger
}

// connect loads the config, starts every server and waits until each one is
// ready or has failed (each bounded by --connect-timeout).
func (g *globals) connect(ctx context.Context) (*session, error) {
	cfg, err := g.loadConfig()
	if err != nil {
		return nil, err
	}
	sup := g.startServers(ctx, cfg)
	settleCtx, cancel := context.WithTimeout(ctx, g.connectTimeout+5*time.Second)
	defer cancel()
	if err := sup.Settle(settleCtx); err != nil && ctx.Err() != nil {
		sup.Close()
		return nil, fmt.Errorf("interrupted while connecting to servers: %w", ctx.Err())
	}
	for _, s := range sup.Catalog().Servers {
		switch s.State {
		case discovery.StateReady:
			g.log.Info("server ready", "server", s.Name, "tools", len(s.Tools), "protocol", s.ProtocolVersion)
		case discovery.StateFailed:
			g.log.Warn("server failed", "server", s.Name, "error", s.Err)
		default:
			g.log.Info("server "+string(s.State), "server", s.Name)
		}
	}
	skillsDir, _, _ := g.skillsDir()
	return &session{cfg: cfg, sup: sup, skillsDir: skillsDir, log: g.log}, nil
}

// startServers starts every server of cfg in the background, with the
// built-in servers and the cache; Close on the result stops them.
func (g *globals) startServers(ctx context.Context, cfg *discovery.Config) *discovery.Supervisor {
	return discovery.Start(ctx, cfg, discovery.Options{
		Logger:         g.log,
		ConnectTimeout: g.connectTimeout,
		Builtins:       builtins(),
		Cache:          g.openCache(), // closed by sup.Close
	})
}

func (s *session) tree() *mcpfs.Tree {
	return mcpfs.New(s.sup.Catalog(), mcpfs.Options{Skills: savedSkills(s.skillsDir, s.log)})
}

func (s *session) Close() { s.sup.Close() }
