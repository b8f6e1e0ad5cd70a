package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/mark3labs/mcp-go/server"
	"github.com/spf13/cobra"

	"github.com/mcpfs/mcpfs/discovery/builtin"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

func versionString() string {
	v := version
	if v == "" {
		v = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			v = bi.Main.Version
		}
	}
	return fmt.Sprintf("mcpfs %s %s %s/%s", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print mcpfs's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(g.stdout, versionString())
			return err
		},
	}
}

func newBuiltinCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "builtin NAME",
		Short: "Serve a built-in MCP server over stdio",
		Long: `Serve one of mcpfs's built-in MCP servers over stdio, so that any MCP
client can use it. Built-in servers: ` + strings.Join(builtin.Names(), ", ") + `.`,
		Example: `  {"mcpServers": {"docstore": {"command": "mcpfs", "args": ["builtin", "docstore"]}}}`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := builtin.New(args[0])
			if err != nil {
				return usagef("%v (built-in servers: %s)", err, strings.Join(builtin.Names(), ", "))
			}
			return server.ServeStdio(s)
		},
	}
}
