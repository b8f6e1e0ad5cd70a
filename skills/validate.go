package skills

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	iofs "io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpfs/mcpfs/exec/check"
)

// Validate checks the files of skill name against tree (an mcpfs tree:
// mcp/, servers/<s>/) and the other saved skills, and returns the skill
// they make (Version 0). others replaces the tree's skills/ folder; a
// skill of others with the same name is the version being replaced, and
// every skill of others that imports name is type-checked again with the
// new files. A refused skill gives a *ValidationError.
func Validate(tree iofs.FS, name string, files map[string][]byte, others []Skill) (Skill, error) {
	sk, probs := parse(name, files)
	if len(probs) > 0 {
		return Skill{}, &ValidationError{Skill: name, Problems: probs}
	}
	set := map[string]map[string][]byte{}
	for _, o := range others {
		if o.Name != name {
			set[o.Name] = o.Files
		}
	}
	set[name] = sk.Files
	imports := []string{sk.ImportPath()}
	for _, dep := range dependents(name, others) {
		imports = append(imports, ImportPrefix+dep)
	}
	if probs := typeCheck(overlay{base: tree, skills: set}, name, imports); len(probs) > 0 {
		return Skill{}, &ValidationError{Skill: name, Problems: probs}
	}
	return sk, nil
}

// parse checks everything that needs no type information and builds the
// Skill.
func parse(name string, files map[string][]byte) (Skill, []check.Error) {
	dir := skillsDir + "/" + name + "/"
	sk := Skill{Name: name, Files: map[string][]byte{}}
	if err := CheckName(name); err != nil {
		return sk, []check.Error{{Msg: err.Error()}}
	}
	var probs []check.Error
	noPos := func(msg, hint string) { probs = append(probs, check.Error{Msg: msg, Hint: hint}) }
	if len(files) > MaxFiles {
		noPos(fmt.Sprintf("%d files; a skill holds at most %d", len(files), MaxFiles), "")
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		switch {
		case strings.HasSuffix(n, "_test.go") && IsSkillFile(n):
			// Nothing runs them, and the checks a snippet passes would not
			// apply to them: a test file importing os would be kept as is.
			noPos(fmt.Sprintf("%s%s is a test file; skills keep no test files", dir, n), "remove it; show how the skill is used in SKILL.md instead")
			continue
		case !IsSkillFile(n):
			noPos(fmt.Sprintf("%s%s is not a skill file", dir, n), "a skill holds SKILL.md, Go files and Markdown files; remove the others")
			continue
		case len(files[n]) > MaxFileSize:
			noPos(fmt.Sprintf("%s%s is %d bytes; a file of a skill holds at most %d", dir, n, len(files[n]), MaxFileSize), "keep data in tools, not in skills")
			continue
		}
		sk.Files[n] = append([]byte(nil), files[n]...)
	}
	md, ok := files[SkillFile]
	if !ok {
		noPos(fmt.Sprintf("%s%s is missing", dir, SkillFile), "write SKILL.md:\n---\nname: "+name+"\ndescription: <what it does and when to use it>\n---\n<how to use it>")
	} else {
		fm, fprobs := ParseFrontMatter(dir+SkillFile, md)
		probs = append(probs, fprobs...)
		if len(fprobs) == 0 && fm.Name != name {
			probs = append(probs, check.Error{Pos: token.Position{Filename: dir + SkillFile, Line: 2, Column: 1},
				Msg: fmt.Sprintf("front matter name %q does not match the folder skills/%s", fm.Name, name), Hint: "name: " + name})
		}
		sk.Description = fm.Description
	}

	fset := token.NewFileSet()
	var goFiles []*ast.File
	for _, n := range names {
		if !strings.HasSuffix(n, ".go") || !IsSkillFile(n) {
			continue
		}
		f, err := parser.ParseFile(fset, dir+n, files[n], parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			var list scanner.ErrorList
			if errors.As(err, &list) {
				for i, e := range list {
					if i == 3 {
						break
					}
					probs = append(probs, check.Error{Pos: e.Pos, Msg: "syntax error: " + e.Msg})
				}
			} else {
				noPos(err.Error(), "")
			}
			continue
		}
		test := strings.HasSuffix(n, "_test.go")
		if got := f.Name.Name; got != name && !(test && got == name+"_test") {
			probs = append(probs, check.Error{Pos: fset.Position(f.Name.Pos()),
				Msg: fmt.Sprintf("package %s; the Go files of skills/%s are package %s", got, name, name), Hint: "package " + name})
			continue
		}
		if !test {
			goFiles = append(goFiles, f)
		}
	}
	if len(goFiles) == 0 && len(probs) == 0 {
		noPos(fmt.Sprintf("skills/%s has no Go files", name), "add at least one Go file in package "+name+" with the functions the skill offers")
	}
	if len(probs) > 0 {
		return sk, probs
	}
	run, rprobs := findRun(fset, goFiles)
	sk.Run = run
	return sk, rprobs
}

// importsOf returns the skills a skill's Go files import.
func importsOf(sk Skill) []string {
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for n, data := range sk.Files {
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, data, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if dep, ok := strings.CutPrefix(p, ImportPrefix); ok {
				seen[dep] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// dependents returns the skills of set that import name, directly or
// through others, sorted.
func dependents(name string, set []Skill) []string {
	importedBy := map[string][]string{}
	for _, s := range set {
		for _, d := range importsOf(s) {
			importedBy[d] = append(importedBy[d], s.Name)
		}
	}
	seen := map[string]bool{name: true}
	queue := []string{name}
	var out []string
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, u := range importedBy[n] {
			if !seen[u] {
				seen[u] = true
				out = append(out, u)
				queue = append(queue, u)
			}
		}
	}
	sort.Strings(out)
	return out
}

const validateFile = "validate.go"

var (
	posRE = regexp.MustCompile(`(skills/[a-z0-9_]+/[^\s:]+\.go):(\d+):(\d+): (.*)`)
	atRE  = regexp.MustCompile(`^package (\S+) imports "([^"]+)" \(at (skills/[^\s:]+\.go):(\d+):(\d+)\)`)
)

// typeCheck type-checks the skills imports (mcpfs/skills/...) in tree
// through a generated snippet that imports them, and turns the checker's
// findings into problems at positions of the skills' files.
func typeCheck(tree iofs.FS, name string, imports []string) []check.Error {
	var src strings.Builder
	src.WriteString("package main\n\nimport (\n")
	for _, p := range imports {
		fmt.Fprintf(&src, "\t_ %q\n", p)
	}
	src.WriteString(")\n\nfunc main() {}\n")
	_, err := check.Check(validateFile, []byte(src.String()), tree, check.Options{})
	if err == nil {
		return nil
	}
	var list check.ErrorList
	if !errors.As(err, &list) {
		return []check.Error{{Msg: fmt.Sprintf("type-check skill %s: %v", name, err)}}
	}
	var probs []check.Error
	seen := map[string]bool{}
	add := func(p check.Error) {
		if k := p.Error(); !seen[k] {
			seen[k] = true
			probs = append(probs, p)
		}
	}
	for _, e := range list {
		if m := atRE.FindStringSubmatch(e.Msg); m != nil {
			line, _ := strconv.Atoi(m[4])
			col, _ := strconv.Atoi(m[5])
			hint := e.Hint
			if h, ok := insteadOf[m[2]]; ok {
				hint = h
			}
			add(check.Error{Pos: token.Position{Filename: m[3], Line: line, Column: col},
				Msg: fmt.Sprintf("import %q is not allowed in skills: they run in the snippet sandbox", m[2]), Hint: hint})
			continue
		}
		found := false
		for _, line := range strings.Split(e.Msg, "\n") {
			m := posRE.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			l, _ := strconv.Atoi(m[2])
			c, _ := strconv.Atoi(m[3])
			msg := m[4]
			if dep := strings.Split(strings.TrimPrefix(m[1], skillsDir+"/"), "/")[0]; dep != name {
				msg += fmt.Sprintf(" (skill %s imports %s)", dep, name)
			}
			add(check.Error{Pos: token.Position{Filename: m[1], Line: l, Column: c}, Msg: msg})
			found = true
		}
		if !found {
			msg := e.Msg
			if e.Pos.Filename != validateFile {
				msg = e.Error()
			}
			add(check.Error{Msg: msg, Hint: e.Hint})
		}
	}
	return probs
}

// insteadOf says what a skill uses in place of a refused package.
var insteadOf = map[string]string{
	"os":            "read and write files through a filesystem server's tools (mcpfs/servers/...)",
	"io/ioutil":     "read and write files through a filesystem server's tools (mcpfs/servers/...)",
	"net/http":      "fetch through a server's tools; skills have no network",
	"os/exec":       "skills cannot run programs; call a server's tools",
	"path/filepath": `use "path"`,
	"log":           "return errors, or print with fmt",
}
