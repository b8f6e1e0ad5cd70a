package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpfs/mcpfs/discovery"
)

func newEngineCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "engine",
		Short: "Show or stop the resident engine",
		Long: `The resident engine keeps the servers of one config connected, their
listings cached and a sandboxed worker warm, for every command, mount and
AI client of this user: ls, cat, export, run, skills, cache, mount and
serve run on it. The first command that needs it starts it; it stops by
itself after an idle time with no command, mount or client (default 10m;
--engine-idle, or "mcpfs": {"engine": {"idle": "30m"}} in the config).

One engine process runs per data dir and mcpfs build, serving every config
file its commands name (their servers share the data dir's cache). It
listens on a unix socket (mode 0600) in a private folder
($XDG_RUNTIME_DIR/mcpfs, or $TMPDIR/mcpfs-<uid>) and logs there too.
Config files are read, and their ${VAR}s expanded, with the environment of
the command that started the engine. --no-engine, or
MCPFS_NO_ENGINE=1, runs a command in its own process instead.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	var (
		all    bool
		asJSON bool
		name   string
		idle   time.Duration
	)
	status := &cobra.Command{
		Use:   "status",
		Short: "Say whether the engine runs, and the state of this config's servers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if all {
				return g.engineList(asJSON)
			}
			return g.engineStatus(cmd.Context(), asJSON)
		},
	}
	status.Flags().BoolVar(&all, "all", false, "list every engine of this user")
	status.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	stop := &cobra.Command{
		Use:   "stop",
		Short: "Stop the engine of this data dir (its mounts and clients end)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.engineStop(cmd.Context(), all)
		},
	}
	stop.Flags().BoolVar(&all, "all", false, "stop every engine of this user")
	serve := &cobra.Command{
		Use:    "serve",
		Short:  "Run the resident engine in the foreground (started by other commands)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			addr, err := g.engineAddrFor()
			if err != nil {
				return err
			}
			if name != "" {
				addr.name = name
			}
			if idle > 0 {
				g.engineIdle = idle
			}
			return serveResident(cmd.Context(), g, addr, idle)
		},
	}
	serve.Flags().StringVar(&name, "name", "", "the engine's name in the runtime folder")
	serve.Flags().DurationVar(&idle, "idle", 0, "stop after this long unused")
	cmd.AddCommand(status, stop, serve)
	return cmd
}

// control connects to the engine for the current config and sends a
// control request. ok is false when no engine runs for it.
func (g *globals) control(ctx context.Context, addr engineAddr, req, config string) (eh engineHello, ok bool, err error) {
	c, err := dialEngineAt(addr)
	if err != nil {
		return eh, false, nil
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(helloTimeout))
	fc := newFrameConn(c)
	if err := fc.writeJSON(frameHello, clientHello{Protocol: residentProtocol, Build: buildID(), Control: req, Config: config}); err != nil {
		return eh, true, err
	}
	if err := fc.readJSON(frameHello, &eh); err != nil {
		return eh, true, fmt.Errorf("the engine did not answer: %w", err)
	}
	if eh.Error != "" {
		return eh, true, errors.New(eh.Error)
	}
	return eh, true, nil
}

// currentEngine returns the address of the engine for the config and data
// dir the flags name.
func (g *globals) currentEngine() (engineAddr, *discovery.Config, error) {
	cfg, err := g.findConfig()
	if err != nil {
		return engineAddr{}, nil, err
	}
	addr, err := g.engineAddrFor()
	return addr, cfg, err
}

func (g *globals) engineStatus(ctx context.Context, asJSON bool) error {
	addr, cfg, err := g.currentEngine()
	if err != nil {
		return err
	}
	eh, ok, err := g.control(ctx, addr, "status", cfg.Path)
	if err != nil {
		return err
	}
	if !ok {
		if asJSON {
			fmt.Fprintln(g.stdout, "null")
		}
		fmt.Fprintln(g.stderr, "mcpfs: no engine runs for this data dir; the next command that needs one starts it")
		return nil
	}
	st := eh.Status
	if asJSON {
		b, _ := json.MarshalIndent(st, "", "  ")
		fmt.Fprintln(g.stdout, string(b))
		return nil
	}
	w := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "engine:\tpid %d, up %s, stops after %s unused\n", st.PID, time.Since(st.Started).Round(time.Second), st.Idle)
	fmt.Fprintf(w, "config:\t%s\n", configName(st.Config))
	fmt.Fprintf(w, "configs served:\t%s\n", strings.Join(st.Configs, ", "))
	fmt.Fprintf(w, "commands:\t%d running, %d served\n", st.Commands, st.Served)
	fmt.Fprintf(w, "memory:\t%s\n", byteSize(st.RSS))
	if t := st.Tree; t != nil {
		bound := "no bound"
		if t.Max >= 0 {
			bound = "at most " + byteSize(t.Max)
		}
		fmt.Fprintf(w, "tree:\t%s in %s generated (%s; %d generated, %d read from the cache, %d dropped so far)\n", byteSize(t.Bytes), plural(t.Packages, "package"), bound, t.Generated, t.Loaded, t.Evicted)
	}
	fmt.Fprintf(w, "cache:\t%s\n", st.Cache)
	fmt.Fprintf(w, "socket:\t%s\n", st.Socket)
	fmt.Fprintf(w, "log:\t%s\n", st.Log)
	w.Flush()
	w = tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	for _, s := range st.Servers {
		line := fmt.Sprintf("servers/%s\t%s\t%s", s.Name, s.State, plural(s.Tools, "tool"))
		if s.Error != "" {
			line += "\t" + s.Error
		}
		fmt.Fprintln(w, line)
	}
	return w.Flush()
}

// engineList lists the engines of this user from their info files.
func (g *globals) engineList(asJSON bool) error {
	dir, err := runtimeDir(g.getenv)
	if err != nil {
		return err
	}
	infos := g.engineInfos(dir)
	if asJSON {
		b, _ := json.MarshalIndent(infos, "", "  ")
		fmt.Fprintln(g.stdout, string(b))
		return nil
	}
	if len(infos) == 0 {
		fmt.Fprintln(g.stderr, "mcpfs: no engine runs")
		return nil
	}
	w := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "PID\tUP\tDATA DIR")
	for _, in := range infos {
		dd := in.DataDir
		if dd == "" {
			dd = "(default)"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\n", in.PID, time.Since(in.Started).Round(time.Second), dd)
	}
	return w.Flush()
}

// engineInfos reads the info files of the engines in dir that still
// listen.
func (g *globals) engineInfos(dir string) []engineInfo {
	matches, _ := filepath.Glob(filepath.Join(dir, "engine-*.json"))
	var out []engineInfo
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		var in engineInfo
		if json.Unmarshal(b, &in) != nil || !socketAlive(in.Socket) {
			continue
		}
		out = append(out, in)
	}
	return out
}

func (g *globals) engineStop(ctx context.Context, all bool) error {
	var addrs []engineAddr
	if all {
		dir, err := runtimeDir(g.getenv)
		if err != nil {
			return err
		}
		for _, in := range g.engineInfos(dir) {
			addrs = append(addrs, engineAddr{dir: dir, name: strings.TrimSuffix(filepath.Base(in.Socket), ".sock")})
		}
		if len(addrs) == 0 {
			fmt.Fprintln(g.stderr, "mcpfs: no engine runs")
			return nil
		}
	} else {
		addr, _, err := g.currentEngine()
		if err != nil {
			return err
		}
		addrs = []engineAddr{addr}
	}
	for _, addr := range addrs {
		eh, ok, err := g.control(ctx, addr, "stop", "")
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(g.stderr, "mcpfs: no engine runs for this data dir")
			continue
		}
		// Wait until the process is gone, so that a command run next
		// starts a new engine with the cache free.
		deadline := time.Now().Add(shutdownGrace + 5*time.Second)
		for processAlive(eh.PID) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		fmt.Fprintf(g.stderr, "mcpfs: stopped the engine (pid %d)\n", eh.PID)
	}
	return nil
}

// processAlive reports whether a process with pid exists.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}
