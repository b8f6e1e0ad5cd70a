package main

import (
	"path"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/discovery/naming"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// Shell completion of tree paths, servers, tools and skills. The shell
// runs `mcpfs __complete ...`, which runs on the resident engine like the
// commands it completes, so it reads the warm tree.

// completeTree completes a path of the tree.
func (g *globals) completeTree(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	e, release, err := g.useEngine(cmd.Context(), engine.Options{OneShot: true})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer release()
	t, err := g.treeFor(cmd.Context(), e, toComplete)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	dir, prefix := path.Split(toComplete)
	d := strings.TrimSuffix(dir, "/")
	if d == "" {
		d = "."
	}
	entries, err := t.ReadDir(d)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, en := range entries {
		if !strings.HasPrefix(en.Name(), prefix) {
			continue
		}
		name := dir + en.Name()
		if en.IsDir() {
			name += "/"
		}
		out = append(out, name)
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeCall completes mcpfs call's SERVER, then its TOOL.
func (g *globals) completeCall(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 1 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	e, release, err := g.useEngine(cmd.Context(), engine.Options{OneShot: true})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer release()
	p := mcpfs.ServersDir
	if len(args) > 0 {
		p += "/" + naming.Package(args[0])
	}
	t, err := g.treeFor(cmd.Context(), e, p)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	cat := t.Catalog()
	var out []string
	if len(args) == 0 {
		for _, s := range cat.Servers {
			if strings.HasPrefix(s.Name, toComplete) {
				out = append(out, s.Name)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	s, ok := findServer(cat, args[0])
	if !ok {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	for _, t := range s.Tools {
		if strings.HasPrefix(t.Name, toComplete) {
			out = append(out, t.Name)
		} else if strings.HasPrefix(naming.Exported(t.Name), toComplete) {
			out = append(out, naming.Exported(t.Name))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeSkill completes a saved skill's name as the first argument.
func (g *globals) completeSkill(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	s, err := g.skillStore()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, sk := range s.List() {
		if strings.HasPrefix(sk.Name, toComplete) {
			out = append(out, sk.Name)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// addCompletions attaches the completion functions to the commands.
func (g *globals) addCompletions(root *cobra.Command) {
	for _, c := range root.Commands() {
		switch c.Name() {
		case "ls", "cat":
			c.ValidArgsFunction = g.completeTree
		case "call":
			c.ValidArgsFunction = g.completeCall
		case "skills":
			for _, sc := range c.Commands() {
				switch sc.Name() {
				case "show", "rm", "log", "restore":
					sc.ValidArgsFunction = g.completeSkill
				}
			}
		}
	}
}
