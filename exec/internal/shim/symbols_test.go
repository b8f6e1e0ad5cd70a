package shim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"testing"
)

// TestSymbols keeps Symbols in step with the package's exported names.
func TestSymbols(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	want := map[string]bool{}
	for _, f := range files {
		if filepath.Ext(f) != ".go" || len(f) > 8 && f[len(f)-8:] == "_test.go" || f == "symbols.go" {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for name, obj := range af.Scope.Objects {
			if ast.IsExported(name) && obj.Kind != ast.Var && name != "ImportPath" && name != "OSPath" {
				want[name] = true
			}
		}
	}
	got := Symbols[ImportPath+"/shim"]
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("Symbols lacks %s", name)
		}
	}
	for name := range got {
		if !want[name] {
			t.Errorf("Symbols has %s, which the package does not declare", name)
		}
	}
}
