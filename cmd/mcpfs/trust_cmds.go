package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpfs/mcpfs/cmd/internal/audit"
	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/cmd/internal/trust"
	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/naming"
	"github.com/mcpfs/mcpfs/discovery/policy"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

func newDiffCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "diff SERVER",
		Short: "Show how a server's tools differ from their pinned definitions",
		Long: `mcpfs pins each tool's definition (name, title, description, schemas,
annotations) the first time a server lists it. When the server later lists
another definition, the tree keeps showing the pinned one, marked CHANGED,
and tools that appear later are marked NEW. diff shows, per tool, what the
server lists now against what is pinned; mcpfs trust accepts it.`,
		Example: "  mcpfs diff github",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, release, err := g.useEngine(cmd.Context(), engine.Options{OneShot: true})
			if err != nil {
				return err
			}
			defer release()
			if _, err := g.treeFor(cmd.Context(), e, mcpfs.ServersDir+"/"+naming.Package(args[0])); err != nil {
				return err
			}
			changes, err := e.TrustView().Diff(e.Supervisor().Catalog(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprint(g.stdout, trust.FormatDiff(args[0], changes))
			return nil
		},
	}
}

func newTrustCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "trust SERVER [TOOL...]",
		Short: "Accept a server's current tool definitions",
		Long: `Pin the definitions a server lists now: of the tools named, or of all its
tools (dropping the pins of tools it no longer lists). The tree then shows
them, unmarked. Look at mcpfs diff SERVER first.`,
		Example: "  mcpfs trust github\n  mcpfs trust github create_issue",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, release, err := g.useEngine(cmd.Context(), engine.Options{OneShot: true})
			if err != nil {
				return err
			}
			defer release()
			if _, err := g.treeFor(cmd.Context(), e, mcpfs.ServersDir+"/"+naming.Package(args[0])); err != nil {
				return err
			}
			accepted, err := e.TrustView().Trust(e.Supervisor().Catalog(), args[0], args[1:])
			if err != nil {
				return err
			}
			e.Republish()
			if len(accepted) == 0 {
				fmt.Fprintf(g.stdout, "%s: nothing to accept; the pinned definitions are the listed ones\n", args[0])
				return nil
			}
			for _, t := range accepted {
				fmt.Fprintf(g.stdout, "trusted %s/%s\n", args[0], t)
			}
			return nil
		},
	}
}

func newAuditCmd(g *globals) *cobra.Command {
	var (
		f      audit.Filter
		since  string
		asJSON bool
		n      int
	)
	cmd := &cobra.Command{
		Use:   "audit [--server S] [--tool T] [--since 1h|TIME] [--json]",
		Short: "Show the log of tool calls",
		Long: `Every tool call a snippet makes (mcpfs run, the mount's run/, serve's exec)
is logged: when, the run's id, where it came from (cli, mount, serve), the
server and tool, the sizes of the arguments and the result, a hash of the
arguments, how long it took and how it ended (ok, tool error, denied,
error). The log is <data dir>/audit/calls.jsonl, rotated at the config's
mcpfs.audit.maxSize. Arguments and results are kept only when the config
sets mcpfs.audit.arguments or results, with the config's secrets redacted.`,
		Example: "  mcpfs audit --since 1h\n  mcpfs audit --server github --tool create_issue --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.Server != "" {
				f.Server = naming.Package(f.Server) // calls name servers by package
			}
			if since != "" {
				t, err := parseSince(since, time.Now())
				if err != nil {
					return usagef("--since: %v", err)
				}
				f.Since = t
			}
			dir := g.dirs().TrustDir("audit")
			if dir == "" {
				return fmt.Errorf("no audit log: there is no data dir (give --data-dir)")
			}
			recs, err := audit.Read(dir, f)
			if err != nil {
				return err
			}
			if n > 0 && len(recs) > n {
				recs = recs[len(recs)-n:]
			}
			if asJSON {
				enc := json.NewEncoder(g.stdout)
				for _, r := range recs {
					if err := enc.Encode(r); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME\tFACE\tRUN\tCALL\tOUTCOME\tDURATION\tARGS\tRESULT")
			for _, r := range recs {
				outcome := r.Outcome
				if r.Outcome == "denied" || r.Outcome == "error" {
					outcome += ": " + oneLineMsg(r.Error, 80)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s.%s\t%s\t%s\t%dB\t%dB\n",
					r.Time.Local().Format("2006-01-02 15:04:05"), r.Face, r.Run, r.Server, r.Tool, outcome,
					time.Duration(r.DurationMS*float64(time.Millisecond)).Round(time.Microsecond*100), r.ArgsBytes, r.ResultBytes)
			}
			return tw.Flush()
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Server, "server", "", "only calls to `SERVER` (its package name)")
	fl.StringVar(&f.Tool, "tool", "", "only calls of `TOOL`")
	fl.StringVar(&since, "since", "", "only calls since `WHEN`: a duration back (1h, 30m) or a time (2026-01-02T15:04:05Z, 2026-01-02)")
	fl.BoolVar(&asJSON, "json", false, "print the records as JSON lines")
	fl.IntVarP(&n, "number", "n", 0, "show at most the last `N` calls")
	return cmd
}

// trustChecks are doctor's lines on the tool policy, pins and the audit
// log of cfg (nil when the config did not load).
func (g *globals) trustChecks(cfg *discovery.Config) []doctorCheck {
	var out []doctorCheck
	if cfg != nil {
		out = append(out, doctorCheck{"tool policy", true, policySummary(cfg.Settings.Tools)})
	}
	pins, auditDir := g.dirs().TrustDir("pins"), g.dirs().TrustDir("audit")
	if pins == "" {
		out = append(out, doctorCheck{"pins", true, "for each process only: no data dir (give --data-dir to keep them)"})
	} else {
		out = append(out, doctorCheck{"pins", true, pins})
	}
	if auditDir == "" {
		out = append(out, doctorCheck{"audit", true, "off: no data dir (give --data-dir to keep a log)"})
	} else {
		keeps := "sizes and argument hashes"
		if cfg != nil && (cfg.Settings.Audit.Arguments || cfg.Settings.Audit.Results) {
			keeps += ", with arguments and results (secrets redacted)"
		}
		out = append(out, doctorCheck{"audit", true, filepath.Join(auditDir, audit.File) + ": " + keeps})
	}
	return out
}

// policySummary says in a line what a tool policy does.
func policySummary(p policy.Policy) string {
	if p.IsZero() {
		return "none: every tool is shown and callable"
	}
	var parts []string
	scope := func(where string, s policy.Scope) {
		globs := func(ps []policy.Pattern) string {
			var g []string
			for _, p := range ps {
				g = append(g, p.Glob)
			}
			return strings.Join(g, " ")
		}
		if len(s.Allow) > 0 {
			parts = append(parts, where+"allow "+globs(s.Allow))
		}
		if len(s.Deny) > 0 {
			parts = append(parts, where+"deny "+globs(s.Deny))
		}
		if len(s.Refuse) > 0 {
			parts = append(parts, where+"refuse "+globs(s.Refuse))
		}
		if len(s.Except) > 0 {
			parts = append(parts, where+"except "+globs(s.Except))
		}
		if s.Pin != nil && !*s.Pin {
			parts = append(parts, where+"no pinning")
		}
	}
	scope("", p.Global)
	for _, name := range slices.Sorted(maps.Keys(p.Servers)) {
		scope(name+": ", p.Servers[name])
	}
	return strings.Join(parts, "; ")
}

// parseSince reads --since: a duration before now, or a time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			d = -d
		}
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is neither a duration (1h, 30m) nor a time (2026-01-02T15:04:05Z, 2026-01-02)", s)
}

// oneLineMsg is s on one line, at most n runes.
func oneLineMsg(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}
