package check

import (
	"errors"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/traefik/yaegi/stdlib"
)

func TestCanAllow(t *testing.T) {
	tests := []struct {
		pkg  string
		want string // fragment of the error; "" = allowable
	}{
		{"fmt", ""},
		{"net/url", ""},
		{"crypto/sha256", ""},
		{"encoding/xml", ""},
		{"os", `"os" can never be allowed in snippets: it reads and writes files`},
		{"os/exec", `"os/exec" can never be allowed in snippets: it runs programs`},
		{"net", "opens network connections"},
		{"net/http", `"net/http" can never be allowed in snippets: it opens network connections`},
		{"net/http/httptest", "opens network connections"},
		{"syscall", "system calls"},
		{"unsafe", "arbitrary memory"},
		{"reflect", "symbol table"},
		{"runtime/debug", "controls the Go runtime"},
		{"plugin", "loads compiled code"},
		{"debug/elf", "opens executable files"},
		{"path/filepath", "real file system"},
		{"log/slog", "standard error"},
		{"html/template", "ParseFiles"},
		{"internal/abi", "internal to the standard library"},
		{"crypto/internal/fips140", "internal to the standard library"},
		{"mcpfs/servers/docstore", "package of the tree"},
		{"github.com/x/y", "not a standard package"},
		{"github.com/traefik/yaegi/stdlib", "the interpreter itself"},
		{"image/png", `"image/png" is not one that snippets can be given`},
		{"", "not an import path"},
		{"crypto/", "not an import path"},
		{"a b", "not an import path"},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			err := CanAllow(tt.pkg)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("got %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestAllowlist(t *testing.T) {
	tests := []struct {
		name       string
		add, deny  []string
		has, hasNo []string
		err        string
	}{
		{"defaults", nil, nil, DefaultAllow, []string{"crypto/sha256", "os"}, ""},
		{"add", []string{"crypto/sha256", "hash/crc32"}, nil, []string{"crypto/sha256", "hash/crc32", "fmt"}, nil, ""},
		{"deny", nil, []string{"text/template", "math/rand"}, []string{"fmt"}, []string{"text/template", "math/rand"}, ""},
		{"deny what is not allowed", nil, []string{"os"}, []string{"fmt"}, []string{"os"}, ""},
		{"add a default", []string{"fmt"}, nil, []string{"fmt"}, nil, ""},
		{"add refused", []string{"os/exec"}, nil, nil, nil, `"os/exec" can never be allowed`},
		{"both", []string{"crypto/sha256"}, []string{"crypto/sha256"}, nil, nil, "both allowed and denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Allowlist(tt.add, tt.deny)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, %v; want an error containing %q", got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
				t.Errorf("got %v, want sorted without duplicates", got)
			}
			for _, p := range tt.has {
				if !slices.Contains(got, p) {
					t.Errorf("got %v, want %q in it", got, p)
				}
			}
			for _, p := range tt.hasNo {
				if slices.Contains(got, p) {
					t.Errorf("got %v, want no %q", got, p)
				}
			}
		})
	}
}

// TestAllowableProvided fails when a package snippets may be given lacks
// its type information or the interpreter's symbols: allowing it would
// pass the check and fail in the worker.
func TestAllowableProvided(t *testing.T) {
	have := StdPackages()
	yaegi := map[string]bool{}
	for k := range stdlib.Symbols {
		yaegi[path.Dir(k)] = true
	}
	all := Allowable()
	if !slices.IsSorted(all) || len(all) != len(DefaultAllow)+len(Optional) {
		t.Errorf("Allowable: got %v, want DefaultAllow and Optional, sorted", all)
	}
	for _, p := range all {
		if !slices.Contains(have, p) {
			t.Errorf("the embedded export data has no %q: run go generate ./exec/check", p)
		}
		if !yaegi[p] && p != "iter" { // iter: the rewrite leaves no use of it
			t.Errorf("the interpreter's standard library has no %q: it cannot be allowed", p)
		}
		if slices.Contains(DefaultAllow, p) && slices.Contains(Optional, p) {
			t.Errorf("%q is in both DefaultAllow and Optional", p)
		}
	}
	// Every optional package reads with this toolchain's importer.
	allow, err := Allowlist(Optional, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := "package main\nimport (\n"
	for _, p := range Optional {
		src += "\t_ \"" + p + "\"\n"
	}
	src += ")\nfunc main() {}\n"
	if _, err := Check("snippet.go", []byte(src), nil, Options{Allow: allow}); err != nil {
		t.Fatalf("importing every optional package: %v (run go generate ./exec/check)", err)
	}
}

// TestRefusedImportHints checks that a refused import says how the config
// changes the allowlist, when it can.
func TestRefusedImportHints(t *testing.T) {
	denied, err := Allowlist(nil, []string{"text/template"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		imp   string
		allow []string
		want  string
	}{
		{"optional", "crypto/sha256", nil, `snippet.go:2:10: import "crypto/sha256" is not allowed in snippets` + "\n\thint: to use it, allow it in the config: \"mcpfs\": {\"imports\": {\"allow\": [\"crypto/sha256\"]}} (mcpfs.imports.allow)"},
		{"denied default", "text/template", denied, `"text/template" is allowed by default but this mcpfs's config denies it (mcpfs.imports.deny)`},
		{"never", "os/exec", nil, "hint: snippets cannot run programs"},
		{"not offered", "image/png", nil, "hint: allowed: bufio, bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "package main\nimport _ \"" + tt.imp + "\"\nfunc main() {}\n"
			_, err := Check("snippet.go", []byte(src), nil, Options{Allow: tt.allow})
			var el ErrorList
			if !errors.As(err, &el) || len(el) == 0 {
				t.Fatalf("got %v, want an ErrorList", err)
			}
			if got := el[0].Error(); !strings.Contains(got, tt.want) {
				t.Errorf("got  %q\nwant %q in it", got, tt.want)
			}
			if tt.name == "never" && strings.Contains(el[0].Error(), ConfigAllowKey) {
				t.Errorf("got %q, want no config hint for a package that can never be allowed", el[0].Error())
			}
		})
	}
	// With the package allowed, the snippet uses it.
	allow, err := Allowlist([]string{"crypto/sha256"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := "package main\nimport (\n\t\"crypto/sha256\"\n\t\"fmt\"\n)\nfunc main() { fmt.Printf(\"%x\\n\", sha256.Sum256([]byte(\"a\"))) }\n"
	if _, err := Check("snippet.go", []byte(src), nil, Options{Allow: allow}); err != nil {
		t.Errorf("got %v, want crypto/sha256 allowed", err)
	}
}
