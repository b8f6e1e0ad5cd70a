package check

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// FuzzCheck: Check never panics, and what it accepts it accepts again
// its rewrite is valid Go.
func FuzzCheck(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.go")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	// The broken programs of the fix corpus and the held-out sets drive
	// the hints.
	fixes, _ := filepath.Glob("testdata/fixes/*.txtar")
	heldout, _ := filepath.Glob("testdata/heldout/*.txtar")
	fixes = append(fixes, heldout...)
	for _, file := range fixes {
		if ar, err := txtar.ParseFile(file); err == nil {
			for _, fl := range ar.Files {
				if strings.HasSuffix(fl.Name, ".go") {
					f.Add(fl.Data)
				}
			}
		}
	}
	f.Add([]byte("package main\nfunc main() { for i := range 3 { _ = min(i, 2) } }\n"))
	f.Add([]byte(""))
	tree := docstoreTree(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		prog, err := Check("snippet.go", src, tree, Options{})
		if errors.Is(err, ErrInternal) {
			t.Fatalf("Check: %v\nsource:\n%s", err, src)
		}
		if err != nil {
			return
		}
		if err := typeCheckRewrite(prog.Source, tree); err != nil {
			t.Fatalf("the rewrite is not valid Go: %v\nsource:\n%s\nrewrite:\n%s", err, src, prog.Source)
		}
	})
}
