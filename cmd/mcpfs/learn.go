package main

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/discovery/naming"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

func newLearnCmd(g *globals) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "learn SERVER/TOOL [KEY=VALUE... | JSON]",
		Short: "Call a tool once to learn the type of its result",
		Long: `Call one tool and record the shape of its result: field names, JSON types,
which fields were present (never the values). A tool that declares no
output schema but returns JSON then gets a <Func>Result type in its file
under servers/<server>/, learned from its results; its function keeps
returning mcp.Result, and r.Decode(&v) reads the learned type. Every call
from a snippet, mcpfs call or serve's exec adds to what is learned; fields
that disagree become any, and a tool whose top-level keys change with its
arguments keeps mcp.Result.

Arguments are as for mcpfs call. Forget learned types with
mcpfs cache forget-shapes.`,
		Example: `  mcpfs learn everything/get-env
  mcpfs learn github/list_issues owner=golang repo=go`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			server, toolName, ok := strings.Cut(args[0], "/")
			if !ok || server == "" || toolName == "" {
				return usagef("want SERVER/TOOL, got %q (mcpfs ls servers lists the servers)", args[0])
			}
			e, release, err := g.useEngine(cmd.Context(), engine.Options{OneShot: true})
			if err != nil {
				return err
			}
			defer release()
			t, err := g.treeFor(cmd.Context(), e, mcpfs.ServersDir+"/"+naming.Package(server))
			if err != nil {
				return err
			}
			srv, ok := findServer(t.Catalog(), server)
			if !ok {
				return usagef("no server %q (mcpfs ls servers lists them)", server)
			}
			tool, ok := findTool(srv, toolName)
			if !ok {
				return usagef("server %s has no tool %q (mcpfs ls servers/%s lists them)", srv.Name, toolName, srv.Name)
			}
			if e.DeclaresOutput(srv.Name, tool.Name) {
				fmt.Fprintf(g.stdout, "%s.%s declares an output schema: its result type is in its file already, nothing to learn\n", srv.Name, tool.Name)
				return nil
			}
			params, err := callArgs(tool, args[1:])
			if err != nil {
				return usageError{err}
			}
			ctx := cmd.Context()
			if timeout > 0 {
				var cancel func()
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			if _, err := e.Learn(ctx, srv.Name, tool.Name, params); err != nil {
				return fmt.Errorf("learn %s.%s: %w", srv.Name, tool.Name, err)
			}
			return g.printLearned(e, srv.Name, tool.Name)
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "give up after this `duration` (default: the server's callTimeout)")
	return cmd
}

// printLearned says what is known of a tool's result type, and shows the
// type as its file declares it.
func (g *globals) printLearned(e *engine.Engine, server, tool string) error {
	defer func() {
		for name, why := range e.BrokenSkills() {
			fmt.Fprintf(g.stderr, "skill %s no longer type-checks %s\n", name, why)
		}
	}()
	l := e.Learned(server, tool)
	switch {
	case l == nil:
		fmt.Fprintf(g.stdout, "%s.%s: its result is not JSON (nor structured content); it keeps mcp.Result\n", server, tool)
		return nil
	case l.Varies():
		fmt.Fprintf(g.stdout, "%s.%s: learned from %s; its top-level keys differ between calls (or it is not an object or array), so it keeps mcp.Result\n",
			server, tool, plural(l.Results, "result"))
		return nil
	}
	t := e.Tree()
	var file string
	for _, s := range t.Catalog().Servers {
		if s.Name == server {
			file = findToolFile(t, s.Name, tool)
		}
	}
	fmt.Fprintf(g.stdout, "%s.%s: learned from %s; the type is in %s\n", server, tool, plural(l.Results, "result"), file)
	if file == "" {
		return nil
	}
	b, err := fs.ReadFile(t, file)
	if err != nil {
		return err
	}
	src := string(b)
	if j := strings.Index(src, " is learned from "); j >= 0 {
		fmt.Fprint(g.stdout, src[strings.LastIndex(src[:j], "\n")+1:])
	}
	return nil
}

// findToolFile returns the path of the file of server's tool in t.
func findToolFile(t *mcpfs.Tree, server, tool string) string {
	dir := mcpfs.ServersDir + "/" + server
	entries, err := fs.ReadDir(t, dir)
	if err != nil {
		return ""
	}
	call := fmt.Sprintf("%q, %q", server, tool)
	for _, en := range entries {
		p := dir + "/" + en.Name()
		if b, err := fs.ReadFile(t, p); err == nil && strings.Contains(string(b), call) {
			return p
		}
	}
	return ""
}
