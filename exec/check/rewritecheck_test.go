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
	if p == osPath {
		return stdioPackage()
	}
	if p != shimPath {
		return s.imp.Import(p)
	}
	return loadShim()
}

var (
	stdioOnce sync.Once
	stdioPkg  *types.Package
	stdioErr  error
)

// stdioPackage is what the rewrite imports for os (osPath), as the
// worker's shim.OSSymbols gives it: Stdout, Stderr and their type File.
func stdioPackage() (*types.Package, error) {
	stdioOnce.Do(func() {
		sp, err := loadShim()
		if err != nil {
			stdioErr = err
			return
		}
		file := sp.Scope().Lookup("File").(*types.TypeName)
		pkg := types.NewPackage(osPath, "os")
		pkg.Scope().Insert(types.NewTypeName(token.NoPos, pkg, "File", file.Type()))
		for _, name := range []string{"Stdout", "Stderr"} {
			pkg.Scope().Insert(types.NewVar(token.NoPos, pkg, name, types.NewPointer(file.Type())))
		}
		pkg.MarkComplete()
		stdioPkg = pkg
	})
	return stdioPkg, stdioErr
}

func loadShim() (*types.Package, error) {
	shimOnce.Do(func() {
		fset := token.NewFileSet()
		var files []*ast.File
		for _, name := range []string{"fmt.go", "panic.go", "json.go", "errors.go", "stdio.go"} {
			f, err := parser.ParseFile(fset, "../internal/shim/"+name, nil, 0)
			if err != nil {
				shimErr = err
				return
			}
			files = append(files, f)
		}
		conf := types.Config{Importer: osfileImporter{fset: fset, imp: importer.Default()}}
		shimPkg, shimErr = conf.Check(shimPath, fset, files, nil)
	})
	return shimPkg, shimErr
}

// osfileImporter adds the shim's package of os.File (exec/internal/shim/
// osfile, type-checked from its source) to imp.
type osfileImporter struct {
	fset *token.FileSet
	imp  types.Importer
}

func (o osfileImporter) Import(p string) (*types.Package, error) {
	if p != "github.com/mcpfs/mcpfs/exec/internal/shim/osfile" {
		return o.imp.Import(p)
	}
	f, err := parser.ParseFile(o.fset, "../internal/shim/osfile/file.go", nil, 0)
	if err != nil {
		return nil, err
	}
	conf := types.Config{Importer: o.imp}
	return conf.Check(p, o.fset, []*ast.File{f}, nil)
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
	if osPath != shim.OSPath {
		t.Fatalf("osPath is %q, shim.OSPath %q", osPath, shim.OSPath)
	}
}
