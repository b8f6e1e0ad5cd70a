package exec

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpfs/mcpfs/exec/check"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// TestSkillModernGo runs skills written in the Go models write (range over
// int, min and max, slices and maps helpers, per-iteration loop variables,
// in two files of one package) and checks they give what `go run` gives:
// check rewrites a skill's files for the interpreter as it does a snippet's.
func TestSkillModernGo(t *testing.T) {
	e := newEngine(t)
	skill := mcpfs.Skill{Name: "tally", Description: "Counts words.", Files: map[string][]byte{
		"tally.go": []byte(`package tally

import (
	"maps"
	"slices"
	"strings"
)

// Top returns the n most frequent words of text, most frequent first.
func Top(text string, n int) []string {
	counts := map[string]int{}
	for _, w := range strings.Fields(text) {
		counts[w]++
	}
	words := slices.Sorted(maps.Keys(counts))
	slices.SortStableFunc(words, func(a, b string) int { return counts[b] - counts[a] })
	return words[:min(n, len(words))]
}
`),
		"squares.go": []byte(`package tally

// Squares returns closures that each report i*i for i in [0, n).
func Squares(n int) []func() int {
	var fs []func() int
	for i := range n {
		fs = append(fs, func() int { return i * i })
	}
	return fs
}

// Largest is the biggest of xs and floor.
func Largest(floor int, xs ...int) int {
	m := floor
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
`),
		"SKILL.md": []byte("---\nname: tally\ndescription: Counts words.\n---\n"),
	}}
	tree := e.tree.WithSkills([]mcpfs.Skill{skill})
	src := `package main

import (
	"fmt"

	"mcpfs/skills/tally"
)

func main() {
	fmt.Println(tally.Top("b a c a b a", 2))
	sum := 0
	for _, f := range tally.Squares(4) {
		sum += f()
	}
	fmt.Println(sum, tally.Largest(3, 1, 7, 2))
}
`
	prog, err := check.Check("snippet.go", []byte(src), tree, check.Options{})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	for _, name := range []string{"skills/tally/tally.go", "skills/tally/squares.go"} {
		if _, ok := prog.Files[name]; !ok {
			t.Errorf("Program.Files lacks the rewrite of %s; it has %d files", name, len(prog.Files))
		}
	}
	r := newRunner(t, Options{})
	res, err := r.Run(context.Background(), Request{Source: prog.Source, Tree: tree, Packages: prog.TreePackages, Files: prog.Files, Call: e.sup.CallTool})
	if err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, res.Stderr)
	}
	// go run prints the same: [a b] and 0+1+4+9 = 14, 7.
	if got, want := strings.TrimSpace(string(res.Stdout)), "[a b]\n14 7"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
}

// TestSkillRewriteRefusal reports what the interpreter cannot run in a
// skill at the skill file's own position.
func TestSkillRewriteRefusal(t *testing.T) {
	e := newEngine(t)
	skill := mcpfs.Skill{Name: "iter", Files: map[string][]byte{
		"iter.go": []byte("package iter\n\nfunc Each(yield func(int) bool) {\n\tfor i := range 3 {\n\t\tif !yield(i) {\n\t\t\treturn\n\t\t}\n\t}\n}\n\n// Sum defers inside a range over a function.\nfunc Sum() int {\n\ts := 0\n\tfor v := range Each {\n\t\tdefer func() {}()\n\t\ts += v\n\t}\n\treturn s\n}\n"),
	}}
	tree := e.tree.WithSkills([]mcpfs.Skill{skill})
	src := "package main\n\nimport (\n\t\"fmt\"\n\n\t\"mcpfs/skills/iter\"\n)\n\nfunc main() { fmt.Println(iter.Sum()) }\n"
	_, err := check.Check("snippet.go", []byte(src), tree, check.Options{})
	if err == nil {
		t.Fatal("check accepted a skill that defers inside a range over a function")
	}
	if !strings.Contains(err.Error(), "skills/iter/iter.go:15:") {
		t.Errorf("the error does not point into the skill file at line 15:\n%v", err)
	}
}
