package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
)

func newSearchCmd(g *globals) *cobra.Command {
	var n int
	cmd := &cobra.Command{
		Use:   "search [-n N] QUERY...",
		Short: "Find tools and skills for a need, best first",
		Long: `Rank every tool of every server, and every saved skill, for a need said
in your own words ("save text to a file", "open a web page"): one line per
hit with the Go function, its summary and its file. The same ranking as
serve's search_tools. Servers still connecting are ranked from their cached
listing.`,
		Example: "  mcpfs search save text to a file\n  mcpfs search -n 3 list open pull requests",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if n <= 0 {
				return usagef("-n must be positive, got %d", n)
			}
			e, release, err := g.useEngine(cmd.Context(), engine.Options{OneShot: true})
			if err != nil {
				return err
			}
			defer release()
			t, err := g.treeFor(cmd.Context(), e, "servers")
			if err != nil {
				return err
			}
			out := e.Search(t, strings.Join(args, " "), n)
			if !strings.HasSuffix(out, "\n") {
				out += "\n"
			}
			fmt.Fprint(g.stdout, out)
			return nil
		},
	}
	cmd.Flags().IntVarP(&n, "number", "n", 10, "show at most `N` hits")
	return cmd
}
