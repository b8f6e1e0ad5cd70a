package main

import (
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/discovery"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// treePath turns a user's path into an io/fs path: "/servers/x/" and
// "./servers/x" both become "servers/x"; "" and "/" become ".".
func treePath(p string) (string, error) {
	clean := path.Clean("/" + filepath.ToSlash(p))
	clean = strings.TrimPrefix(clean, "/")
	if clean == "" {
		clean = "."
	}
	if !iofs.ValidPath(clean) {
		return "", usagef("invalid path %q", p)
	}
	return clean, nil
}

func newLsCmd(g *globals) *cobra.Command {
	var long, recursive, asJSON bool
	cmd := &cobra.Command{
		Use:   "ls [PATH]",
		Short: "List a folder of the tree",
		Long: `List a folder of the tree. "mcpfs ls servers" shows every server with its
state and tool count; a server that failed is listed with its error.`,
		Example: "  mcpfs ls servers\n  mcpfs ls servers/docstore\n  mcpfs ls -R -l",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := "."
			if len(args) == 1 {
				var err error
				if p, err = treePath(args[0]); err != nil {
					return err
				}
			}
			e, release, err := g.useEngine(cmd.Context(), engine.Options{OneShot: true})
			if err != nil {
				return err
			}
			defer release()
			t, err := g.treeFor(cmd.Context(), e, p)
			if err != nil {
				return err
			}
			if asJSON {
				return g.lsJSON(t, p, recursive)
			}
			return listTree(g, t, p, long, recursive)
		},
	}
	cmd.Flags().BoolVarP(&long, "long", "l", false, "show sizes")
	cmd.Flags().BoolVarP(&recursive, "recursive", "R", false, "list sub-folders too")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: path, dir, size, and each server's state, tool count and error")
	return cmd
}

func listTree(g *globals, t *mcpfs.Tree, p string, long, recursive bool) error {
	info, err := t.Stat(p)
	if err != nil {
		return notFoundIn(t, p, err)
	}
	if !info.IsDir() {
		if long {
			fmt.Fprintf(g.stdout, "%8d %s\n", info.Size(), p)
		} else {
			fmt.Fprintln(g.stdout, p)
		}
		return nil
	}
	if !recursive {
		return listDir(g, t, p, long)
	}
	return iofs.WalkDir(t, p, func(q string, d iofs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		fmt.Fprintf(g.stdout, "%s:\n", q)
		if err := listDir(g, t, q, long); err != nil {
			return err
		}
		fmt.Fprintln(g.stdout)
		return nil
	})
}

func listDir(g *globals, t *mcpfs.Tree, p string, long bool) error {
	entries, err := t.ReadDir(p)
	if err != nil {
		return notFound(p, err)
	}
	// A server folder that is not ready says why, without failing.
	if dir, name := path.Split(p); dir == mcpfs.ServersDir+"/" {
		if s, ok := t.Server(name); ok && s.State != discovery.StateReady {
			fmt.Fprintf(g.stderr, "mcpfs: %s: %s\n", p, stateLine(s))
		}
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	defer tw.Flush()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		if p == mcpfs.ServersDir {
			s, _ := t.Server(e.Name())
			fmt.Fprintf(tw, "%s\t%s\n", name, stateLine(s))
			continue
		}
		if long {
			var size int64
			if info, err := e.Info(); err == nil && !e.IsDir() {
				size = info.Size()
			}
			fmt.Fprintf(tw, "%d\t%s\n", size, name)
			continue
		}
		fmt.Fprintln(tw, name)
	}
	return nil
}

// stateLine is a server's state as one line: "ready, 6 tools",
// "failed: start ...".
func stateLine(s discovery.ServerSnapshot) string {
	line := string(s.State)
	switch s.State {
	case discovery.StateReady:
		line = fmt.Sprintf("ready\t%s", plural(len(s.Tools), "tool"))
	case discovery.StateFailed:
		line = "failed\t" + oneLine(s.Err)
		if strings.HasPrefix(s.Err, "needs login: ") {
			line = oneLine(s.Err) // not failed: waiting for mcpfs auth
		}
	case discovery.StateConnecting:
		if s.Err != "" {
			line = "connecting\t" + oneLine(s.Err)
		}
	}
	if s.Stale && len(s.Tools) > 0 {
		line += fmt.Sprintf(" (showing %s cached %s)", plural(len(s.Tools), "tool"), s.ListedAt.Local().Format(time.DateTime))
	}
	return line
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func notFound(p string, err error) error { return notFoundIn(nil, p, err) }

// notFoundIn is the error of a path p of t that cannot be read: for a
// missing one, the nearest folder that exists to list instead, and for a
// missing server, which config was read and what servers it has.
func notFoundIn(t *mcpfs.Tree, p string, err error) error {
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		try := path.Dir(p)
		if t != nil {
			for try != "." {
				if info, err := t.Stat(try); err == nil && info.IsDir() {
					break
				}
				try = path.Dir(try)
			}
			if rest, ok := strings.CutPrefix(p, mcpfs.ServersDir+"/"); ok {
				name, _, _ := strings.Cut(rest, "/")
				if _, ok := t.Server(name); !ok {
					cat := t.Catalog()
					var names []string
					for _, s := range cat.Servers {
						names = append(names, s.Name)
					}
					have := "no servers"
					if len(names) > 0 {
						have = "servers " + strings.Join(names, ", ")
					}
					return fmt.Errorf("%s: the config in use has no server %q (it has %s; -v says which config is read, and --config builtin uses the built-in docstore)", p, name, have)
				}
			}
		}
		return fmt.Errorf("%s: no such file or folder (try: mcpfs ls %s)", p, try)
	case errors.Is(err, mcpfs.ErrNotDir):
		return fmt.Errorf("%s: not a folder", p)
	}
	return err
}

func newCatCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "cat PATH...",
		Short:   "Print files of the tree",
		Example: "  mcpfs cat servers/docstore/doc.go\n  mcpfs cat README.md",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			paths := make([]string, len(args))
			for i, a := range args {
				p, err := treePath(a)
				if err != nil {
					return err
				}
				paths[i] = p
			}
			e, release, err := g.useEngine(cmd.Context(), engine.Options{OneShot: true})
			if err != nil {
				return err
			}
			defer release()
			t, err := g.treeFor(cmd.Context(), e, paths...)
			if err != nil {
				return err
			}
			for _, p := range paths {
				data, err := t.ReadFile(p)
				if errors.Is(err, mcpfs.ErrIsDir) {
					return fmt.Errorf("%s is a folder (try: mcpfs ls %s)", p, p)
				}
				if err != nil {
					return notFoundIn(t, p, err)
				}
				if _, err := g.stdout.Write(data); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

func newExportCmd(g *globals) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "export DIR",
		Short: "Write the tree as plain files",
		Long: `Write the whole tree into DIR as plain files. The result is a Go module
(module mcpfs): "go vet ./..." works inside it. DIR must be empty or not exist,
unless --force is given.`,
		Example: "  mcpfs export /tmp/tree && cd /tmp/tree && go vet ./...",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := g.abs(args[0])
			if err := checkExportDir(dir, force); err != nil {
				return err
			}
			e, release, err := g.useEngine(cmd.Context(), engine.Options{OneShot: true})
			if err != nil {
				return err
			}
			defer release()
			t, err := g.treeAll(cmd.Context(), e)
			if err != nil {
				return err
			}
			files, err := export(t, dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stderr, "mcpfs: exported %s (%s) to %s\n", plural(len(t.Catalog().Servers), "server"), plural(files, "file"), args[0])
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "write into a folder that is not empty, replacing files")
	return cmd
}

func checkExportDir(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return nil
	case err != nil:
		if info, serr := os.Stat(dir); serr == nil && !info.IsDir() {
			return usagef("export: %s is a file, not a folder", dir)
		}
		return fmt.Errorf("export: %w", err)
	case len(entries) > 0 && !force:
		return usagef("export: %s is not empty (use --force to write into it anyway)", dir)
	}
	return nil
}

// export writes every file of t under dir and returns how many it wrote.
func export(t *mcpfs.Tree, dir string) (int, error) {
	n := 0
	err := iofs.WalkDir(t, ".", func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := t.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("export to %s: %w", dir, err)
	}
	return n, nil
}

var _ io.Writer = (*tabwriter.Writer)(nil)
