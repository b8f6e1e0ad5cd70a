package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/skills"
)

// skillStore returns the engine's skill store, brought up to date with
// what other processes saved, or else opens one.
func (g *globals) skillStore() (*skills.Store, error) {
	if g.eng != nil && g.eng.Skills() != nil {
		if _, err := g.eng.Skills().Refresh(); err != nil {
			return nil, err
		}
		return g.eng.Skills(), nil
	}
	return g.dirs().OpenSkills()
}

// newSkillsCmd is `mcpfs skills`: one subcommand per operation on the
// store, each built below.
func newSkillsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "Save, list, show, remove and restore skills",
		Long: `A skill is a folder with a SKILL.md (front matter with name and
description, then how to use it) and Go files of package <name>, that
snippets import as mcpfs/skills/<name>. Skills are kept as plain files in
<data dir>/skills/<name>/, with every version in <data dir>/skills/.history.

Saving checks the skill first (front matter, package name, a type-check
against the current servers); a refused save changes nothing and prints the
problems as file:line:col lines. In a mount, skills/ is writable: see
docs/PATTERNS.md.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q for \"mcpfs skills\" (want add, list, show, rm, log or restore)", args[0])
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(newSkillsAddCmd(g), newSkillsListCmd(g), newSkillsShowCmd(g), newSkillsRmCmd(g), newSkillsLogCmd(g), newSkillsRestoreCmd(g))
	return cmd
}

func newSkillsAddCmd(g *globals) *cobra.Command {
	var name string
	add := &cobra.Command{
		Use:     "add [--name NAME] DIR",
		Short:   "Save a skill folder as a new version",
		Example: "  mcpfs skills add ./csvstats\n  mcpfs skills add --name csvstats /tmp/draft",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return skillsAdd(cmd.Context(), g, args[0], name)
		},
	}
	add.Flags().StringVar(&name, "name", "", "skill `name` (default: the folder's name)")
	return add
}

func newSkillsListCmd(g *globals) *cobra.Command {
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the saved skills",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSkills(g, func(s *skills.Store) error { return printSkillList(g, s, asJSON) })
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON: name, version, description, import path, Run, saved")
	return list
}

// printSkillList prints the saved skills: one line each, or JSON.
func printSkillList(g *globals, s *skills.Store, asJSON bool) error {
	list := s.List()
	if asJSON {
		type skillJSON struct {
			Name        string    `json:"name"`
			Version     int       `json:"version"`
			Description string    `json:"description"`
			Import      string    `json:"import"`
			Run         bool      `json:"run"`
			Saved       time.Time `json:"saved"`
		}
		out := []skillJSON{}
		for _, sk := range list {
			out = append(out, skillJSON{sk.Name, sk.Version, sk.Description, sk.ImportPath(), sk.HasRun(), sk.Saved})
		}
		return g.writeJSON(out)
	}
	if len(list) == 0 {
		fmt.Fprintf(g.stderr, "mcpfs: no skills saved in %s\n", s.Dir())
		return nil
	}
	w := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	for _, sk := range list {
		run := ""
		if sk.HasRun() {
			run = " [Run]"
		}
		fmt.Fprintf(w, "%s\tv%d\t%s%s\n", sk.Name, sk.Version, oneLine(sk.Description), run)
	}
	return w.Flush()
}

func newSkillsShowCmd(g *globals) *cobra.Command {
	var version int
	var file string
	show := &cobra.Command{
		Use:   "show [--version N] [--file FILE] NAME",
		Short: "Show a skill: its version, files, entry point and SKILL.md",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSkills(g, func(s *skills.Store) error {
				sk, err := getSkill(s, args[0], version)
				if err != nil {
					return err
				}
				if file != "" {
					data, ok := sk.Files[file]
					if !ok {
						return usagef("skill %s has no file %q (it has %s)", sk.Name, file, strings.Join(sk.FileNames(), ", "))
					}
					_, err := g.stdout.Write(data)
					return err
				}
				return printSkill(g, s, sk)
			})
		},
	}
	show.Flags().IntVar(&version, "version", 0, "show version `N` instead of the current one")
	show.Flags().StringVar(&file, "file", "", "print only this `file` of the skill")
	return show
}

// printSkill prints a skill's version, files, entry point and SKILL.md.
func printSkill(g *globals, s *skills.Store, sk skills.Skill) error {
	fmt.Fprintf(g.stdout, "skill:   %s (import \"%s\")\n", sk.Name, sk.ImportPath())
	fmt.Fprintf(g.stdout, "version: %d, saved %s\n", sk.Version, sk.Saved.Local().Format(time.RFC3339))
	fmt.Fprintf(g.stdout, "files:   %s\n", strings.Join(sk.FileNames(), " "))
	if sk.Run != nil {
		fmt.Fprintf(g.stdout, "run:     %s\n", sk.Run.Signature)
	}
	fmt.Fprintf(g.stdout, "folder:  %s\n\n", filepath.Join(s.Dir(), sk.Name))
	_, err := g.stdout.Write(sk.Files[skills.SkillFile])
	return err
}

func newSkillsRmCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "rm NAME",
		Short: "Remove a skill (restorable: mcpfs skills restore)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSkills(g, func(s *skills.Store) error {
				v, err := s.Remove(cmd.Context(), args[0], "removed with mcpfs skills rm")
				if err != nil {
					return err
				}
				fmt.Fprintf(g.stderr, "mcpfs: removed skill %s (version %d; mcpfs skills restore %s %d brings it back)\n", args[0], v.Version, args[0], v.Version-1)
				return nil
			})
		},
	}
}

func newSkillsLogCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "log NAME",
		Short: "List the versions of a skill",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSkills(g, func(s *skills.Store) error { return printSkillLog(g, s, args[0]) })
		},
	}
}

// printSkillLog prints a skill's versions, one line each.
func printSkillLog(g *globals, s *skills.Store, name string) error {
	versions, err := s.Log(name)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	for _, v := range versions {
		what := strings.Join(v.Files, " ")
		if v.Removed {
			what = "(removed)"
		}
		fmt.Fprintf(w, "v%d\t%s\t%s\t%s\n", v.Version, v.Saved.Local().Format(time.RFC3339), v.Note, what)
	}
	return w.Flush()
}

func newSkillsRestoreCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "restore NAME VERSION",
		Short: "Save an earlier version of a skill as its newest",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := strconv.Atoi(strings.TrimPrefix(args[1], "v"))
			if err != nil || n <= 0 {
				return usagef("VERSION must be a version number from mcpfs skills log %s, got %q", args[0], args[1])
			}
			return withSkills(g, func(s *skills.Store) error { return skillsRestore(cmd.Context(), g, s, args[0], n) })
		},
	}
}

// skillsRestore saves version n of a skill as its newest, checked
// against the current servers.
func skillsRestore(ctx context.Context, g *globals, s *skills.Store, name string, n int) error {
	e, release, err := g.useEngine(ctx, engine.Options{OneShot: true})
	if err != nil {
		return err
	}
	defer release()
	t, err := g.treeAll(ctx, e)
	if err != nil {
		return err
	}
	sk, err := s.Restore(ctx, t, name, n)
	if err != nil {
		return refused(g, err, name, "")
	}
	fmt.Fprintf(g.stderr, "mcpfs: restored skill %s version %d as version %d\n", sk.Name, n, sk.Version)
	return nil
}

func getSkill(s *skills.Store, name string, version int) (skills.Skill, error) {
	if version > 0 {
		return s.Version(name, version)
	}
	sk, ok := s.Get(name)
	if !ok {
		return skills.Skill{}, fmt.Errorf("skill %q: %w (mcpfs skills list shows the saved ones)", name, skills.ErrNotFound)
	}
	return sk, nil
}

// withSkills opens the store and runs f.
func withSkills(g *globals, f func(*skills.Store) error) error {
	s, err := g.skillStore()
	if err != nil {
		return err
	}
	return f(s)
}

// skillsAdd saves the skill files of dir.
func skillsAdd(ctx context.Context, g *globals, dir, name string) error {
	info, err := os.Stat(g.abs(dir))
	if err != nil {
		return usagef("add skill: %w", err)
	}
	if !info.IsDir() {
		return usagef("add skill: %s is not a folder (a skill is a folder with SKILL.md and Go files)", dir)
	}
	if name == "" {
		abs, _ := filepath.Abs(g.abs(dir))
		name = filepath.Base(abs)
	}
	if err := skills.CheckName(name); err != nil {
		return usagef("add skill: %v (give --name)", err)
	}
	entries, err := os.ReadDir(g.abs(dir))
	if err != nil {
		return fmt.Errorf("add skill: %w", err)
	}
	files := map[string][]byte{}
	var skipped []string
	for _, e := range entries {
		if !e.Type().IsRegular() || !skills.IsSkillFile(e.Name()) {
			skipped = append(skipped, e.Name())
			continue
		}
		data, err := os.ReadFile(filepath.Join(g.abs(dir), e.Name()))
		if err != nil {
			return fmt.Errorf("add skill: %w", err)
		}
		files[e.Name()] = data
	}
	if len(skipped) > 0 {
		g.log.Info("not part of the skill (only SKILL.md, *.go and *.md are)", "skipped", strings.Join(skipped, " "))
	}
	s, err := g.skillStore()
	if err != nil {
		return err
	}
	e, release, err := g.useEngine(ctx, engine.Options{OneShot: true})
	if err != nil {
		return err
	}
	defer release()
	t, err := g.treeAll(ctx, e)
	if err != nil {
		return err
	}
	prev, hadPrev := s.Get(name)
	sk, err := s.Save(ctx, t, name, files, "mcpfs skills add")
	if err != nil {
		return refused(g, err, name, dir)
	}
	if hadPrev && prev.Version == sk.Version {
		fmt.Fprintf(g.stderr, "mcpfs: skill %s is unchanged (version %d)\n", sk.Name, sk.Version)
		return nil
	}
	fmt.Fprintf(g.stderr, "mcpfs: saved skill %s version %d (import \"%s\")\n", sk.Name, sk.Version, sk.ImportPath())
	return nil
}

// refused prints a validation error's problems, with positions in the
// user's folder when there is one, and says what is still in use.
func refused(g *globals, err error, name, dir string) error {
	var ve *skills.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	for _, p := range ve.Problems {
		if dir != "" {
			if rest, ok := strings.CutPrefix(p.Pos.Filename, "skills/"+name+"/"); ok {
				p.Pos.Filename = filepath.Join(dir, rest)
			}
		}
		fmt.Fprintln(g.stderr, p.Error())
	}
	still := "no version is saved"
	if s, oerr := g.skillStore(); oerr == nil {
		if cur, ok := s.Get(name); ok {
			still = fmt.Sprintf("version %d is still the one in use", cur.Version)
		}
	}
	return fmt.Errorf("skill %s was not saved (%s): fix it and save again; %s", name, plural(len(ve.Problems), "problem"), still)
}
