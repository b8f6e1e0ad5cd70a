package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mcpfs/mcpfs/cache"
	"github.com/mcpfs/mcpfs/cmd/internal/engine"
)

func newCacheCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "Show or clear mcpfs's cache",
		Long: `mcpfs keeps, in <data dir>/cache, each server's last tool listing (so the
tree is complete at once on start and while a server is down) and, for
servers whose config opts in with "mcpfs": {"cacheResults": "10m"}, the
results of read-only tools. Secret values from the config are never stored.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q for \"mcpfs cache\" (want stats, clear or forget-shapes)", args[0])
			}
			return cmd.Help()
		},
	}
	var asJSON bool
	stats := &cobra.Command{
		Use:   "stats",
		Short: "Say what the cache holds",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withCache(g, func(s *cache.Store) error {
				st, err := s.Stats()
				if err != nil {
					return err
				}
				shapes, err := s.CountShapes()
				if err != nil {
					return err
				}
				if asJSON {
					return g.writeJSON(map[string]any{
						"dir": st.Dir, "servers": st.Servers, "tool_bytes": st.ToolBytes,
						"results": st.Results, "result_bytes": st.ResultBytes, "disk_bytes": st.DiskBytes,
						"generated_packages": st.Packages, "generated_bytes": st.PackageBytes,
						"writes": st.Writes, "learned_shapes": shapes,
					})
				}
				w := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintf(w, "dir:\t%s\n", st.Dir)
				fmt.Fprintf(w, "servers:\t%d\t(%s of tool listings)\n", st.Servers, byteSize(st.ToolBytes))
				fmt.Fprintf(w, "results:\t%d\t(%s)\n", st.Results, byteSize(st.ResultBytes))
				fmt.Fprintf(w, "learned:\t%d\t(tools whose result shapes are learned; mcpfs learn)\n", shapes)
				fmt.Fprintf(w, "generated:\t%d\t(%s of servers' generated Go files, read by the next engine)\n", st.Packages, byteSize(st.PackageBytes))
				fmt.Fprintf(w, "on disk:\t%s\n", byteSize(st.DiskBytes))
				fmt.Fprintf(w, "writes:\t%s\n", st.Writes)
				return w.Flush()
			})
		},
	}
	stats.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(stats, &cobra.Command{
		Use:   "clear",
		Short: "Remove everything cached: tool listings, results, learned shapes, generated packages",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withCache(g, func(s *cache.Store) error {
				if err := s.Clear(); err != nil {
					return err
				}
				fmt.Fprintf(g.stderr, "cleared the cache in %s\n", s.Dir())
				return nil
			})
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "forget-shapes [SERVER[/TOOL]]",
		Short: "Forget learned result types: all, a server's, or one tool's",
		Long: `Forget the result shapes mcpfs learned from calls of tools without an
output schema (mcpfs learn): the tools' files go back to mcp.Result alone
until their next calls teach it again.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			server, tool := "", ""
			if len(args) == 1 {
				server, tool, _ = strings.Cut(args[0], "/")
			}
			e, release, err := g.useEngine(cmd.Context(), engine.Options{OneShot: true})
			if err != nil {
				return err
			}
			defer release()
			n, err := e.ForgetShapes(server, tool)
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stderr, "forgot %s\n", plural(n, "learned result shape"))
			return nil
		},
	})
	return cmd
}

// withCache runs f on the cache: the resident engine's, or one opened
// for f alone.
func withCache(g *globals, f func(*cache.Store) error) error {
	if g.eng != nil {
		if g.eng.Cache() == nil {
			return fmt.Errorf("the engine runs without the cache: %s", g.eng.CacheWhy())
		}
		return f(g.eng.Cache())
	}
	dir, _, err := g.dirs().CacheDir()
	if err != nil {
		return err
	}
	s, err := cache.Open(dir, cache.Options{Logger: g.log})
	if errors.Is(err, cache.ErrLocked) {
		return fmt.Errorf("%w; stop the mcpfs that is running (mcpfs engine stop, or the mount or serve run with --no-engine) and try again", err)
	}
	if err != nil {
		return err
	}
	err = f(s)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

// byteSize formats n bytes for people: "812 B", "4.0 KiB", "12.3 MiB".
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
