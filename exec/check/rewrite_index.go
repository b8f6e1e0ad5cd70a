package check

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
)

// indexExpr checks the index of a slice, array or string against the
// length in compiled code (shim.Index) before the interpreter indexes:
// out of range, the interpreter panics with reflect's message and no
// position, Go with "index out of range [i] with length n". The panic
// then carries Go's message and the snippet's line.
func (r *rewriter) indexExpr(ix *ast.IndexExpr, stack []ast.Node) {
	if r.tag != "" {
		return // skills: positions name the snippet's file
	}
	xt := r.info.TypeOf(ix.X)
	it := r.info.Types[ix.Index]
	if xt == nil || it.Type == nil || it.IsType() {
		return
	}
	switch u := xt.Underlying().(type) {
	case *types.Slice:
	case *types.Basic:
		if u.Info()&types.IsString == 0 {
			return
		}
	case *types.Array:
		if it.Value != nil {
			return // checked by the compiler
		}
	case *types.Pointer:
		if _, ok := u.Elem().Underlying().(*types.Array); !ok || it.Value != nil {
			return
		}
	default:
		return
	}
	if b, ok := it.Type.Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
		return
	}
	if !r.pure(ix.X) || r.rangeKey(ix, stack) {
		return
	}
	sh := r.qualify(types.NewPackage(shimPath, "shim"))
	open, closeConv := sh+".Index(", ""
	if b, ok := types.Unalias(it.Type).(*types.Basic); !ok || b.Kind() != types.Int && b.Kind() != types.UntypedInt {
		// Another integer type, or a defined one (type dir int), which
		// the interpreter does not pass as an int.
		open += "int("
		closeConv = ")"
	}
	r.insert(ix.Index.Pos(), open)
	line := r.fset.Position(ix.Lbrack).Line
	r.insert(ix.Index.End(), closeConv+", len("+r.text(ix.X)+"), "+strconv.Itoa(line)+")")
}

// pure reports whether e can be evaluated twice with the same result and
// no effect: names, fields, constants and indexes of those.
func (r *rewriter) pure(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		return true
	case *ast.BasicLit:
		return true
	case *ast.SelectorExpr:
		if sel := r.info.Selections[x]; sel != nil && sel.Kind() != types.FieldVal {
			return false
		}
		return r.pure(x.X)
	case *ast.IndexExpr:
		if _, isMap := underlying(r.info.TypeOf(x.X)).(*types.Map); isMap {
			return false
		}
		return r.pure(x.X) && r.pure(x.Index)
	case *ast.StarExpr:
		return r.pure(x.X)
	case *ast.BinaryExpr:
		return x.Op != token.ARROW && r.pure(x.X) && r.pure(x.Y)
	}
	return false
}

// rangeKey reports whether ix indexes the sequence that an enclosing
// `for i := range X` ranges over with its own key i: always in range
// unless the loop shrinks X.
func (r *rewriter) rangeKey(ix *ast.IndexExpr, stack []ast.Node) bool {
	id, ok := ast.Unparen(ix.Index).(*ast.Ident)
	if !ok {
		return false
	}
	obj := r.info.Uses[id]
	if obj == nil {
		return false
	}
	for i := len(stack) - 1; i >= 0; i-- {
		switch loop := stack[i].(type) {
		case *ast.RangeStmt:
			if k, ok := loop.Key.(*ast.Ident); ok && r.info.Defs[k] == obj {
				return r.text(loop.X) == r.text(ix.X)
			}
		case *ast.ForStmt:
			if r.countsUpTo(loop, obj, ix.X) {
				return true
			}
		}
	}
	return false
}

// countsUpTo reports whether loop is `for i := c; i < len(x); i++` over
// obj (i) and the variable x, c a constant ≥ 0, with a body that assigns
// neither: i then always indexes x.
func (r *rewriter) countsUpTo(loop *ast.ForStmt, obj types.Object, x ast.Expr) bool {
	xid, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		return false
	}
	xobj := r.info.Uses[xid]
	init, ok := loop.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE || len(init.Lhs) != 1 || len(init.Rhs) != 1 {
		return false
	}
	if k, ok := init.Lhs[0].(*ast.Ident); !ok || r.info.Defs[k] != obj {
		return false
	}
	if tv := r.info.Types[init.Rhs[0]]; tv.Value == nil || constant.Sign(tv.Value) < 0 {
		return false
	}
	cond, ok := loop.Cond.(*ast.BinaryExpr)
	if !ok || cond.Op != token.LSS {
		return false
	}
	if ci, ok := ast.Unparen(cond.X).(*ast.Ident); !ok || r.info.Uses[ci] != obj {
		return false
	}
	call, ok := ast.Unparen(cond.Y).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	if b, ok := r.info.Uses[calleeIdent(call.Fun)].(*types.Builtin); !ok || b.Name() != "len" {
		return false
	}
	if a, ok := ast.Unparen(call.Args[0]).(*ast.Ident); !ok || r.info.Uses[a] != xobj {
		return false
	}
	if post, ok := loop.Post.(*ast.IncDecStmt); !ok || post.Tok != token.INC {
		return false
	}
	return !r.assigned(obj, loop.Body) && !r.assigned(xobj, loop.Body)
}

// sliceExpr checks the bounds of s[lo:hi] in compiled code
// (shim.SliceCheck), for Go's message and the line, as indexExpr does.
func (r *rewriter) sliceExpr(se *ast.SliceExpr) {
	if r.tag != "" || se.Slice3 {
		return
	}
	xt := r.info.TypeOf(se.X)
	if xt == nil {
		return
	}
	isString := false
	switch u := xt.Underlying().(type) {
	case *types.Slice:
	case *types.Basic:
		if u.Info()&types.IsString == 0 {
			return
		}
		isString = true
	case *types.Pointer:
		if _, ok := u.Elem().Underlying().(*types.Array); !ok {
			return
		}
	default:
		return // arrays: addressable operands only, left to the interpreter
	}
	if !r.pure(se.X) || (se.High != nil && !r.pure(se.High)) {
		return
	}
	for _, e := range []ast.Expr{se.Low, se.High} {
		if e == nil {
			continue
		}
		if b, ok := types.Unalias(r.info.TypeOf(e)).(*types.Basic); !ok || (b.Kind() != types.Int && b.Kind() != types.UntypedInt) {
			return
		}
	}
	x := r.text(se.X)
	hi := "len(" + x + ")"
	if se.High != nil {
		hi = r.text(se.High)
	}
	bound := "cap(" + x + ")"
	if isString {
		bound = "len(" + x + ")"
	}
	sh := r.qualify(types.NewPackage(shimPath, "shim"))
	line := strconv.Itoa(r.fset.Position(se.Lbrack).Line)
	tail := ", " + hi + ", " + bound + ", " + strconv.FormatBool(isString) + ", " + line + ")"
	if se.Low == nil {
		r.insert(se.Lbrack+1, sh+".SliceCheck(0"+tail)
		return
	}
	r.insert(se.Low.Pos(), sh+".SliceCheck(")
	r.insert(se.Low.End(), tail)
}
