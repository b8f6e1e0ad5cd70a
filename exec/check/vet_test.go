package check

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestVetPasses: formats and arguments go vet accepts are not refused
// (the checks of vet.go must not refuse a valid snippet).
func TestVetPasses(t *testing.T) {
	tree := docstoreTree(t)
	bodies := []string{
		`fmt.Printf("%d %s %v %q %x %t %%\n", 1, "a", struct{ A int }{1}, "q", "hex", true)`,
		`fmt.Printf("%s %v %d\n", time.Second, time.Second, time.Second)`,
		`fmt.Printf("%.2f %g %e\n", 1.5, 2.0, time.Second.Seconds())`,
		`fmt.Printf("%d %.1f\n", []int{1}, struct{ X, Y float64 }{1, 2})`,
		`fmt.Printf("%s %v\n", errors.New("e"), []string{"a"})`,
		`fmt.Printf("%[1]d %[1]v %*d\n", 3, 4)`,
		`fmt.Printf("%c %U %q\n", 'x', 'y', 'z')`,
		`fmt.Printf("%x %X %s\n", []byte("a"), 255, []byte("b"))`,
		`var x any = 1; fmt.Printf("%d %s\n", x, x)`,
		`fmt.Println("100%", "done")`,
		`fmt.Println("a", 1)`,
		`fmt.Println("50% off", 3)`,
		`p := &struct{ A int }{1}; fmt.Printf("%x %p %v\n", p, p, p)`,
		`var e any = errors.New("e"); _ = fmt.Errorf("w: %w", e)`,
		`fmt.Printf("%x %d\n", []int{10}, [2]int{1, 2})`,
		`_ = fmt.Errorf("wrap: %w", errors.New("e"))`,
		`s := fmt.Sprintf("%5.1f|%-4d|%+d", 1.25, 3, 4); fmt.Println(s)`,
	}
	for _, b := range bodies {
		src := "package main\n\nimport (\n\t\"errors\"\n\t\"fmt\"\n\t\"time\"\n)\n\nvar _ = errors.New\nvar _ = time.Second\n\nfunc main() {\n\t" + b + "\n}\n"
		if _, err := Check("snippet.go", []byte(src), tree, Options{}); err != nil {
			t.Errorf("%s: refused:\n%v", b, err)
		}
	}
	for _, src := range []string{
		"package main\n\nimport \"fmt\"\n\nfunc main() {\n\tb := []byte(\"hi\")\n\tfmt.Println(b, []byte(\"x\"))\n}\n",
		"package main\n\nimport \"fmt\"\n\ntype acct struct{ n int }\n\nfunc (a *acct) String() string { return \"acct\" }\n\nfunc main() {\n\ta := acct{1}\n\tfmt.Println(a, &a)\n}\n",
		"package main\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n\t\"sync\"\n)\n\ntype C struct {\n\tmu sync.Mutex\n\tn  int\n}\n\nfunc (c *C) Inc() { c.mu.Lock(); c.n++; c.mu.Unlock() }\n\nfunc main() {\n\tvar c C\n\tc.Inc()\n\tvar sb strings.Builder\n\tsb.WriteString(\"x\")\n\tfmt.Println(c.n, sb.String(), &sb)\n}\n",
	} {
		if _, err := Check("snippet.go", []byte(src), tree, Options{}); err != nil {
			t.Errorf("refused:\n%v\n%s", err, src)
		}
	}
	typed := "package main\n\nimport (\n\t\"encoding/json\"\n\t\"fmt\"\n\t\"sync\"\n)\n\ntype T struct {\n\tName string `json:\"name,omitempty\" yaml:\"n\"`\n}\n\nfunc work(wg *sync.WaitGroup, mu *sync.Mutex) { wg.Done(); mu.Lock(); mu.Unlock() }\n\nfunc main() {\n\tvar wg sync.WaitGroup\n\tvar mu sync.Mutex\n\twg.Add(1)\n\twork(&wg, &mu)\n\tvar t T\n\t_ = json.Unmarshal([]byte(`{}`), &t)\n\tvar m map[string]any\n\t_ = json.Unmarshal([]byte(`{}`), &m)\n\tfmt.Println(t, m)\n}\n"
	if _, err := Check("snippet.go", []byte(typed), tree, Options{}); err != nil {
		t.Errorf("refused:\n%v", err)
	}
}

// TestVetRefuses: each go vet finding is refused at its line with the fix.
func TestVetRefuses(t *testing.T) {
	tree := docstoreTree(t)
	tests := []struct{ body, want string }{
		{`fmt.Printf("%d\n", "a")`, "%s"},
		{`fmt.Printf("%s\n", 3)`, "%d"},
		{`fmt.Printf("%.1f\n", time.Second)`, ".Seconds()"},
		{`fmt.Printf("%f\n", 3)`, "float64(3)"},
		{`fmt.Printf("%s %s\n", "a")`, "missing argument"},
		{`fmt.Println("n=%d", 3)`, `fmt.Printf("n=%d\n", 3)`},
		{`_ = fmt.Errorf("x: %w", "s")`, "errors.New"},
		{`_ = fmt.Errorf("x %d", 1, errors.New("e"))`, "%w"},
		{`var v map[string]int; _ = json.Unmarshal([]byte("{}"), v)`, "&v"},
		{`b, _ := json.Marshal(map[string]int{"a": 1}); fmt.Println(b)`, "string(b)"},
		{`var sb strings.Builder; sb.WriteString("x"); fmt.Print(sb)`, "sb.String()"},
		{`var sb strings.Builder; fmt.Printf("%s|%v\n", "a", sb)`, "sb.String()"},
		{`n, d := 7, 2; fmt.Printf("%.1f\n", n/d)`, "float64(n) / float64(d)"},
		{`n := 7; fmt.Printf("%.1f\n", n/2)`, "float64(n) / 2"},
	}
	for _, tt := range tests {
		src := "package main\n\nimport (\n\t\"encoding/json\"\n\t\"errors\"\n\t\"fmt\"\n\t\"strings\"\n\t\"time\"\n)\n\nvar _ = errors.New\nvar _ = time.Second\nvar _ = json.Marshal\nvar _ = strings.Cut\n\nfunc main() {\n\t" + tt.body + "\n}\n"
		_, err := Check("snippet.go", []byte(src), tree, Options{})
		var el ErrorList
		if !errors.As(err, &el) {
			t.Errorf("%s: got %v, want it refused", tt.body, err)
			continue
		}
		found := false
		for _, e := range el {
			if e.Pos.Line == 17 && strings.Contains(e.Msg+"\n"+e.Hint, tt.want) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no error at line 17 naming %q:\n%v", tt.body, tt.want, err)
		}
	}
	for _, tt := range []struct{ src, want string }{
		{"package main\n\nimport \"sync\"\n\nfunc work(wg sync.WaitGroup) { wg.Done() }\n\nfunc main() {\n\tvar wg sync.WaitGroup\n\twg.Add(1)\n\tgo work(wg)\n\twg.Wait()\n}\n", "*sync.WaitGroup"},
		{"package main\n\nimport \"fmt\"\n\ntype T struct {\n\tName string `json:name`\n}\n\nfunc main() { fmt.Println(T{}) }\n", "`json:\"name\"`"},
		{"package main\n\nimport (\n\t\"fmt\"\n\t\"sync\"\n)\n\ntype C struct {\n\tmu sync.Mutex\n\tn  int\n}\n\nfunc (c C) Inc() { c.mu.Lock(); c.n++; c.mu.Unlock() }\n\nfunc main() {\n\tvar c C\n\tc.Inc()\n\tfmt.Println(c.n)\n}\n", "func (c *C) Inc()"},
		{"package main\n\nimport (\n\t\"cmp\"\n\t\"fmt\"\n\t\"slices\"\n)\n\ntype kv struct {\n\tk string\n\tn int\n}\n\nfunc main() {\n\txs := []kv{{\"a\", 1}}\n\tslices.SortFunc(xs, func(a, b kv) bool { return a.n > b.n })\n\tfmt.Println(xs, cmp.Less(1, 2))\n}\n", "cmp.Compare(b.n, a.n)"},
		{"package main\n\nimport (\n\t\"fmt\"\n\t\"strconv\"\n)\n\nfunc main() {\n\tv, _ := strconv.ParseInt(\"12\")\n\tfmt.Println(v)\n}\n", `strconv.ParseInt("12", 10, 64)`},
	} {
		_, err := Check("snippet.go", []byte(tt.src), tree, Options{})
		if os.Getenv("MCPFS_FIX_SHOW") != "" {
			t.Log(err)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("got %v, want an error naming %q", err, tt.want)
		}
	}
}

// TestVetSortMap: sort.Slice given a map (it panics) is refused at the
// map with the sort of its keys, and the less function's int indexes into
// a map of string keys add no hint of their own.
func TestVetSortMap(t *testing.T) {
	tree := docstoreTree(t)
	for _, tt := range []struct{ src, want string }{
		{"package main\n\nimport (\n\t\"fmt\"\n\t\"sort\"\n)\n\nfunc main() {\n\tm := map[string]int{\"a\": 2}\n\tsort.Slice(m, func(i, j int) bool { return m[i] < m[j] })\n\tfmt.Println(m)\n}\n",
			`10:13 sort its keys: keys := slices.Sorted(maps.Keys(m)) (import "slices", "maps")`},
		{"package main\n\nimport (\n\t\"fmt\"\n\t\"maps\"\n\t\"slices\"\n\t\"sort\"\n)\n\nfunc main() {\n\tw := map[int]float64{29: 2.5}\n\tsort.SliceStable(w, func(i, j int) bool { return w[i] > w[j] })\n\tfmt.Println(w, slices.Sorted(maps.Keys(w)))\n}\n",
			"12:19 sort its keys: keys := slices.Sorted(maps.Keys(w)), then range"},
	} {
		_, err := Check("snippet.go", []byte(tt.src), tree, Options{})
		var el ErrorList
		if !errors.As(err, &el) || len(el) != 1 {
			t.Errorf("got %v, want one error", err)
			continue
		}
		if got := fmt.Sprintf("%d:%d %s", el[0].Pos.Line, el[0].Pos.Column, el[0].Hint); !strings.HasPrefix(got, tt.want) {
			t.Errorf("got %q, want it to start %q", got, tt.want)
		}
	}
}

// TestVetTimeLayout: time.Parse given the text first, and layouts in
// pattern letters, are refused with the call or layout to write; Go
// layouts, named ones and variables pass.
func TestVetTimeLayout(t *testing.T) {
	tree := docstoreTree(t)
	head := "package main\n\nimport (\n\t\"fmt\"\n\t\"time\"\n)\n\nfunc main() {\n\td, layout := \"2026-08-01\", time.DateOnly\n\t"
	for _, tt := range []struct{ body, want string }{
		{`t, err := time.Parse(d, "2006-01-02")`, `10:23 swap them: time.Parse("2006-01-02", d)`},
		{`t, err := time.ParseInLocation(d, time.RFC3339, time.UTC)`, `10:33 swap them: time.ParseInLocation(time.RFC3339, d, time.UTC)`},
		{`t, err := time.Parse("YYYY-MM-DD", d)`, `10:23 write the reference time in its place: "2006-01-02"`},
		{`t, err := time.Now(), error(nil); _ = t.Format("DD/MM/YYYY HH:mm:ss")`, `10:49 write the reference time in its place: "02/01/2006 15:04:05"`},
	} {
		src := head + tt.body + "\n\tfmt.Println(t, err, layout, d)\n}\n"
		_, err := Check("snippet.go", []byte(src), tree, Options{})
		var el ErrorList
		if !errors.As(err, &el) || len(el) != 1 {
			t.Errorf("%s: got %v, want one error", tt.body, err)
			continue
		}
		if got := fmt.Sprintf("%d:%d %s", el[0].Pos.Line, el[0].Pos.Column, el[0].Hint); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.body, got, tt.want)
		}
	}
	for _, body := range []string{
		`t, err := time.Parse("2006-01-02", d)`,
		`t, err := time.Parse(layout, d)`,
		`t, err := time.Parse(time.RFC3339, "2026-08-01T15:04:00Z")`,
		`t, err := time.Parse("Jan 2 15:04", "Aug 1 06:30")`,
		`t, err := time.Now(), error(nil); _ = t.Format("Monday, Jan 2") + t.Format(layout) + d`,
	} {
		src := head + body + "\n\tfmt.Println(t, err, layout, d)\n}\n"
		if _, err := Check("snippet.go", []byte(src), tree, Options{}); err != nil {
			t.Errorf("%s: refused:\n%v", body, err)
		}
	}
}

// TestRepairHint: for type errors no rule explains, the edits of the
// expression that type-check are named.
func TestRepairHint(t *testing.T) {
	tree := docstoreTree(t)
	tests := []struct{ body, want string }{
		{"xs := []int{1}\n\tvar n int = xs\n\tfmt.Println(n)", "len(xs)"},
		{"v := 3\n\tp := &v\n\tvar n int = p\n\tfmt.Println(n)", "*p"},
		{"type pair struct{ a, b int }\n\tq := pair{1, 2}\n\tvar n int = q\n\tfmt.Println(n)", "q.a"},
	}
	for _, tt := range tests {
		src := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\t" + tt.body + "\n}\n"
		_, err := Check("snippet.go", []byte(src), tree, Options{})
		if os.Getenv("MCPFS_FIX_SHOW") != "" {
			t.Log(err)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want a hint naming %s", tt.body, err, tt.want)
		}
	}
}

// TestVetRequiredNil: a server's literal that leaves out a required slice
// where nothing can set it later is refused at its line with the empty
// value to write; a literal the snippet keeps in a variable, or gives the
// field, passes.
func TestVetRequiredNil(t *testing.T) {
	tree := fixTree(t)
	head := "package main\n\nimport (\n\t\"fmt\"\n\n\t\"mcpfs/servers/memory\"\n)\n\nfunc main() {\n"
	refused := []struct {
		body       string
		line       int
		field, fix string
	}{
		{"\t_, err := memory.CreateEntities(memory.CreateEntitiesArgs{Entities: []memory.CreateEntitiesEntity{{Name: \"a\", EntityType: \"t\"}}})\n", 10, "Observations", "Observations: []string{}"},
		{"\tvar ents []memory.CreateEntitiesEntity\n\tents = append(ents, memory.CreateEntitiesEntity{Name: \"a\", EntityType: \"t\"})\n\t_, err := memory.CreateEntities(memory.CreateEntitiesArgs{Entities: ents})\n", 11, "Observations", "Observations: []string{}"},
		{"\t_, err := memory.OpenNodes(memory.OpenNodesArgs{})\n", 10, "Names", "Names: []string{}"},
	}
	for _, tc := range refused {
		body := tc.body
		src := head + body + "\tfmt.Println(err)\n}\n"
		_, err := Check("snippet.go", []byte(src), tree, Options{})
		var el ErrorList
		if !errors.As(err, &el) || len(el) == 0 {
			t.Errorf("passed, want it refused:\n%s", src)
			continue
		}
		if el[0].Pos.Line != tc.line || !strings.Contains(el[0].Msg, tc.field) || !strings.Contains(el[0].Hint, tc.fix) {
			t.Errorf("got %v, want an error at line %d naming %s:\n%s", err, tc.line, tc.fix, src)
		}
	}
	passes := []string{
		"\te := memory.CreateEntitiesEntity{Name: \"a\", EntityType: \"t\"}\n\te.Observations = []string{\"x\"}\n\t_, err := memory.CreateEntities(memory.CreateEntitiesArgs{Entities: []memory.CreateEntitiesEntity{e}})\n",
		"\t_, err := memory.CreateEntities(memory.CreateEntitiesArgs{Entities: []memory.CreateEntitiesEntity{{Name: \"a\", EntityType: \"t\", Observations: []string{}}}})\n",
		"\t_, err := memory.CreateEntities(memory.CreateEntitiesArgs{Entities: []memory.CreateEntitiesEntity{{\"a\", \"t\", nil}}})\n",
		"\t_, err := memory.ReadGraph(memory.ReadGraphArgs{})\n",
	}
	for _, body := range passes {
		src := head + body + "\tfmt.Println(err)\n}\n"
		if _, err := Check("snippet.go", []byte(src), tree, Options{}); err != nil {
			t.Errorf("refused:\n%v\n%s", err, src)
		}
	}
}
