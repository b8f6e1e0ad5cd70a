package check

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"
)

// edit replaces src[start:end] with text. Edits never overlap; an
// insertion has start == end.
type edit struct {
	start, end int
	text       string
}

// rewriter turns the type-checked snippet into Go that yaegi v0.16.1 runs
// with the same result. Every change stays on the line of the code it
// replaces; helper functions go at the end of the file.
type rewriter struct {
	*checker
	edits     []edit
	n         int                              // counter for fresh names
	helpers   map[string]string                // helper key → name
	defs      []string                         // helper declarations, in order
	local     map[string]string                // package path → name in the snippet
	added     []string                         // imports added for helper types: `name "path"`
	skip      map[ast.Node]bool                // calls already rewritten as part of another
	gone      map[*ast.Ident]bool              // package members whose uses were rewritten away
	named     map[string]bool                  // import paths that added code names
	tag       string                           // in fresh names: tells apart the files of one package
	called    map[ast.Expr]bool                // the function expressions of calls
	defers    []*ast.DeferStmt                 // rewritten last: see deferStmt
	tps       *[]*types.TypeParam              // when set, typeName collects type parameters here
	jsonCands *[]types.Type                    // see jsonCandidates
	dyn       map[string][]types.Type          // interface → the snippet's types fmt needs converted
	hoisted   map[*types.TypeName]*ast.GenDecl // types declared in a function, moved to package level (see hoist)
}

func (c *checker) rewrite() []byte { return c.rewriteTagged("") }

// rewriteTagged is rewrite with tag in the names it adds, so that the
// files of one package do not declare the same helper name.
func (c *checker) rewriteTagged(tag string) []byte {
	r := &rewriter{checker: c, tag: tag, helpers: map[string]string{}, local: map[string]string{}, skip: map[ast.Node]bool{}, gone: map[*ast.Ident]bool{}, named: map[string]bool{}, called: map[ast.Expr]bool{}}
	for _, im := range c.file.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := ""
		if im.Name != nil {
			name = im.Name.Name
		} else if pn, ok := c.info.Implicits[im].(*types.PkgName); ok {
			name = pn.Name()
		}
		r.local[p] = name
	}
	r.osImport()
	r.iterImport()
	r.walk(c.file, nil)
	if len(c.errs) > 0 {
		return nil
	}
	for i := len(r.defers) - 1; i >= 0; i-- {
		r.deferStmt(r.defers[i]) // innermost first
	}
	r.blankUnused()
	return r.apply()
}

// osImport imports, in place of os, the package of the worker that holds
// os.Stdout and os.Stderr (osPath), under the snippet's name for os: the
// check let nothing else of os through.
func (r *rewriter) osImport() {
	for _, im := range r.file.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p != "os" {
			continue
		}
		text := strconv.Quote(osPath)
		if im.Name == nil {
			text = "os " + text
		}
		r.replace(im.Path.Pos(), im.Path.End(), text)
	}
}

// blankUnused turns the imports whose every use was rewritten away into
// blank imports, so that the rewrite stays valid Go.
func (r *rewriter) blankUnused() {
	used := map[types.Object]bool{}
	ast.Inspect(r.file, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok {
			if pn, ok := r.info.Uses[x].(*types.PkgName); ok && !r.gone[sel.Sel] {
				used[pn] = true
			}
		}
		return true
	})
	for _, im := range r.file.Imports {
		obj := r.info.Implicits[im]
		if im.Name != nil {
			obj = r.info.Defs[im.Name]
		}
		pn, ok := obj.(*types.PkgName)
		if !ok || used[pn] || r.named[pn.Imported().Path()] {
			continue
		}
		if im.Name != nil {
			r.replace(im.Name.Pos(), im.Name.End(), "_")
		} else {
			r.insert(im.Path.Pos(), "_ ")
		}
	}
}

// consume records that call's function no longer appears in the rewrite.
func (r *rewriter) consume(call *ast.CallExpr) {
	if id := calleeIdent(call.Fun); id != nil {
		r.gone[id] = true
	}
}

func (r *rewriter) fresh(kind string) string {
	r.n++
	return fmt.Sprintf("%s%s_%s%d", reservedPrefix, r.tag, kind, r.n)
}

func (r *rewriter) off(p token.Pos) int { return r.fset.File(p).Offset(p) }

func (r *rewriter) replace(from, to token.Pos, text string) {
	r.edits = append(r.edits, edit{r.off(from), r.off(to), text})
}

func (r *rewriter) insert(at token.Pos, text string) {
	r.edits = append(r.edits, edit{r.off(at), r.off(at), text})
}

func (r *rewriter) apply() []byte {
	r.moveHoisted()
	sort.SliceStable(r.edits, func(i, j int) bool { return r.edits[i].start < r.edits[j].start })
	var b strings.Builder
	last := 0
	for _, e := range r.edits {
		if e.start < last {
			// Overlapping edits would be a bug in the rewriter; keep the
			// first, which covers the outer construct.
			continue
		}
		b.Write(r.src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(r.src[last:])
	out := b.String()
	if len(r.added) > 0 {
		// After the package clause, on its line: line numbers stay.
		at := r.off(r.file.Name.End())
		shift := 0
		for _, e := range r.edits {
			if e.start < at {
				shift += len(e.text) - (e.end - e.start)
			}
		}
		at += shift
		var imp strings.Builder
		for _, a := range r.added {
			imp.WriteString("; import " + a)
		}
		out = out[:at] + imp.String() + out[at:]
	}
	if len(r.defs) > 0 {
		if !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += "\n// Added by mcpfs: the interpreter lacks these.\n" + strings.Join(r.defs, "\n")
	}
	return []byte(out)
}

// helper returns the name of the helper with the given key, declaring it
// with decl(name) the first time.
func (r *rewriter) helper(key, kind string, decl func(name string) string) string {
	if name, ok := r.helpers[key]; ok {
		return name
	}
	name := r.fresh(kind)
	r.helpers[key] = name
	r.defs = append(r.defs, decl(name))
	return name
}

// collectTypeParams runs f with typeName accepting the type parameters of
// the enclosing generic function, and returns those it met.
func (r *rewriter) collectTypeParams(f func()) []*types.TypeParam {
	outer := r.tps
	var tps []*types.TypeParam
	r.tps = &tps
	f()
	r.tps = outer
	if outer != nil {
		for _, t := range tps {
			found := false
			for _, o := range *outer {
				found = found || o == t
			}
			if !found {
				*outer = append(*outer, t)
			}
		}
	}
	return tps
}

// genericHelper is helper for a helper whose types mention the type
// parameters tps of the enclosing generic function: the helper is itself
// generic over them (same names, same constraints) and the returned text
// instantiates it explicitly (the interpreter infers type arguments only
// partly).
func (r *rewriter) genericHelper(key, kind string, tps []*types.TypeParam, decl func(name string) string) string {
	if len(tps) == 0 {
		return r.helper(key, kind, decl)
	}
	params := make([]string, len(tps))
	names := make([]string, len(tps))
	for i, tp := range tps {
		names[i] = tp.Obj().Name()
		params[i] = names[i] + " " + types.TypeString(tp.Constraint(), r.qualify)
	}
	list := strings.Join(params, ", ")
	name := r.helper(key+" ["+list+"]", kind, func(f string) string {
		return strings.Replace(decl(f), "func "+f+"(", "func "+f+"["+list+"](", 1)
	})
	return name + "[" + strings.Join(names, ", ") + "]"
}

// typeName writes t as the snippet can name it at package level, or
// reports why it cannot (at pos) and returns "".
func (r *rewriter) typeName(t types.Type, pos token.Pos) string {
	ok := true
	var visit func(t types.Type)
	seen := map[types.Type]bool{}
	visit = func(t types.Type) {
		if seen[t] || !ok {
			return
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.TypeParam:
			if r.tps != nil {
				// A helper generic over it (see genericHelper).
				for _, p := range *r.tps {
					if p == t {
						return
					}
				}
				*r.tps = append(*r.tps, t)
				return
			}
			r.errorf(pos, "call it outside the generic function, or write the loop by hand", "the interpreter cannot run this here: it needs a helper for type parameter %s", t.Obj().Name())
			ok = false
		case *types.Named:
			obj := t.Obj()
			if obj.Pkg() != nil && obj.Parent() != obj.Pkg().Scope() && !r.hoist(obj) {
				r.errorf(pos, "declare type "+obj.Name()+" at package level (outside func)", "the interpreter cannot run this with a type declared inside a function (%s)", obj.Name())
				ok = false
				return
			}
			if ta := t.TypeArgs(); ta != nil {
				for i := 0; i < ta.Len(); i++ {
					visit(ta.At(i))
				}
			}
		case *types.Alias:
			visit(types.Unalias(t))
		case *types.Pointer:
			visit(t.Elem())
		case *types.Slice:
			visit(t.Elem())
		case *types.Array:
			visit(t.Elem())
		case *types.Map:
			visit(t.Key())
			visit(t.Elem())
		case *types.Chan:
			visit(t.Elem())
		case *types.Signature:
			for i := 0; i < t.Params().Len(); i++ {
				visit(t.Params().At(i).Type())
			}
			for i := 0; i < t.Results().Len(); i++ {
				visit(t.Results().At(i).Type())
			}
		case *types.Struct:
			for i := 0; i < t.NumFields(); i++ {
				visit(t.Field(i).Type())
			}
		}
	}
	visit(t)
	if !ok {
		return ""
	}
	return types.TypeString(t, r.qualify)
}

// qualify names a package as the snippet (or an added import) does.
func (r *rewriter) qualify(p *types.Package) string {
	if p == r.pkg {
		return ""
	}
	r.named[p.Path()] = true
	if name, ok := r.local[p.Path()]; ok && name != "_" {
		if name == "." {
			return ""
		}
		return name
	}
	name := r.fresh("p")
	r.local[p.Path()] = name
	r.added = append(r.added, name+" "+strconv.Quote(p.Path()))
	r.imports[p.Path()] = true
	return name
}

// walk visits n with the stack of enclosing nodes.
func (r *rewriter) walk(n ast.Node, stack []ast.Node) {
	if n == nil || r.skip[n] {
		return
	}
	if r.iterType(n) || r.instExpr(n, stack) {
		return
	}
	switch n := n.(type) {
	case *ast.RangeStmt:
		r.rangeStmt(n, stack)
	case *ast.ForStmt:
		r.forStmt(n, stack)
	case *ast.FuncDecl:
		r.zeroResults(n.Type, n.Body)
	case *ast.FuncLit:
		r.zeroResults(n.Type, n.Body)
	case *ast.CallExpr:
		r.called[ast.Unparen(n.Fun)] = true
		r.call(n)
	case *ast.SelectorExpr:
		r.promotedIfaceSel(n)
		r.methodSel(n)
	case *ast.TypeAssertExpr:
		r.commaOkIface(n)
		r.emptyIfaceAssert(n)
	case *ast.TypeSwitchStmt:
		r.typeSwitch(n)
		r.typeSwitchBind(n)
	case *ast.IndexExpr:
		r.indexExpr(n, stack)
	case *ast.SliceExpr:
		r.sliceExpr(n)
	case *ast.BinaryExpr:
		r.shiftConst(n)
	case *ast.DeferStmt:
		r.defers = append(r.defers, n)
	}
	stack = append(stack, n)
	ast.Inspect(n, func(m ast.Node) bool {
		if m == n {
			return true
		}
		if m != nil {
			r.walk(m, stack)
		}
		return false
	})
}

// rangeStmt rewrites range over an integer and over the iterator functions
// it can, refuses other function iterators, and gives range variables
// per-iteration copies where a closure or pointer could tell.
func (r *rewriter) rangeStmt(s *ast.RangeStmt, stack []ast.Node) {
	tv := r.info.Types[s.X]
	if tv.Type == nil {
		return
	}
	switch u := tv.Type.Underlying().(type) {
	case *types.Basic:
		if u.Info()&types.IsInteger != 0 {
			r.rangeInt(s, tv)
		} else if s.Tok == token.ASSIGN {
			r.rangeAssign(s)
		}
		return
	case *types.Signature:
		r.rangeFunc(s, stack)
		return
	case *types.Slice:
		if _, isChan := u.Elem().Underlying().(*types.Chan); isChan {
			r.rangeIndexed(s)
			return
		}
	case *types.Array:
		if _, isChan := u.Elem().Underlying().(*types.Chan); isChan {
			r.rangeIndexed(s)
			return
		}
	}
	if s.Tok == token.ASSIGN {
		r.rangeAssign(s)
		return
	}
	if s.Tok != token.DEFINE {
		return
	}
	var names []string
	for _, e := range []ast.Expr{s.Key, s.Value} {
		if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
			if obj := r.info.Defs[id]; obj != nil && r.escapes(obj, s.Body) {
				names = append(names, id.Name)
			}
		}
	}
	if len(names) > 0 {
		list := strings.Join(names, ", ")
		r.insert(s.Body.Lbrace+1, " "+list+" := "+list+";")
	}
}

// rangeAssign rewrites a range that assigns to variables declared before
// it, which the interpreter gives slots of their own, so they kept their
// old values after the loop, as a range with fresh variables assigned at
// the top of each iteration:
//
//	for i, v = range xs {  →  for k1, k2 := range xs { i, v = k1, k2;
//
// Only plain variables are handled; other targets are left as they are.
func (r *rewriter) rangeAssign(s *ast.RangeStmt) {
	var heads, dsts, srcs []string
	for _, e := range []ast.Expr{s.Key, s.Value} {
		if e == nil {
			continue
		}
		id, ok := e.(*ast.Ident)
		if !ok {
			return
		}
		if id.Name == "_" {
			heads = append(heads, "_")
			continue
		}
		v := r.fresh("k")
		heads = append(heads, v)
		dsts = append(dsts, id.Name)
		srcs = append(srcs, v)
	}
	if len(dsts) == 0 {
		return
	}
	r.replace(s.Key.Pos(), s.TokPos+1, strings.Join(heads, ", ")+" :=")
	r.insert(s.Body.Lbrace+1, " "+strings.Join(dsts, ", ")+" = "+strings.Join(srcs, ", ")+";")
}

// rangeIndexed rewrites range over a slice or array of channels, which
// the interpreter mistakes for a range over a channel, as an indexed loop
// that evaluates the operand once; the range variables are fresh in each
// iteration:
//
//	for i, c := range chs {  →  for x, n := chs, 0; n < len(x); n++ { i := n; c := x[n];
func (r *rewriter) rangeIndexed(s *ast.RangeStmt) {
	x, n := r.fresh("x"), r.fresh("n")
	var body []string
	tok := " = "
	if s.Tok == token.DEFINE {
		tok = " := "
	}
	for i, e := range []ast.Expr{s.Key, s.Value} {
		if e == nil {
			continue
		}
		if id, ok := e.(*ast.Ident); ok && id.Name == "_" {
			continue
		}
		val := n
		if i == 1 {
			val = x + "[" + n + "]"
		}
		text := r.text(e)
		if strings.Contains(text, "\n") {
			return
		}
		body = append(body, text+tok+val+";")
	}
	r.replace(s.For, s.X.Pos(), "for "+x+", "+n+" := ")
	r.replace(s.X.End(), s.Body.Lbrace+1, ", 0; "+n+" < len("+x+"); "+n+"++ { "+strings.Join(body, " "))
}

// rangeInt rewrites `for i := range n` as a three-clause loop over a hidden
// counter; i is a fresh copy in each iteration, as in Go 1.22.
func (r *rewriter) rangeInt(s *ast.RangeStmt, tv types.TypeAndValue) {
	t := tv.Type
	if s.Key != nil {
		if kt := r.info.TypeOf(s.Key); kt != nil {
			t = kt
		}
	}
	if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		t = types.Typ[types.Int]
	}
	tn := r.typeName(t, s.X.Pos())
	if tn == "" {
		return
	}
	i, n := r.fresh("i"), r.fresh("n")
	r.replace(s.For, s.X.Pos(), fmt.Sprintf("for %s, %s := %s(0), %s(", i, n, tn, tn))
	body := ""
	if id, ok := s.Key.(*ast.Ident); !ok || id.Name != "_" {
		switch {
		case s.Key == nil:
		case s.Tok == token.DEFINE:
			body = fmt.Sprintf(" %s := %s;", s.Key.(*ast.Ident).Name, i)
		default:
			// An assignment target: written at the start of each iteration.
			r.replace(s.X.End(), s.Body.Lbrace+1, fmt.Sprintf("); %s < %s; %s++ {", i, n, i))
			r.insertExprAssign(s, i)
			return
		}
	}
	r.replace(s.X.End(), s.Body.Lbrace+1, fmt.Sprintf("); %s < %s; %s++ {%s", i, n, i, body))
}

// insertExprAssign handles `for x = range n` where x is any assignable
// expression: its text is kept in place and moved into the body.
func (r *rewriter) insertExprAssign(s *ast.RangeStmt, i string) {
	start, end := r.off(s.Key.Pos()), r.off(s.Key.End())
	key := string(r.src[start:end])
	if strings.Contains(key, "\n") {
		r.errorf(s.Key.Pos(), "write the range variable on one line", "the interpreter cannot run this multi-line range variable")
		return
	}
	// The header's replacement (For..X) dropped the key; it is assigned at
	// the top of the body instead.
	r.insert(s.Body.Lbrace+1, " "+key+" = "+i+";")
}

// rangeFunc rewrites range over maps.Keys, maps.Values, maps.All,
// slices.Values and slices.All; anything else is refused.
func (r *rewriter) rangeFunc(s *ast.RangeStmt, stack []ast.Node) {
	call, ok := ast.Unparen(s.X).(*ast.CallExpr)
	fn := r.stdFunc(call)
	hint := "the interpreter cannot range over functions (iterators): collect the values into a slice and range over it, e.g. `for _, k := range keys` after appending the keys to keys in a loop"
	switch fn {
	case "maps.Keys", "maps.Values", "maps.All", "slices.All", "slices.Values":
	default:
		ok = false
	}
	if !ok || len(call.Args) != 1 {
		if !r.rangeOverFunc(s, stack) {
			r.errorf(s.X.Pos(), hint, "range over function iterators is not supported in snippets")
		}
		return
	}
	arg := call.Args[0]
	key, val := "_", "_"
	if s.Key != nil {
		key = r.text(s.Key)
	}
	if s.Value != nil {
		val = r.text(s.Value)
	}
	tok := "="
	if s.Tok == token.DEFINE {
		tok = ":="
	}
	var head string
	switch fn {
	case "maps.Keys":
		head = key + ", _ " + tok
		if s.Key == nil {
			head = ""
		}
	case "maps.All", "slices.All":
		head = key + ", " + val + " " + tok
		if s.Value == nil {
			head = key + " " + tok
		}
		if s.Key == nil {
			head = ""
		}
	case "slices.Values":
		head = "_, " + key + " " + tok
		if s.Key == nil {
			head = ""
		}
	case "maps.Values":
		head = "_, " + key + " " + tok
		if s.Key == nil {
			head = ""
		}
	default:
		r.errorf(s.X.Pos(), hint, "range over %s is not supported in snippets", fn)
		return
	}
	if head == "" {
		r.replace(s.For, arg.Pos(), "for range ")
	} else {
		r.replace(s.For, arg.Pos(), "for "+head+" range ")
	}
	r.replace(arg.End(), s.X.End(), "")
	r.skip[call] = true
	r.consume(call)
	// Keep the per-iteration copies of defined variables.
	if s.Tok == token.DEFINE {
		var names []string
		for _, e := range []ast.Expr{s.Key, s.Value} {
			if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
				if obj := r.info.Defs[id]; obj != nil && r.escapes(obj, s.Body) {
					names = append(names, id.Name)
				}
			}
		}
		if len(names) > 0 {
			list := strings.Join(names, ", ")
			r.insert(s.Body.Lbrace+1, " "+list+" := "+list+";")
		}
	}
	r.walk(arg, nil)
}

func (r *rewriter) text(n ast.Node) string {
	return string(r.src[r.off(n.Pos()):r.off(n.End())])
}

// stdFunc returns "pkg.Name" when call calls a function of slices, maps or
// cmp.
func (r *rewriter) stdFunc(call *ast.CallExpr) string {
	if call == nil {
		return ""
	}
	id := calleeIdent(call.Fun)
	if id == nil {
		return ""
	}
	fn, ok := r.info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil {
		return ""
	}
	switch fn.Pkg().Path() {
	case "slices", "maps", "cmp":
		if fn.Type().(*types.Signature).Recv() == nil {
			return fn.Pkg().Path() + "." + fn.Name()
		}
	case "sync":
		// Go 1.21's generic helpers, which yaegi's sync lacks.
		switch fn.Name() {
		case "OnceFunc", "OnceValue", "OnceValues":
			return "sync." + fn.Name()
		}
	}
	return ""
}

// calleeIdent returns the identifier naming the function in fun, through
// selectors and explicit instantiation.
func calleeIdent(fun ast.Expr) *ast.Ident {
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		return f
	case *ast.SelectorExpr:
		return f.Sel
	case *ast.IndexExpr:
		return calleeIdent(f.X)
	case *ast.IndexListExpr:
		return calleeIdent(f.X)
	}
	return nil
}

// hoist moves the declaration of obj, a type declared inside a function,
// to package level, where a helper can name it: a helper the rewrite
// adds at the end of the file cannot see a function's types. It does so
// only when the move changes nothing else: no package-level name (nor
// another moved type) has its name, and its declaration uses only
// package-level names, imports and other types it can move (not the
// function's constants or type parameters). The declaration's lines stay,
// emptied, so that every line keeps its number.
func (r *rewriter) hoist(obj *types.TypeName) bool {
	if r.hoisted == nil {
		r.hoisted = map[*types.TypeName]*ast.GenDecl{}
	}
	if _, ok := r.hoisted[obj]; ok {
		return true
	}
	var decl *ast.GenDecl
	ast.Inspect(r.file, func(n ast.Node) bool {
		if decl != nil {
			return false
		}
		ds, ok := n.(*ast.DeclStmt)
		if !ok {
			return true
		}
		if gd, ok := ds.Decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
			for _, sp := range gd.Specs {
				if ts, ok := sp.(*ast.TypeSpec); ok && r.info.Defs[ts.Name] == obj {
					decl = gd
				}
			}
		}
		return true
	})
	if decl == nil {
		return false
	}
	var objs []*types.TypeName
	for _, sp := range decl.Specs {
		ts := sp.(*ast.TypeSpec)
		o, ok := r.info.Defs[ts.Name].(*types.TypeName)
		if !ok || ts.TypeParams != nil || r.pkg.Scope().Lookup(o.Name()) != nil {
			return false
		}
		for _, name := range r.local {
			if name == o.Name() || name == "." {
				return false
			}
		}
		for other := range r.hoisted {
			if other.Name() == o.Name() {
				return false
			}
		}
		objs = append(objs, o)
	}
	for _, o := range objs {
		r.hoisted[o] = decl
	}
	ok := true
	ast.Inspect(decl, func(n ast.Node) bool {
		id, isID := n.(*ast.Ident)
		if !isID || !ok {
			return ok
		}
		u := r.info.Uses[id]
		if u == nil {
			return true
		}
		switch u := u.(type) {
		case *types.PkgName:
			return true
		case *types.TypeName:
			if u.Parent() == types.Universe || u.Pkg() != r.pkg || u.Parent() == r.pkg.Scope() {
				return true
			}
			if _, same := r.hoisted[u]; same || r.hoist(u) {
				return true
			}
		default:
			if u.Parent() == types.Universe || u.Parent() == r.pkg.Scope() {
				return true
			}
		}
		ok = false
		return false
	})
	if !ok {
		for _, o := range objs {
			delete(r.hoisted, o)
		}
	}
	return ok
}

// moveHoisted empties the declarations hoist moved (their lines stay) and
// adds them, with the rewrite's edits inside them, at the end of the file.
func (r *rewriter) moveHoisted() {
	done := map[*ast.GenDecl]bool{}
	var decls []*ast.GenDecl
	for _, gd := range r.hoisted {
		if !done[gd] {
			done[gd] = true
			decls = append(decls, gd)
		}
	}
	sort.Slice(decls, func(i, j int) bool { return decls[i].Pos() < decls[j].Pos() })
	for _, gd := range decls {
		start, end := r.off(gd.Pos()), r.off(gd.End())
		r.defs = append(r.defs, r.render(start, end, r.edits)+"\n")
		var rest []edit
		for _, e := range r.edits {
			if e.start < start || e.end > end {
				rest = append(rest, e)
			}
		}
		r.edits = append(rest, edit{start, end, strings.Repeat("\n", strings.Count(string(r.src[start:end]), "\n"))})
	}
}
