package gen

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpfs/mcpfs/discovery"
)

// TestTreeVets writes a whole tree (root files and every test server) to
// disk and runs `go vet ./...` in it: the tree is a Go module that the go
// command, gopls and vet accept.
func TestTreeVets(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: runs the go command (slow); not in -short mode")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipping: no go command on PATH to vet the tree with")
	}
	dir := t.TempDir()
	cat := &discovery.Catalog{}
	for _, name := range inputs {
		cat.Servers = append(cat.Servers, loadSnapshot(t, name))
	}
	files := Root(cat)
	for _, s := range cat.Servers {
		files = append(files, Server(s)...)
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The README's example, for the filesystem server: it must compile
	// against a real server's schema.
	readme := string(files[0].Data)
	start := strings.Index(readme, "```go\n")
	end := strings.Index(readme[start+6:], "```")
	if files[0].Path != "README.md" || start < 0 || end < 0 {
		t.Fatalf("no Go example in the README")
	}
	example := strings.NewReplacer("<s>", "filesystem", "<Func>", "ReadTextFile").Replace(readme[start+6 : start+6+end])
	if err := os.MkdirAll(filepath.Join(dir, "example"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "example", "main.go"), []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goBin, "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet ./... in the tree: %v\n%s", err, out)
	}
}

func TestDeterministic(t *testing.T) {
	for _, name := range inputs {
		s := loadSnapshot(t, name)
		first := Server(s)
		for i := 0; i < 3; i++ {
			if again := Server(s); !reflect.DeepEqual(first, again) {
				t.Fatalf("%s: Server gave different files on run %d", name, i+2)
			}
		}
	}
	c := &discovery.Catalog{Servers: []discovery.ServerSnapshot{loadSnapshot(t, "failed"), loadSnapshot(t, "memory")}}
	if a, b := Root(c), Root(c); !reflect.DeepEqual(a, b) {
		t.Fatal("Root gave different files for the same catalog")
	}
}

// decls returns the file base name -> the exported functions it declares.
func decls(t *testing.T, files []File) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, f := range files {
		af, err := parser.ParseFile(token.NewFileSet(), f.Path, f.Data, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				out[filepath.Base(f.Path)] = append(out[filepath.Base(f.Path)], fd.Name.Name)
			}
		}
	}
	return out
}

func TestToolNames(t *testing.T) {
	tests := []struct {
		name  string
		tools []string
		want  map[string][]string // file -> functions
	}{
		{"args clash", []string{"foo", "foo_args"}, map[string][]string{"foo.go": {"Foo"}, "foo_args.go": {"FooArgs2"}}},
		{"casing clash", []string{"get-file", "get_file", "GetFile"}, map[string][]string{
			"get_file.go": {"GetFile"}, "get_file_9109.go": {"GetFile_9109"}, "get_file_d4d7.go": {"GetFile_d4d7"}}},
		{"result clash", []string{"list_result", "list"}, map[string][]string{"list_result.go": {"ListResult2"}, "list.go": {"List"}}},
		{"special files", []string{"doc", "x_linux", "y_test", "_z"}, map[string][]string{
			"doc_2.go": {"Doc"}, "x_linux_tool.go": {"XLinux"}, "y_test_tool.go": {"YTest"}, "z.go": {"Z"}}},
		{"duplicates", []string{"a", "a"}, map[string][]string{"a.go": {"A"}, "a_ca97.go": {"A_ca97"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := discovery.ServerSnapshot{Name: "srv", State: discovery.StateReady}
			for _, n := range tt.tools {
				s.Tools = append(s.Tools, discovery.Tool{Name: n, Raw: fuzzTool(n, "d", `{"type":"object"}`, ``)})
			}
			files := Server(s)
			checkServer(t, s, files)
			got := decls(t, files)
			delete(got, "doc.go")
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			// Each call sends the exact tool name.
			for i, n := range tt.tools {
				_ = i
				found := false
				for _, f := range files {
					if bytes.Contains(f.Data, []byte(`, "`+n+`", args`)) {
						found = true
					}
				}
				if !found {
					t.Errorf("no function calls tool %q", n)
				}
			}
		})
	}
}

func TestFailedServerDoc(t *testing.T) {
	files := Server(loadSnapshot(t, "failed"))
	if len(files) != 1 || files[0].Path != "servers/broken/doc.go" {
		t.Fatalf("got %d files, want only servers/broken/doc.go", len(files))
	}
	doc := string(files[0].Data)
	for _, want := range []string{"State: failed: connect http://127.0.0.1:9/mcp: connection refused retrying", "Transport: http", "None while the server is failed."} {
		if !strings.Contains(doc, want) {
			t.Errorf("doc.go lacks %q:\n%s", want, doc)
		}
	}
}

// TestToolNamesStable: the name of a tool does not depend on the order of
// tools/list, nor on a colliding tool being added or removed (unless the
// added tool has the first claim on the plain name, see naming.Precedes).
func TestToolNamesStable(t *testing.T) {
	gen := func(names ...string) map[string]string {
		s := discovery.ServerSnapshot{Name: "srv", State: discovery.StateReady}
		for _, n := range names {
			s.Tools = append(s.Tools, discovery.Tool{Name: n, Raw: fuzzTool(n, "d", `{"type":"object"}`, ``)})
		}
		out := map[string]string{} // tool → function
		for file, fns := range decls(t, Server(s)) {
			if file == "doc.go" {
				continue
			}
			for _, f := range Server(s) {
				if strings.HasSuffix(f.Path, "/"+file) {
					for _, n := range names {
						if bytes.Contains(f.Data, []byte(`, "`+n+`", args`)) {
							out[n] = fns[0]
						}
					}
				}
			}
		}
		return out
	}
	a := gen("echo", "Echo", "ECHO", "other")
	b := gen("other", "ECHO", "Echo", "echo")
	if !reflect.DeepEqual(a, b) {
		t.Errorf("reordered tools/list: got %v, want %v", b, a)
	}
	c := gen("Echo", "echo", "other")
	for _, n := range []string{"Echo", "echo", "other"} {
		if c[n] != a[n] {
			t.Errorf("without ECHO, %s is %s, want %s", n, c[n], a[n])
		}
	}
	if a["echo"] != "Echo" {
		t.Errorf("echo is %s, want Echo (snake_case has the first claim)", a["echo"])
	}
}

// TestRequiredWithDefault: a required argument with a schema default is
// optional in Go (a pointer with omitempty), so that leaving it out lets
// the server apply its default instead of sending the zero value.
func TestRequiredWithDefault(t *testing.T) {
	s := discovery.ServerSnapshot{Name: "srv", State: discovery.StateReady, Tools: []discovery.Tool{{Name: "t",
		Raw: fuzzTool("t", "d", `{"type":"object","properties":{"n":{"type":"integer","default":5},"m":{"type":"string"}},"required":["n","m"]}`, ``)}}}
	var src string
	for _, f := range Server(s) {
		if strings.HasSuffix(f.Path, "/t.go") {
			src = string(f.Data)
		}
	}
	for _, want := range []string{"N *int   `json:\"n,omitempty\"`", "M string `json:\"m\"`"} {
		if !strings.Contains(src, want) {
			t.Errorf("no %s in:\n%s", want, src)
		}
	}
}
