package main

import (
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/exec"
)

// newDoctorCmd reports what mcpfs can do on this machine: the config it
// would use, each server's state, the sandbox layers a snippet would run
// under, FUSE, and the cache.
func newDoctorCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the config, every server, the sandbox and FUSE",
		Long: `Check what mcpfs can do here: which config file it uses (and any problem
in it), each server (a command that is not on PATH or an unset ${VAR} is
found before anything starts; then every server is asked for its tools, on
the resident engine, and reported ready or failed with the reason), the
settings snippets run with and where each comes from, which sandbox layers
a snippet runs under (a missing layer says why), whether FUSE mounts work,
and where the cache lives. Exits 1 when something is wrong.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.doctor(cmd.Context(), asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: a list of {name, ok, info}")
	return cmd
}

type doctorCheck struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	Info string `json:"info"`
}

func (g *globals) doctor(ctx context.Context, asJSON bool) error {
	var checks []doctorCheck
	add := func(name string, ok bool, format string, args ...any) {
		checks = append(checks, doctorCheck{name, ok, fmt.Sprintf(format, args...)})
	}

	add("mcpfs", true, "%s", versionString())

	cfg, err := g.findConfig()
	switch {
	case err != nil:
		add("config", false, "%v", err)
	case cfg.Path == "":
		add("config", true, "none found; the built-in default (%s)", serverList(cfg))
	default:
		add("config", true, "%s (found by %s): %s", cfg.Path, cfg.Source, serverList(cfg))
	}
	if cfg != nil {
		g.doctorServers(ctx, cfg, add)
	}

	opts := exec.Options{}
	if cfg != nil {
		if rs, err := engine.SettingsFor(cfg, engine.Flags{}); err != nil {
			add("settings", false, "%v", err)
		} else {
			for _, k := range engine.SettingKeys {
				add("setting: "+k, true, "%s (%s)", rs.Value(k), rs.From[k])
			}
			opts = rs.Options
		}
	}
	opts.Logger, opts.PoolSize = g.log, -1
	runner := exec.NewRunner(opts)
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	layers, err := runner.Layers(lctx)
	cancel()
	runner.Close()
	if err != nil {
		add("sandbox", false, "cannot start a snippet worker: %v", err)
	}
	for _, l := range layers {
		detail := l.Detail
		if detail == "" {
			detail = "on"
		}
		add("sandbox: "+l.Name, l.Active, "%s", detail)
	}

	if _, err := os.Stat("/dev/fuse"); err != nil {
		add("fuse", false, "/dev/fuse is missing: mcpfs mount cannot work here (load the fuse module, or use mcpfs export)")
	} else if os.Geteuid() == 0 {
		add("fuse", true, "/dev/fuse present; mounting directly as root")
	} else if p, err := osexec.LookPath("fusermount3"); err == nil {
		add("fuse", true, "/dev/fuse present; mounting through %s", p)
	} else {
		add("fuse", false, "fusermount3 is missing: install it (Debian/Ubuntu: apt-get install fuse3) to use mcpfs mount")
	}

	if dir, ok, err := g.dirs().CacheDir(); err != nil {
		add("cache", false, "%v", err)
	} else if !ok {
		add("cache", true, "off: no home directory (give --data-dir to keep one)")
	} else {
		add("cache", true, "%s", dir)
	}
	checks = append(checks, g.trustChecks(cfg)...)

	if p, err := osexec.LookPath("node"); err == nil {
		add("node", true, "%s (for servers started with node or npx)", p)
	} else {
		add("node", true, "not found (only needed for servers written for node)")
	}

	failed := 0
	for _, c := range checks {
		if !c.OK {
			failed++
		}
	}
	if asJSON {
		if err := g.writeJSON(checks); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
		for _, c := range checks {
			mark := "ok"
			if !c.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Name, mark, c.Info)
		}
		tw.Flush()
	}
	if failed > 0 {
		return fmt.Errorf("doctor: %s wrong (the FAIL lines say what and what to do)", plural(failed, "thing"))
	}
	return nil
}

// doctorServers checks each server of cfg: first what can be known
// without starting it (its command on PATH, unset variables), then its
// state once started, on the resident engine (or in process with
// --no-engine), each bounded by the connect timeout.
func (g *globals) doctorServers(ctx context.Context, cfg *discovery.Config, add func(string, bool, string, ...any)) {
	static := map[string]bool{} // servers with a problem found before starting
	for _, sc := range cfg.Servers {
		name := "server " + sc.Name
		switch {
		case sc.Disabled:
			add(name, true, "disabled in the config")
			static[sc.Name] = true
		case sc.Err != "":
			add(name, false, "%s", sc.Err)
			static[sc.Name] = true
		case sc.Command != "":
			if _, err := lookCommand(sc); err != nil {
				add(name, false, "command %q not found (%v): install it or fix \"command\" in the config", sc.Command, err)
				static[sc.Name] = true
			}
		}
	}
	if g.nestedError() != nil {
		return
	}
	e, release, err := g.useEngine(ctx, engine.Options{OneShot: true})
	if err != nil {
		add("servers", false, "%v", err)
		return
	}
	defer release()
	t, err := g.treeAll(ctx, e)
	if err != nil {
		add("servers", false, "%v", err)
		return
	}
	for _, s := range t.Catalog().Servers {
		if static[s.Name] {
			continue
		}
		name := "server " + s.Name
		switch s.State {
		case discovery.StateReady:
			add(name, true, "ready: %s, %s", strings.TrimSpace(s.ServerName+" "+s.ServerVersion), plural(len(s.Tools), "tool"))
		case discovery.StateFailed:
			add(name, false, "failed: %s", oneLine(s.Err))
		case discovery.StateConnecting:
			if len(s.Tools) > 0 {
				add(name, true, "still connecting; %s known from the cache", plural(len(s.Tools), "tool"))
			} else {
				add(name, false, "still connecting after %v: raise --connect-timeout or the server's \"timeout\" if it is slow to start", g.connectTimeout)
			}
		case discovery.StateDisabled:
			add(name, true, "disabled in the config")
		}
	}
	if n := e.LearnedTools(); n > 0 {
		add("learned types", true, "%s with a result type learned from calls (mcpfs cache forget-shapes forgets them)", plural(n, "tool"))
	}
	for skill, why := range e.BrokenSkills() {
		add("skill "+skill, false, "no longer type-checks %s", why)
	}
}

// lookCommand finds the executable of a stdio server as discovery would:
// on the PATH its config gives, else on this process's.
func lookCommand(sc discovery.ServerConfig) (string, error) {
	if strings.Contains(sc.Command, "/") {
		if _, err := os.Stat(sc.Command); err != nil {
			return "", err
		}
		return sc.Command, nil
	}
	if p, ok := sc.Env["PATH"]; ok {
		return engine.LookPathList(sc.Command, p)
	}
	return osexec.LookPath(sc.Command)
}

func serverList(cfg *discovery.Config) string {
	var names []string
	for _, s := range cfg.Servers {
		n := s.Name
		if s.Disabled {
			n += " (disabled)"
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return "no servers"
	}
	return plural(len(names), "server") + ": " + strings.Join(names, ", ")
}
