package check

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	iofs "io/fs"
	"strings"
)

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
	conf := types.Config{Importer: cache, Error: func(err error) { errs = append(errs, err.Error()) }}
	conf.Check("main", fset, []*ast.File{f}, nil)
	if len(errs) > 0 {
		return &Error{Msg: strings.Join(errs, "\n")}
	}
	return nil
}
