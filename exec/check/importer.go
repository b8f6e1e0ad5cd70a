package check

import (
	"archive/zip"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	iofs "io/fs"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// stdExport is the gc export data of the allowed standard packages and
// the runtime package's imports, one deflated file per import path, made
// by `go generate ./exec/check` (internal/mkstd).
//
//go:embed stdexport.zip
var stdExport []byte

// treePrefix starts the import path of every package of the tree.
const treePrefix = "mcpfs/"

var (
	stdOnce sync.Once
	stdZip  map[string]*zip.File // import path → its export data
	stdErr  error
)

// loadStd indexes the embedded export data once; packages are unpacked
// when imported.
func loadStd() (map[string]*zip.File, error) {
	stdOnce.Do(func() {
		stdZip, stdErr = readArchive(stdExport)
	})
	return stdZip, stdErr
}

func readArchive(b []byte) (map[string]*zip.File, error) {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("read the embedded export data of the standard library (run go generate ./exec/check): %w", err)
	}
	m := make(map[string]*zip.File, len(zr.File))
	for _, f := range zr.File {
		m[f.Name] = f
	}
	return m, nil
}

// StdPackages returns the standard packages whose type information is
// embedded, sorted. Options.Allow may list only these.
func StdPackages() []string {
	m, err := loadStd()
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// universe holds what every check shares: the standard packages imported
// from export data (one set, so that types are identical across the tree
// packages and the snippet; fset holds their positions) and the tree
// packages of recent trees. The
// importers are not safe for concurrent use, so Check holds mu throughout.
var universe struct {
	mu    sync.Mutex
	fset  *token.FileSet
	std   types.Importer
	trees []*treeCache // most recently used first
}

// maxTrees bounds the trees whose packages stay type-checked.
const maxTrees = 4

// treeCache is the type-checked packages of one tree.
type treeCache struct {
	key  iofs.FS // nil when the tree's type is not comparable
	tree iofs.FS
	fset *token.FileSet // the tree's files: dropped with the cache
	pkgs map[string]*treePkg
}

// treePkg is one type-checked package of the tree, or why it failed.
type treePkg struct {
	pkg    *types.Package
	err    error
	std    []string                  // standard imports
	tree   []string                  // tree imports
	stdPos map[string]token.Position // where each standard import is
	files  []*ast.File

	// Skills only: what the rewrite for the interpreter needs, and its
	// result once made (see rewriteSkill; rewritten is nil until then).
	info        *types.Info
	srcs        [][]byte // the source of each of files
	rewritten   map[string][]byte
	rewriteErrs ErrorList
}

// cacheFor returns the cache of tree. universe.mu must be held.
func cacheFor(tree iofs.FS) *treeCache {
	if universe.fset == nil {
		universe.fset = token.NewFileSet()
		universe.std = importer.ForCompiler(universe.fset, "gc", lookupStd)
	}
	comparable := tree != nil && reflect.TypeOf(tree).Comparable()
	if comparable {
		for i, c := range universe.trees {
			if c.key == tree {
				copy(universe.trees[1:i+1], universe.trees[:i])
				universe.trees[0] = c
				return c
			}
		}
	}
	c := &treeCache{tree: tree, fset: token.NewFileSet(), pkgs: map[string]*treePkg{}}
	if comparable {
		c.key = tree
		universe.trees = append([]*treeCache{c}, universe.trees...)
		if len(universe.trees) > maxTrees {
			universe.trees = universe.trees[:maxTrees]
		}
	}
	return c
}

func lookupStd(p string) (io.ReadCloser, error) {
	m, err := loadStd()
	if err != nil {
		return nil, err
	}
	f, ok := m[p]
	if !ok {
		return nil, fmt.Errorf("standard package %q is not available to snippets and skills", p)
	}
	return f.Open()
}

// errNotFound marks an import path that names no package.
var errNotFound = errors.New("package not found")

// Import implements types.Importer over the tree and the embedded standard
// packages.
func (c *treeCache) Import(p string) (*types.Package, error) {
	if p == "os" {
		return snippetOS(), nil
	}
	if !strings.HasPrefix(p, treePrefix) {
		return universe.std.Import(p)
	}
	tp := c.load(p, nil)
	return tp.pkg, tp.err
}

// load type-checks the tree package p (once). stack detects import cycles.
func (c *treeCache) load(p string, stack []string) *treePkg {
	if tp, ok := c.pkgs[p]; ok {
		if tp == nil {
			return &treePkg{err: fmt.Errorf("import cycle: %s", strings.Join(append(stack, p), " → "))}
		}
		return tp
	}
	c.pkgs[p] = nil // in progress
	tp := c.check(p, stack)
	c.pkgs[p] = tp
	return tp
}

func (c *treeCache) check(p string, stack []string) *treePkg {
	tp := &treePkg{stdPos: map[string]token.Position{}}
	dir := strings.TrimPrefix(p, treePrefix)
	if c.tree == nil || !iofs.ValidPath(dir) {
		tp.err = fmt.Errorf("package %q: %w", p, errNotFound)
		return tp
	}
	entries, err := iofs.ReadDir(c.tree, dir)
	if err != nil {
		tp.err = fmt.Errorf("package %q: %w", p, errNotFound)
		return tp
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := iofs.ReadFile(c.tree, path.Join(dir, name))
		if err != nil {
			tp.err = fmt.Errorf("read %s: %w", path.Join(dir, name), err)
			return tp
		}
		f, err := parser.ParseFile(c.fset, path.Join(dir, name), src, parser.SkipObjectResolution)
		if err != nil {
			tp.err = fmt.Errorf("package %q does not parse: %w", p, err)
			return tp
		}
		tp.files = append(tp.files, f)
		tp.srcs = append(tp.srcs, src)
	}
	if len(tp.files) == 0 {
		tp.err = fmt.Errorf("package %q: %w (no Go files in %s)", p, errNotFound, dir)
		return tp
	}
	seen := map[string]bool{}
	for _, f := range tp.files {
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			if seen[ip] {
				continue
			}
			seen[ip] = true
			if strings.HasPrefix(ip, treePrefix) {
				tp.tree = append(tp.tree, ip)
				if dep := c.load(ip, append(stack, p)); dep.err != nil {
					tp.err = fmt.Errorf("package %q imports %q: %w", p, ip, dep.err)
					return tp
				}
			} else {
				tp.std = append(tp.std, ip)
				tp.stdPos[ip] = c.fset.Position(im.Pos())
			}
		}
	}
	sort.Strings(tp.tree)
	sort.Strings(tp.std)
	var errs []string
	conf := types.Config{
		Importer: c,
		Error: func(err error) {
			if len(errs) < 5 {
				errs = append(errs, err.Error())
			}
		},
	}
	if strings.HasPrefix(p, treePrefix+"skills/") {
		tp.info = newInfo()
	}
	pkg, _ := conf.Check(p, c.fset, tp.files, tp.info)
	if len(errs) > 0 {
		tp.err = fmt.Errorf("package %q does not type-check:\n\t%s", p, strings.Join(errs, "\n\t"))
		return tp
	}
	tp.pkg = pkg
	return tp
}

// closure returns the tree packages p needs, itself included.
func (c *treeCache) closure(p string, into map[string]bool) {
	if into[p] {
		return
	}
	into[p] = true
	if tp := c.pkgs[p]; tp != nil {
		for _, d := range tp.tree {
			c.closure(d, into)
		}
	}
}

var (
	osOnce sync.Once
	osPkg  *types.Package
)

// snippetOS is package os as snippets see it, for type-checking: Stdout
// and Stderr of type *File, whose only methods are Write and WriteString,
// as the package the rewrite imports in its place at run time
// (exec/internal/shim's OSSymbols, at osPath). The check refuses every
// other use of os before it type-checks, with what to use instead; a
// member the check does not name is undefined here.
func snippetOS() *types.Package {
	osOnce.Do(func() {
		pkg := types.NewPackage("os", "os")
		tn := types.NewTypeName(token.NoPos, pkg, "File", nil)
		file := types.NewNamed(tn, types.NewStruct(nil, nil), nil)
		ptr := types.NewPointer(file)
		results := types.NewTuple(
			types.NewVar(token.NoPos, pkg, "n", types.Typ[types.Int]),
			types.NewVar(token.NoPos, pkg, "err", types.Universe.Lookup("error").Type()))
		method := func(name string, param types.Type) *types.Func {
			recv := types.NewVar(token.NoPos, pkg, "f", ptr)
			params := types.NewTuple(types.NewVar(token.NoPos, pkg, "b", param))
			return types.NewFunc(token.NoPos, pkg, name, types.NewSignatureType(recv, nil, nil, params, results, false))
		}
		file.AddMethod(method("Write", types.NewSlice(types.Typ[types.Byte])))
		file.AddMethod(method("WriteString", types.Typ[types.String]))
		pkg.Scope().Insert(tn)
		pkg.Scope().Insert(types.NewVar(token.NoPos, pkg, "Stdout", ptr))
		pkg.Scope().Insert(types.NewVar(token.NoPos, pkg, "Stderr", ptr))
		pkg.MarkComplete()
		osPkg = pkg
	})
	return osPkg
}
