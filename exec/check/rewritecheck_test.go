package check

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	iofs "io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/mcpfs/mcpfs/exec/internal/shim"
)

var (
	shimOnce sync.Once
	shimPkg  *types.Package
	shimErr  error
)

// shimImporter adds the rewrite's compiled helpers (exec/internal/shim,
// type-checked from its source (not symbols.go) with the toolchain's export data) to imp.
type shimImporter struct{ imp types.Importer }

func (s shimImporter) Import(p string) (*types.Package, error) {
	if p != shimPath {
		return s.imp.Import(p)
	}
	shimOnce.Do(func() {
		fset := token.NewFileSet()
		var files []*ast.File
		for _, name := range []string{"fmt.go", "panic.go", "json.go", "errors.go"} {
			f, err := parser.ParseFile(fset, "../internal/shim/"+name, nil, 0)
			if err != nil {
				shimErr = err
				return
			}
			files = append(files, f)
		}
		conf := types.Config{Importer: importer.Default()}
		shimPkg, shimErr = conf.Check(shimPath, fset, files, nil)
	})
	return shimPkg, shimErr
}

// typeCheckRewrite type-checks a rewritten source as Go: the rewrite must
// stay valid Go, not only something the interpreter accepts.
func typeCheckRewrite(src []byte, tree iofs.FS) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "rewrite.go", src, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	universe.mu.Lock()
	defer universe.mu.Unlock()
	cache := cacheFor(tree)
	var errs []string
	conf := types.Config{Importer: shimImporter{cache}, Error: func(err error) { errs = append(errs, err.Error()) }}
	conf.Check("main", fset, []*ast.File{f}, nil)
	if len(errs) > 0 {
		return &Error{Msg: strings.Join(errs, "\n")}
	}
	return nil
}

func TestShimPath(t *testing.T) {
	if shimPath != shim.ImportPath {
		t.Fatalf("shimPath is %q, shim.ImportPath %q", shimPath, shim.ImportPath)
	}
}
