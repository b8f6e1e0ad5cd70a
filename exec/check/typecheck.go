package check

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// GoVersion is the Go language version snippets are checked at; the
// tree's go.mod (fs/gen.GoMod) says the same.
const GoVersion = "go1.26"

// newInfo returns a types.Info that records all the rewrite needs.
func newInfo() *types.Info {
	return &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Implicits:  map[ast.Node]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Instances:  map[*ast.Ident]types.Instance{},
		Scopes:     map[ast.Node]*types.Scope{},
	}
}

// typeCheck runs go/types over the snippet and turns its errors into
// Errors with hints.
func (c *checker) typeCheck() {
	c.info = newInfo()
	var terrs []types.Error
	conf := types.Config{
		GoVersion: GoVersion,
		Importer:  c.cache,
		Error: func(err error) {
			var te types.Error
			if errors.As(err, &te) && len(terrs) < 4*maxErrors {
				terrs = append(terrs, te)
			}
		},
	}
	c.pkg, _ = conf.Check("main", c.fset, []*ast.File{c.file}, c.info)
	if len(terrs) == 0 {
		return
	}
	nodes := map[token.Pos][]ast.Node{}
	ast.Inspect(c.file, func(n ast.Node) bool {
		if n != nil {
			nodes[n.Pos()] = append(nodes[n.Pos()], n)
		}
		return true
	})
	parents := parentsOf(c.file)
	var last *Error
	for _, te := range terrs {
		if strings.HasPrefix(te.Msg, "\t") && last != nil {
			// A continuation of the error before ("\tprevious case",
			// "\tother declaration of x"): said there, with its line, so
			// that the list starts at the line to change, not at the
			// earlier one it refers to.
			p := c.position(te.Pos)
			last.Msg += " (" + strings.TrimSpace(te.Msg) + " at line " + strconv.Itoa(p.Line) + ")"
			continue
		}
		hint := safeHint(func() string { return c.hintFor(te, nodes[te.Pos], parents) })
		if hint == "" {
			hint = safeHint(func() string { return c.repairHint(te, nodes[te.Pos], parents) })
		}
		last = &Error{Pos: c.position(te.Pos), Msg: te.Msg, Hint: hint}
		c.errs = append(c.errs, last)
	}
}

// hintFor explains a type error about the tree's packages.
func (c *checker) hintFor(te types.Error, at []ast.Node, parents map[ast.Node]ast.Node) string {
	if h := c.stdHint(te, at, parents); h != "" {
		return h
	}
	for _, n := range at {
		id, ok := n.(*ast.Ident)
		if !ok {
			continue
		}
		parent := parents[id]
		// pkg.Name that the package does not declare.
		if sel, ok := parent.(*ast.SelectorExpr); ok && sel.Sel == id {
			if x, ok := sel.X.(*ast.Ident); ok {
				if pn, ok := c.info.Uses[x].(*types.PkgName); ok {
					lit, isLit := parents[sel].(*ast.CompositeLit)
					if h := c.memberHint(pn.Imported(), id.Name, isLit && lit.Type == sel || inTypePosition(sel, parents)); h != "" {
						return h
					}
					return c.stdMemberHint(pn.Imported(), id.Name)
				}
			}
			if h := c.typeMemberHint(sel); h != "" {
				return h
			}
			if h := c.stringMethodHint(sel); h != "" {
				return h
			}
			if h := c.interfaceMemberHint(sel); h != "" {
				return h
			}
			if h := c.noMethodsHint(sel, parents); h != "" {
				return h
			}
			if h := c.decodeHint(sel); h != "" {
				if f := fieldsHint(c.info.Types[sel.X].Type, c.qualifier, id.Name); f != "" {
					h += "\n" + f
				}
				return h
			}
			if tv, ok := c.info.Types[sel.X]; ok && tv.Type != nil {
				if h := fieldsHint(tv.Type, c.qualifier, id.Name); h != "" {
					return h
				}
			}
		}
		// Key of a struct literal that the struct lacks.
		if kv, ok := parent.(*ast.KeyValueExpr); ok && kv.Key == id {
			if lit, ok := parents[kv].(*ast.CompositeLit); ok {
				if h := c.promotedFieldHint(lit, id.Name); h != "" {
					return h
				}
				if tv, ok := c.info.Types[lit]; ok && tv.Type != nil {
					return fieldsHint(tv.Type, c.qualifier, id.Name)
				}
			}
		}
		// A tree package used without its import.
		if strings.HasPrefix(te.Msg, "undefined: ") && c.info.Uses[id] == nil {
			for _, p := range c.treePackages() {
				if path.Base(p) == id.Name {
					return `add import "` + p + `"`
				}
			}
			for _, p := range c.allowed {
				if path.Base(p) == id.Name {
					return `add import "` + p + `"` + iterUseNote(id, parents)
				}
			}
			// A function of a standard package called without its
			// package name: Sprintf.
			if token.IsExported(id.Name) {
				var in []string
				for _, p := range c.allowed {
					pkg, err := c.cache.Import(p)
					if err != nil {
						continue
					}
					if _, ok := pkg.Scope().Lookup(id.Name).(*types.Func); ok {
						in = append(in, pkg.Name()+"."+id.Name+` (import "`+p+`")`)
					}
				}
				if len(in) > 0 && len(in) <= 4 {
					return "write " + strings.Join(in, ", or ")
				}
			}
			if h := c.lowerStdHint(id, parents); h != "" {
				return h
			}
			if h := c.scopedHint(id); h != "" {
				return h
			}
			if h := c.nearNameHint(id); h != "" {
				return h
			}
		}
	}
	return c.typeErrorHint(te, at, parents)
}

// memberHint lists what pkg declares, closest to name first: its
// functions and its types with their fields, the kind that is wanted (a
// type in a composite literal, or a name that looks like one) first.
func (c *checker) memberHint(pkg *types.Package, name string, wantType bool) string {
	if !strings.HasPrefix(pkg.Path(), treePrefix) {
		return ""
	}
	var funcs, typs, consts []string
	fields := map[string]string{}
	for _, n := range pkg.Scope().Names() {
		obj := pkg.Scope().Lookup(n)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			consts = append(consts, n)
		case *types.Func:
			funcs = append(funcs, n)
		case *types.TypeName:
			typs = append(typs, n)
			if st, ok := obj.Type().Underlying().(*types.Struct); ok {
				var fs []string
				for i := 0; i < st.NumFields() && i < 6; i++ {
					if f := st.Field(i); f.Exported() {
						fs = append(fs, f.Name()+" "+types.TypeString(f.Type(), func(p *types.Package) string {
							if p == pkg {
								return ""
							}
							return p.Name()
						}))
					}
				}
				if st.NumFields() > 6 {
					fs = append(fs, "...")
				}
				fields[n] = "{" + strings.Join(fs, ", ") + "}"
			}
		}
	}
	dir := strings.TrimPrefix(pkg.Path(), treePrefix)
	var withFields []string
	// A guessed short name is most often the end of the generated one
	// (Hit for SearchResultHit): those first, closest first.
	near := closest(name, typs)
	sort.SliceStable(near, func(i, j int) bool {
		return strings.HasSuffix(near[i], name) && !strings.HasSuffix(near[j], name)
	})
	for i, t := range near {
		if i < 5 {
			t += fields[t] // the closest with their fields
		}
		withFields = append(withFields, t)
	}
	typeLine := "types of " + pkg.Path() + ": " + strings.Join(withFields, ", ")
	// One name that the wrong one holds or is held in (Float for
	// Float64, String for StringPtr) is said first, in a sentence.
	lead := ""
	if !wantType {
		var held []string
		ln := strings.ToLower(name)
		for _, f := range funcs {
			lf := strings.ToLower(f)
			if len(lf) >= 3 && (strings.HasPrefix(ln, lf) || strings.HasPrefix(lf, ln)) {
				held = append(held, f)
			}
		}
		if len(held) == 1 {
			lead = "did you mean " + pkg.Name() + "." + held[0] + "?\n"
		}
	}
	funcLine := "functions of " + pkg.Path() + ": " + strings.Join(closestBy(name, funcs, func(fn string) []string { return relatedWords(pkg, fn) }), ", ")
	if len(funcs) == 0 {
		return typeLine + "\n(cat " + dir + "/*.go to see them)"
	}
	if len(consts) > 0 && !wantType && strings.Contains(strings.ToLower(closest(name, consts)[0]), strings.ToLower(name)) {
		// A constant that holds the name: an enum value guessed
		// (ModeWord for SearchModeWord).
		near := closest(name, consts)
		if len(near) > 6 {
			near = near[:6]
		}
		return "constants of " + pkg.Path() + ": " + strings.Join(near, ", ") + "\n" + funcLine + "\n" + typeLine + "\n(cat " + dir + "/*.go to see them)"
	}
	if wantType || strings.Contains(name, "Arg") || strings.HasSuffix(name, "Result") {
		return typeLine + "\n" + funcLine + "\n(cat " + dir + "/*.go to see them)"
	}
	return lead + funcLine + "\n" + typeLine + "\n(cat " + dir + "/doc.go lists the functions, " + dir + "/*.go the types)"
}

// fieldsHint lists the fields of a struct type (through a pointer),
// closest to near first, and its methods.
func fieldsHint(t types.Type, q types.Qualifier, near string) string {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return ""
	}
	byName := map[string]string{}
	var names []string
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Exported() && f.Pkg() != nil && f.Pkg().Path() != "main" {
			continue
		}
		names = append(names, f.Name())
		byName[f.Name()] = f.Name() + " " + types.TypeString(f.Type(), q)
	}
	if near != "" && len(names) > 1 {
		// The fields like near first, closest first; the others in
		// their declared order.
		var like, rest []string
		for _, n := range closest(near, names) {
			if alike(near, n) {
				like = append(like, n)
			}
		}
		for _, n := range names {
			if !slices.Contains(like, n) {
				rest = append(rest, n)
			}
		}
		names = append(like, rest...)
	}
	var fields []string
	for _, n := range names {
		if f, ok := byName[n]; ok {
			fields = append(fields, f)
		}
	}
	var methods []string
	ms := types.NewMethodSet(types.NewPointer(t))
	for i := 0; i < ms.Len(); i++ {
		if fn := ms.At(i).Obj(); fn.Exported() {
			methods = append(methods, fn.Name()+strings.TrimPrefix(types.TypeString(fn.Type(), q), "func"))
		}
	}
	h := "fields of " + types.TypeString(t, q) + ": " + strings.Join(fields, ", ")
	if len(fields) == 0 {
		h = types.TypeString(t, q) + " has no fields"
	}
	if len(methods) > 0 {
		h += "\nmethods of " + types.TypeString(t, q) + ": " + strings.Join(methods, ", ")
	}
	return h
}

// relatedWords returns more words for the function fn of pkg: the fields
// of its struct parameter and the constants of their types (update_issue
// has a state that can be "closed").
func relatedWords(pkg *types.Package, fn string) []string {
	f, ok := pkg.Scope().Lookup(fn).(*types.Func)
	if !ok {
		return nil
	}
	sig := f.Type().(*types.Signature)
	if sig.Params().Len() != 1 {
		return nil
	}
	st, ok := sig.Params().At(0).Type().Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	var words []string
	for i := 0; i < st.NumFields(); i++ {
		fld := st.Field(i)
		words = append(words, camelWords(fld.Name())...)
		if named, ok := fld.Type().(*types.Named); ok {
			for _, k := range constantsOf(named) {
				words = append(words, camelWords(strings.TrimPrefix(k, named.Obj().Name()))...)
			}
		}
	}
	return words
}

// qualifier names packages as the snippet does: by package name, and
// nothing for the snippet itself.
func (c *checker) qualifier(p *types.Package) string {
	if p == c.pkg || p.Path() == "main" {
		return ""
	}
	return p.Name()
}

// inTypePosition reports whether x stands where a type is written: a
// parameter, field or variable's type, or a slice, map, pointer or
// channel type's element.
func inTypePosition(x ast.Expr, parents map[ast.Node]ast.Node) bool {
	switch p := parents[x].(type) {
	case *ast.Field:
		return p.Type == x
	case *ast.ValueSpec:
		return p.Type == x
	case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.StarExpr, *ast.Ellipsis:
		return true
	}
	return false
}

// safeHint runs a hint rule; a rule that fails on a shape of code it did
// not foresee gives no hint rather than hiding the error itself.
func safeHint(rule func() string) (h string) {
	defer func() {
		if recover() != nil {
			h = ""
		}
	}()
	return rule()
}

// iterUseNote: maps.Keys or maps.Values (iterators) written where a slice
// seems meant (kept in a variable, passed to a function outside slices):
// the import alone leads to the next error, so say how to get a slice.
func iterUseNote(id *ast.Ident, parents map[ast.Node]ast.Node) string {
	sel, ok := parents[id].(*ast.SelectorExpr)
	if !ok || id.Name != "maps" || (sel.Sel.Name != "Keys" && sel.Sel.Name != "Values") {
		return ""
	}
	call, ok := parents[sel].(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return ""
	}
	switch p := parents[call].(type) {
	case *ast.RangeStmt:
		return ""
	case *ast.CallExpr:
		if f, ok := p.Fun.(*ast.SelectorExpr); ok {
			if x, ok := f.X.(*ast.Ident); ok && (x.Name == "slices" || x.Name == "maps") {
				return ""
			}
		}
	}
	return fmt.Sprintf("; maps.%s returns an iterator (iter.Seq), not a slice: for a sorted slice write slices.Sorted(maps.%s(...)), for a slice slices.Collect(maps.%s(...)) (import \"slices\")", sel.Sel.Name, sel.Sel.Name, sel.Sel.Name)
}

// parentsOf maps every node under root to the node that holds it.
func parentsOf(root ast.Node) map[ast.Node]ast.Node {
	parents := map[ast.Node]ast.Node{}
	var stack []ast.Node
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if len(stack) > 0 {
			parents[n] = stack[len(stack)-1]
		}
		stack = append(stack, n)
		return true
	})
	return parents
}
