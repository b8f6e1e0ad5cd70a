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

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/exec"
)

// newDoctorCmd reports what mcpfs can do on this machine: the config it
// would use, the sandbox layers a snippet would run under, FUSE, and the
// cache. It starts no server.
func newDoctorCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check what mcpfs can do on this machine",
		Long: `Check what mcpfs can do here, without starting any server: which config
file it would use, the settings snippets run with (imports, limits, sandbox
mode, pool) and whether each is the default or comes from the config's
"mcpfs" section, which sandbox layers a snippet runs under (a missing layer
says why), whether FUSE mounts work, and where the cache lives. Exits 1 when
something needed is missing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.doctor(cmd.Context())
		},
	}
}

type doctorCheck struct {
	name string
	ok   bool
	info string
}

func (g *globals) doctor(ctx context.Context) error {
	var checks []doctorCheck
	add := func(name string, ok bool, format string, args ...any) {
		checks = append(checks, doctorCheck{name, ok, fmt.Sprintf(format, args...)})
	}

	add("mcpfs", true, "%s", versionString())

	cfg, err := discovery.Load(g.config, discovery.LoadOptions{})
	switch {
	case err != nil:
		add("config", false, "%v", err)
	case cfg.Path == "":
		add("config", true, "none found; the built-in default (%s)", serverList(cfg))
	default:
		add("config", true, "%s (found by %s): %s", cfg.Path, cfg.Source, serverList(cfg))
	}

	opts := exec.Options{}
	if cfg != nil {
		if rs, err := settingsFor(cfg, runFlags{}); err != nil {
			add("settings", false, "%v", err)
		} else {
			for _, k := range settingKeys {
				add("setting: "+k, true, "%s (%s)", rs.value(k), rs.From[k])
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

	if dir, ok, err := g.cacheDir(); err != nil {
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

	tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	failed := 0
	for _, c := range checks {
		mark := "ok"
		if !c.ok {
			mark = "MISSING"
			failed++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.name, mark, c.info)
	}
	tw.Flush()
	if failed > 0 {
		return fmt.Errorf("doctor: %s missing", plural(failed, "thing"))
	}
	return nil
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
