package check

import (
	"fmt"
	"go/ast"
	"go/types"
)

// The interpreter does not compile another package's generic function
// taken as a value, instantiated explicitly (slices.Index[[]string,
// string], mcp.Ptr[float64]) or by the type it is assigned to (var f
// func([]int, int) bool = slices.Contains): it instantiates them only in
// calls, and the rewrite turns those of slices, maps and cmp into helpers
// (stdCall) and mcp.Ptr into one (ptrCall). So such a value becomes a
// function literal with the instantiated signature that calls the helper,
// or the function itself for other packages: func(p0 []string, p1
// string) int { return __helper(p0, p1) }; mcp.Ptr[T] becomes ptrCall's
// helper for T.

// instExpr rewrites n if it is another package's generic function taken
// as a value (an instantiation, or a selector not called), and reports
// whether it did.
func (r *rewriter) instExpr(n ast.Node, stack []ast.Node) bool {
	var x ast.Expr
	switch n := n.(type) {
	case *ast.IndexExpr:
		x = n.X
	case *ast.IndexListExpr:
		x = n.X
	case *ast.SelectorExpr:
		if len(stack) > 0 {
			switch p := stack[len(stack)-1].(type) {
			case *ast.IndexExpr:
				if p.X == n {
					return false // the instantiation's
				}
			case *ast.IndexListExpr:
				if p.X == n {
					return false
				}
			}
		}
		x = n
	default:
		return false
	}
	if r.called[n.(ast.Expr)] {
		return false
	}
	sel, isSel := ast.Unparen(x).(*ast.SelectorExpr)
	if !isSel {
		return false
	}
	pkg, isID := sel.X.(*ast.Ident)
	if !isID {
		return false
	}
	if _, isPkg := r.info.Uses[pkg].(*types.PkgName); !isPkg {
		return false
	}
	fn, isFn := r.info.Uses[sel.Sel].(*types.Func)
	inst, isInst := r.info.Instances[sel.Sel]
	if !isFn || !isInst {
		return false
	}
	generic, _ := fn.Type().(*types.Signature)
	sig, _ := inst.Type.(*types.Signature)
	if generic == nil || sig == nil || generic.TypeParams().Len() == 0 {
		return false
	}
	args := r.instTypeArgs(sel.Sel)
	if fn.FullName() == treePrefix+"mcp.Ptr" {
		if len(args) != 1 {
			return false
		}
		tn := r.typeName(args[0], n.Pos())
		if tn == "" {
			return false
		}
		r.replace(n.Pos(), n.End(), r.ptrHelper(tn))
		r.gone[sel.Sel] = true
		return true
	}
	for i := 0; i < sig.Params().Len(); i++ {
		if anyType(sig.Params().At(i).Type(), fromIter) {
			return false
		}
	}
	callee := pkg.Name + "." + sel.Sel.Name
	switch name := fn.Pkg().Path() + "." + fn.Name(); fn.Pkg().Path() {
	case "slices", "maps", "cmp":
		h, ok := r.stdHelper(name, args, n.Pos())
		if !ok {
			return true // reported
		}
		callee = h
		r.gone[sel.Sel] = true
	}
	params, as, results, ok := r.sigParts(sig, 0)
	if !ok {
		return false
	}
	ret := "return "
	if results == "" {
		ret = ""
	}
	r.replace(n.Pos(), n.End(), fmt.Sprintf("func(%s)%s { %s%s(%s) }", params, results, ret, callee, as))
	return true
}

// fromIter reports whether t is a type of package iter, which the
// interpreter cannot import.
func fromIter(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "iter"
}

// anyType reports whether f holds for t or a type t is made of.
func anyType(t types.Type, f func(types.Type) bool) bool {
	seen := map[types.Type]bool{}
	var visit func(t types.Type) bool
	visit = func(t types.Type) bool {
		if seen[t] {
			return false
		}
		seen[t] = true
		if f(t) {
			return true
		}
		switch t := t.(type) {
		case *types.Pointer:
			return visit(t.Elem())
		case *types.Slice:
			return visit(t.Elem())
		case *types.Array:
			return visit(t.Elem())
		case *types.Chan:
			return visit(t.Elem())
		case *types.Map:
			return visit(t.Key()) || visit(t.Elem())
		case *types.Signature:
			for _, tu := range []*types.Tuple{t.Params(), t.Results()} {
				for i := 0; i < tu.Len(); i++ {
					if visit(tu.At(i).Type()) {
						return true
					}
				}
			}
		case *types.Struct:
			for i := 0; i < t.NumFields(); i++ {
				if visit(t.Field(i).Type()) {
					return true
				}
			}
		case *types.Named:
			for i := 0; i < t.TypeArgs().Len(); i++ {
				if visit(t.TypeArgs().At(i)) {
					return true
				}
			}
		case *types.Alias:
			return visit(types.Unalias(t))
		}
		return false
	}
	return visit(t)
}
