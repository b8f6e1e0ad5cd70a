package check

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

func TestCheckErrors(t *testing.T) {
	tree := docstoreTree(t)
	tests := []struct {
		name, src string
		want      string // the whole first error
	}{
		{"empty", "", "snippet.go:1:1: the snippet is empty\n\thint: a snippet is a Go file: `package main`, imports, and func main() { ... }"},
		{"blank", "  \n\t\n", "snippet.go:1:1: the snippet is empty"},
		{"comment only", "// nothing\n", "snippet.go:1:12: syntax error: expected 'package', found 'EOF'\n\thint: a snippet starts with `package main`"},
		{"no package", "func main() {}\n", "snippet.go:1:1: syntax error: expected 'package', found 'func'"},
		{"syntax", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"a\"\n}\n", "snippet.go:6:17: syntax error: missing ',' before newline in argument list"},
		{"std import missing", "package main\nfunc main() { println(strings.ToUpper(\"a\")) }\n", "snippet.go:2:23: undefined: strings\n\thint: add import \"strings\""},
		{"json import missing", "package main\nfunc main() { _, _ = json.Marshal(1) }\n", "snippet.go:2:22: undefined: json\n\thint: add import \"encoding/json\""},
		{"unknown type of tree package", "package main\nimport \"mcpfs/servers/docstore\"\nfunc main() { _ = docstore.SearchArg{} }\n", "snippet.go:3:28: undefined: docstore.SearchArg\n\thint: types of mcpfs/servers/docstore: SearchArgs{Id *string, Limit *int, Mode SearchMode, Query string}, SearchMode,"},
		{"unknown field by selector", "package main\nimport \"mcpfs/servers/docstore\"\nfunc main() { a := docstore.SearchArgs{}; _ = a.Text }\n", "snippet.go:3:49: a.Text undefined (type docstore.SearchArgs has no field or method Text)\n\thint: fields of docstore.SearchArgs: Id *string,"},
		{"reserved name", "package main\nfunc main() { __mcpfs_x := 1; _ = __mcpfs_x }\n", "snippet.go:2:15: the name __mcpfs_x is reserved"},
		{"main with args", "package main\nfunc main(x int) {}\n", "snippet.go:2:6: func main must have no arguments and no return values"},
		{"shadowed continue", "package main\nimport \"fmt\"\nfunc main() {\n\tfor i := 0; i < 3; i++ {\n\t\tdefer func() { fmt.Println(i) }()\n\t\ti++\n\t\tif i > 1 {\n\t\t\ti := 7\n\t\t\t_ = i\n\t\t\tcontinue\n\t\t}\n\t}\n}\n",
			"snippet.go:10:4: the interpreter cannot run this continue: i is redeclared here"},
		{"goto in captured loop", "package main\nimport \"fmt\"\nfunc main() {\n\tfor i := 0; i < 3; i++ {\n\t\tdefer func() { fmt.Println(i) }()\n\t\ti++\n\t\tgoto end\n\tend:\n\t}\n}\n",
			"snippet.go:7:3: the interpreter cannot run goto"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Check("snippet.go", []byte(tt.src), tree, Options{})
			var el ErrorList
			if !errors.As(err, &el) || len(el) == 0 {
				t.Fatalf("got %v, want an ErrorList", err)
			}
			if got := el[0].Error(); !strings.HasPrefix(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestMissingImportOnce: a package used three times without its import is
// one problem, reported at its first use; another missing import is its own.
// TestContinuationFolded: an error go/types continues on another line
// ("\tprevious case") is one problem, at the line to change, naming the
// other line.
func TestContinuationFolded(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"package main\nfunc main() {\n\tvar v any\n\tswitch v.(type) {\n\tcase []int:\n\tcase string:\n\tcase []int:\n\t}\n}\n",
			"snippet.go:7:7: duplicate case []int in type switch (previous case at line 5)"},
		{"package main\nfunc f() {}\nfunc g() {}\nfunc f() {}\nfunc main() {}\n",
			"snippet.go:4:6: f redeclared in this block (other declaration of f at line 2)"},
	} {
		_, err := Check("snippet.go", []byte(tt.src), nil, Options{})
		var el ErrorList
		if !errors.As(err, &el) {
			t.Fatalf("got %v, want an ErrorList", err)
		}
		if len(el) != 1 || el[0].Error() != tt.want {
			t.Errorf("got %q, want the one error %q", el.Error(), tt.want)
		}
	}
}

func TestMissingImportOnce(t *testing.T) {
	src := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\td := time.Second\n\tfmt.Println(d, time.Minute, strings.ToUpper(\"a\"))\n\tfmt.Println(time.Hour)\n}\n"
	_, err := Check("snippet.go", []byte(src), nil, Options{})
	var el ErrorList
	if !errors.As(err, &el) {
		t.Fatalf("got %v, want an ErrorList", err)
	}
	var got []string
	for _, e := range el {
		got = append(got, fmt.Sprintf("%d:%d %s", e.Pos.Line, e.Pos.Column, e.Hint))
	}
	want := []string{`6:7 add import "time"`, `7:30 add import "strings"`}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestAssignCountFillsArgs: one variable for a call that returns two and
// also leaves out an argument: the hint writes the whole call, so that
// applying it alone compiles.
func TestAssignCountFillsArgs(t *testing.T) {
	src := "package main\nimport (\n\t\"fmt\"\n\t\"strconv\"\n)\nfunc main() {\n\ts := \"14.5\"\n\tf := strconv.ParseFloat(s)\n\tfmt.Println(f)\n}\n"
	_, err := Check("snippet.go", []byte(src), nil, Options{})
	var el ErrorList
	if !errors.As(err, &el) || len(el) == 0 {
		t.Fatalf("got %v, want errors", err)
	}
	want := "8:7 strconv.ParseFloat returns 2 values: write f, err := strconv.ParseFloat(s, 64), then check err"
	if got := fmt.Sprintf("%d:%d %s", el[0].Pos.Line, el[0].Pos.Column, el[0].Hint); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestOnePassHints: hints that lead to the fix in one run, not two.
func TestOnePassHints(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      []string // line:col hint of every error
	}{
		{"float for an int field of an unkeyed literal",
			"package main\nimport \"fmt\"\ntype span struct {\n\tc    string\n\tdays int\n}\nfunc main() {\n\th := 36.0\n\tfmt.Println(span{\"a\", h / 24})\n}\n",
			[]string{"9:24 h / 24 is a float64: convert it, int(h / 24) (it drops the fraction; math.Round first to round)"}},
		{"float difference returned from a comparison function",
			"package main\nimport (\n\t\"fmt\"\n\t\"slices\"\n)\nfunc main() {\n\txs := []float64{2.5, 2.1}\n\tslices.SortFunc(xs, func(a, b float64) int { return a - b })\n\tfmt.Println(xs)\n}\n",
			[]string{"8:54 a comparison function returns the sign: return cmp.Compare(a, b) (-1, 0 or +1); int(a - b) would make values less than 1 apart equal; add import \"cmp\""}},
		{"float difference returned from a one-parameter function",
			"package main\nimport \"fmt\"\nfunc gap(a float64) int { return a - 1.5 }\nfunc main() {\n\tfmt.Println(gap(3))\n}\n",
			[]string{"3:34 a - 1.5 is a float64: convert it, int(a - 1.5) (it drops the fraction; math.Round first to round)"}},
		{"int for a float64 variable",
			"package main\nimport \"fmt\"\nfunc main() {\n\tn := 3\n\tvar f float64 = n\n\tfmt.Println(f)\n}\n",
			[]string{"5:18 n is an int: convert it, float64(n)"}},
		{"an integer division for a float64: the operands are converted, not the quotient",
			"package main\nimport \"fmt\"\ntype R struct{ Share float64 }\nfunc main() {\n\tkg, a, n := 5500, 3, 10\n\tvar t float64 = kg / 1000.0\n\tr := R{Share: (a - 1) * 100 / n}\n\tvar m float64 = a % 2\n\tfmt.Println(t, r, m)\n}\n",
			[]string{"6:18 kg / 1000.0 is an int: an integer division, which drops the fraction; convert before dividing, float64(kg) / 1000.0",
				"7:16 (a - 1) * 100 / n is an int: an integer division, which drops the fraction; convert before dividing, (float64(a) - 1) * 100 / float64(n)",
				"8:18 a % 2 is an int: convert it, float64(a % 2)"}},
		{"a string ordered against a number is parsed, a string equal to one may be compared as text",
			"package main\nimport \"fmt\"\nfunc main() {\n\tm, g := \"14.5\", \"3\"\n\tfmt.Println(m > 17.0, g == 3)\n}\n",
			[]string{`5:18 m is a string, and strings order as text ("9" > "17"): convert it first, n, err := strconv.ParseFloat(m, 64), then compare n > 17.0`,
				`5:29 g is a string: compare it with a string, "3", or convert it first, n, err := strconv.Atoi(g)`}},
		{"a string where a time.Time is wanted is parsed, with the layout of its shape",
			"package main\nimport (\n\t\"fmt\"\n\t\"time\"\n)\nfunc main() {\n\td, s := time.Now(), \"x\"\n\tfmt.Println(d.After(\"2026-07-01\"), d.Sub(s), time.Since(\"2026-07-01 10:00:00\"))\n}\n",
			[]string{`8:22 a string is not a time.Time: parse it first, t, err := time.Parse(time.DateOnly, "2026-07-01"), check err, then pass t`,
				`8:43 a string is not a time.Time: parse it first, t, err := time.Parse("2006-01-02", s) (the layout of its text, written as the reference time), check err, then pass t`,
				`8:58 a string is not a time.Time: parse it first, t, err := time.Parse(time.DateTime, "2026-07-01 10:00:00"), check err, then pass t`}},
		{"maps.Keys kept as a slice, without its import",
			"package main\nimport (\n\t\"fmt\"\n\t\"sort\"\n)\nfunc main() {\n\tm := map[string]int{\"a\": 1}\n\tks := maps.Keys(m)\n\tsort.Strings(ks)\n\tfmt.Println(ks, maps.Values(m))\n}\n",
			[]string{`8:8 add import "maps"; maps.Keys returns an iterator (iter.Seq), not a slice: for a sorted slice write slices.Sorted(maps.Keys(...)), for a slice slices.Collect(maps.Keys(...)) (import "slices")`}},
		{"a refused import does not hide the type errors",
			"package main\nimport (\n\t\"fmt\"\n\t\"log\"\n)\nfunc main() {\n\tn := 3\n\tvar f float64 = n\n\tlog.Println(f)\n\tfmt.Println(f)\n}\n",
			[]string{"4:2 print with fmt (log.Fatal would end the run without output)", "8:18 n is an int: convert it, float64(n)", "9:2 print with fmt.Println"}},
		{"a refused member of os does not hide the type errors",
			"package main\nimport (\n\t\"fmt\"\n\t\"os\"\n)\nfunc main() {\n\tn := 3\n\tvar f float64 = n\n\tfmt.Println(f, os.Args)\n}\n",
			[]string{"8:18 n is an int: convert it, float64(n)", "9:20 a snippet has no arguments: write the values in the snippet"}},
		{"net/mail refused, with how to split an address",
			"package main\nimport (\n\t\"fmt\"\n\t\"net/mail\"\n)\nfunc main() {\n\ta, err := mail.ParseAddress(\"Ann <a@b.example>\")\n\tfmt.Println(a.Name, err)\n}\n",
			[]string{`4:2 split an address "Name <a@b>" with strings.Cut(s, " <") or a regexp, and a header line with strings.Cut(line, ":"); dates with time.Parse(time.RFC1123Z, v)`}},
	} {
		_, err := Check("snippet.go", []byte(tt.src), nil, Options{})
		var el ErrorList
		if !errors.As(err, &el) {
			t.Fatalf("%s: got %v, want an ErrorList", tt.name, err)
		}
		var got []string
		for _, e := range el {
			got = append(got, fmt.Sprintf("%d:%d %s", e.Pos.Line, e.Pos.Column, strings.Split(e.Hint, "\n")[0]))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestLastUseNote: a hint that removes a package's only use says to drop
// its import too.
func TestLastUseNote(t *testing.T) {
	tree := fixTree(t)
	src := "package main\n\nimport (\n\t\"fmt\"\n\n\t\"mcpfs/mcp\"\n\t\"mcpfs/servers/docstore\"\n)\n\nfunc main() {\n\tr, err := docstore.Search(docstore.SearchArgs{Query: \"x\", Mode: mcp.Ptr(docstore.SearchModeWord)})\n\tfmt.Println(r, err)\n}\n"
	for _, other := range []string{"", "\tfmt.Println(mcp.Ptr(1))\n"} {
		s := strings.Replace(src, "\n}\n", "\n"+other+"}\n", 1)
		_, err := Check("snippet.go", []byte(s), tree, Options{})
		var el ErrorList
		if !errors.As(err, &el) || len(el) != 1 {
			t.Fatalf("got %v, want one error", err)
		}
		says := strings.Contains(el[0].Hint, `remove the import of "mcpfs/mcp"`)
		if !strings.Contains(el[0].Hint, "Mode: docstore.SearchModeWord") || says != (other == "") {
			t.Errorf("with %q: hint %q", other, el[0].Hint)
		}
	}
}

func TestErrorListBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("package main\nfunc main() {\n")
	for i := 0; i < 30; i++ {
		b.WriteString("\tvar x int = \"s\"\n")
	}
	b.WriteString("}\n")
	_, err := Check("snippet.go", []byte(b.String()), nil, Options{})
	var el ErrorList
	if !errors.As(err, &el) {
		t.Fatalf("got %v, want an ErrorList", err)
	}
	if len(el) != maxErrors {
		t.Errorf("got %d errors, want %d", len(el), maxErrors)
	}
	if !slices.IsSortedFunc(el, func(a, b *Error) int { return a.Pos.Line - b.Pos.Line }) {
		t.Errorf("errors are not sorted: %v", el)
	}
}

func TestProgramFields(t *testing.T) {
	tree := docstoreTree(t)
	src := "package main\nimport (\n\t\"fmt\"\n\t\"slices\"\n\t\"mcpfs/servers/docstore\"\n)\nfunc main() {\n\ts := []docstore.SearchResultHit{{Line: 2}, {Line: 1}}\n\tslices.SortFunc(s, func(a, b docstore.SearchResultHit) int { return a.Line - b.Line })\n\tfmt.Println(s)\n}\n"
	prog, err := Check("snippet.go", []byte(src), tree, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"fmt", "mcpfs/servers/docstore", "slices", "sort"}; !slices.Equal(prog.Imports, want) {
		t.Errorf("Imports = %v, want %v", prog.Imports, want)
	}
	if want := []string{"mcpfs/mcp", "mcpfs/servers/docstore"}; !slices.Equal(prog.TreePackages, want) {
		t.Errorf("TreePackages = %v, want %v", prog.TreePackages, want)
	}
	// Lines are kept: line 10 still prints.
	if l := strings.Split(string(prog.Source), "\n")[9]; l != "\tfmt.Println(s)" {
		t.Errorf("line 10 of the rewrite = %q", l)
	}
	if !strings.Contains(string(prog.Source), `package main; import __mcpfs_`) {
		t.Errorf("the rewrite does not import sort for its helper:\n%s", prog.Source)
	}
}

func TestAllowOption(t *testing.T) {
	src := []byte("package main\nimport \"strings\"\nfunc main() { _ = strings.ToUpper }\n")
	if _, err := Check("snippet.go", src, nil, Options{Allow: []string{"fmt"}}); err == nil || !strings.Contains(err.Error(), `import "strings" is not allowed`) {
		t.Errorf("got %v, want strings refused", err)
	}
	if _, err := Check("snippet.go", src, nil, Options{Allow: []string{"strings"}}); err != nil {
		t.Errorf("got %v, want strings allowed", err)
	}
}

// TestStdArchive fails when the embedded export data lacks a package that
// snippets may import.
func TestStdArchive(t *testing.T) {
	have := StdPackages()
	for _, p := range DefaultAllow {
		if !slices.Contains(have, p) {
			t.Errorf("the embedded export data has no %q: run go generate ./exec/check", p)
		}
	}
	// Every package in it reads with this toolchain's importer.
	src := "package main\nimport (\n"
	for _, p := range DefaultAllow {
		src += "\t_ \"" + p + "\"\n"
	}
	src += ")\nfunc main() {}\n"
	if _, err := Check("snippet.go", []byte(src), nil, Options{}); err != nil {
		t.Fatalf("importing every allowed package: %v (run go generate ./exec/check)", err)
	}
}

func TestSkills(t *testing.T) {
	tree := fstest.MapFS{
		"skills/good/good.go":   {Data: []byte("package good\n\nimport \"strings\"\n\n// Shout upper-cases s.\nfunc Shout(s string) string { return strings.ToUpper(s) + \"!\" }\n")},
		"skills/bad/bad.go":     {Data: []byte("package bad\n\nimport \"os\"\n\nfunc Host() string { h, _ := os.Hostname(); return h }\n")},
		"skills/uses/uses.go":   {Data: []byte("package uses\n\nimport \"mcpfs/skills/bad\"\n\nfunc Host() string { return bad.Host() }\n")},
		"skills/broken/x.go":    {Data: []byte("package broken\n\nfunc F() int { return \"s\" }\n")},
		"skills/good/SKILL.md":  {Data: []byte("---\nname: good\n---\n")},
		"skills/empty/SKILL.md": {Data: []byte("---\nname: empty\n---\n")},
	}
	tests := []struct {
		name, imp, use string
		want           string // "" = accepted
	}{
		{"good", "mcpfs/skills/good", "good.Shout(\"a\")", ""},
		{"imports os", "mcpfs/skills/bad", "bad.Host()", `package mcpfs/skills/bad imports "os" (at skills/bad/bad.go:3:8), which is not allowed in snippets`},
		{"through another skill", "mcpfs/skills/uses", "uses.Host()", `package mcpfs/skills/bad imports "os"`},
		{"does not type-check", "mcpfs/skills/broken", "broken.F()", `package "mcpfs/skills/broken" does not type-check`},
		{"no Go files", "mcpfs/skills/empty", "0", "package mcpfs/skills/empty does not exist in the tree"},
		{"unknown skill", "mcpfs/skills/goood", "0", "hint: available: mcpfs/skills/good"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "package main\n\nimport (\n\t\"fmt\"\n\t\"" + tt.imp + "\"\n)\n\nfunc main() { fmt.Println(" + tt.use + ") }\n"
			if tt.name == "no Go files" || tt.name == "unknown skill" {
				src = "package main\n\nimport _ \"" + tt.imp + "\"\n\nfunc main() {}\n"
			}
			_, err := Check("snippet.go", []byte(src), tree, Options{})
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("got %v, want it accepted", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestConcurrentChecks(t *testing.T) {
	tree := docstoreTree(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := Check("snippet.go", []byte(typical), tree, Options{})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
