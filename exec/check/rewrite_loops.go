package check

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// escapes reports whether the loop variable obj can be seen after its
// iteration ends: a closure in body refers to it, or its address is taken
// (explicitly, by a pointer method call, or by slicing an array).
func (r *rewriter) escapes(obj types.Object, body *ast.BlockStmt) bool {
	found := false
	called := map[ast.Expr]bool{}
	var visit func(n ast.Node, inFunc bool)
	visit = func(n ast.Node, inFunc bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			if found || m == nil {
				return false
			}
			switch m := m.(type) {
			case *ast.CallExpr:
				called[ast.Unparen(m.Fun)] = true
			case *ast.FuncLit:
				if m != n {
					visit(m, true)
					return false
				}
			case *ast.Ident:
				if inFunc && r.info.Uses[m] == obj {
					found = true
				}
			case *ast.UnaryExpr:
				if m.Op == token.AND && r.rootIs(m.X, obj) {
					found = true
				}
			case *ast.SliceExpr:
				if _, isArr := underlying(r.info.TypeOf(m.X)).(*types.Array); isArr && r.rootIs(m.X, obj) {
					found = true
				}
			case *ast.SelectorExpr:
				if sel := r.info.Selections[m]; sel != nil && sel.Kind() == types.MethodVal && !called[m] && r.rootIs(m.X, obj) {
					// A method value binds its receiver: the interpreter
					// binds the variable instead.
					found = true
				}
				if sel := r.info.Selections[m]; sel != nil && sel.Kind() == types.MethodVal && r.rootIs(m.X, obj) {
					if sig, ok := sel.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
						if _, ptrRecv := sig.Recv().Type().(*types.Pointer); ptrRecv {
							if _, ptrVal := underlying(sel.Recv()).(*types.Pointer); !ptrVal {
								found = true
							}
						}
					}
				}
			}
			return true
		})
	}
	visit(body, false)
	return found
}

func underlying(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	return t.Underlying()
}

// rootIs reports whether e is obj, or a field or array element of it.
func (r *rewriter) rootIs(e ast.Expr, obj types.Object) bool {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return r.info.Uses[x] == obj
		case *ast.SelectorExpr:
			if _, isPtr := underlying(r.info.TypeOf(x.X)).(*types.Pointer); isPtr {
				return false
			}
			e = x.X
		case *ast.IndexExpr:
			if _, isArr := underlying(r.info.TypeOf(x.X)).(*types.Array); !isArr {
				return false
			}
			e = x.X
		default:
			return false
		}
	}
}

// assigned reports whether body (closures included) assigns to obj or
// takes its address.
func (r *rewriter) assigned(obj types.Object, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if r.rootIs(l, obj) {
					found = true
				}
			}
		case *ast.IncDecStmt:
			if r.rootIs(n.X, obj) {
				found = true
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND && r.rootIs(n.X, obj) {
				found = true
			}
		case *ast.SelectorExpr, *ast.SliceExpr:
			// Pointer methods and array slicing can write too.
			if r.escapesDirect(n, obj) {
				found = true
			}
		}
		return !found
	})
	return found
}

func (r *rewriter) escapesDirect(n ast.Node, obj types.Object) bool {
	switch m := n.(type) {
	case *ast.SliceExpr:
		_, isArr := underlying(r.info.TypeOf(m.X)).(*types.Array)
		return isArr && r.rootIs(m.X, obj)
	case *ast.SelectorExpr:
		sel := r.info.Selections[m]
		if sel == nil || sel.Kind() != types.MethodVal || !r.rootIs(m.X, obj) {
			return false
		}
		sig, _ := sel.Obj().Type().(*types.Signature)
		if sig == nil || sig.Recv() == nil {
			return false
		}
		_, ptrRecv := sig.Recv().Type().(*types.Pointer)
		_, ptrVal := underlying(sel.Recv()).(*types.Pointer)
		return ptrRecv && !ptrVal
	}
	return false
}

// forStmt gives the variables of a three-clause loop per-iteration copies
// (Go 1.22 semantics) when a closure or pointer could tell the difference.
// A variable that the body may change is copied back to the loop's
// variable at the end of each iteration and before each continue, so the
// post statement and condition see the change, as they do in Go.
func (r *rewriter) forStmt(s *ast.ForStmt, stack []ast.Node) {
	init, ok := s.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE {
		return
	}
	var vars []types.Object
	for _, l := range init.Lhs {
		id, ok := l.(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		if obj := r.info.Defs[id]; obj != nil && r.escapes(obj, s.Body) {
			vars = append(vars, obj)
		}
	}
	if len(vars) == 0 {
		return
	}
	names := make([]string, len(vars))
	var back []types.Object
	for i, v := range vars {
		names[i] = v.Name()
		if r.assigned(v, s.Body) {
			back = append(back, v)
		}
	}
	list := strings.Join(names, ", ")
	if len(back) == 0 {
		r.insert(s.Body.Lbrace+1, " "+list+" := "+list+";")
		return
	}
	// Pointers to the loop's own variables, taken before the copies shadow
	// them.
	ptrs := make([]string, len(back))
	addrs := make([]string, len(back))
	derefs := make([]string, len(back))
	backNames := make([]string, len(back))
	for i, v := range back {
		ptrs[i] = r.fresh("p")
		addrs[i] = "&" + v.Name()
		derefs[i] = "*" + ptrs[i]
		backNames[i] = v.Name()
	}
	copyBack := strings.Join(derefs, ", ") + " = " + strings.Join(backNames, ", ")
	r.insert(s.Body.Lbrace+1, " "+strings.Join(ptrs, ", ")+" := "+strings.Join(addrs, ", ")+"; "+list+" := "+list+";")
	label := ""
	if len(stack) > 0 {
		if ls, ok := stack[len(stack)-1].(*ast.LabeledStmt); ok {
			label = ls.Label.Name
		}
	}
	ok = true
	var visit func(n ast.Node, depth int)
	visit = func(n ast.Node, depth int) {
		ast.Inspect(n, func(m ast.Node) bool {
			if !ok {
				return false
			}
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt:
				if m != n {
					visit(m.Body, depth+1)
					return false
				}
			case *ast.RangeStmt:
				visit(m.Body, depth+1)
				return false
			case *ast.BranchStmt:
				switch {
				case m.Tok == token.GOTO:
					r.errorf(m.Pos(), "use break, continue or a flag instead of goto in this loop", "the interpreter cannot run goto in a loop whose variable a closure or pointer uses")
					ok = false
				case m.Tok == token.CONTINUE && ((m.Label == nil && depth == 0) || (m.Label != nil && m.Label.Name == label)):
					for _, v := range back {
						if !r.resolvesTo(v, m.Pos()) {
							r.errorf(m.Pos(), "rename the inner "+v.Name()+", or assign the loop variable a new value without redeclaring it", "the interpreter cannot run this continue: %s is redeclared here, shadowing the loop variable", v.Name())
							ok = false
							return false
						}
					}
					r.replace(m.Pos(), m.End(), "{ "+copyBack+"; "+r.text(m)+" }")
				}
			}
			return true
		})
	}
	visit(s.Body, 0)
	if !ok {
		return
	}
	// At the end of the body (only when the end is reachable: an
	// unreachable copy is harmless).
	for _, v := range back {
		if !r.resolvesTo(v, s.Body.Rbrace) {
			r.errorf(s.Body.Rbrace, "rename the "+v.Name()+" declared in the loop body", "the interpreter cannot run this loop: %s is redeclared in the body, shadowing the loop variable that a closure or pointer uses", v.Name())
			return
		}
	}
	r.insert(s.Body.Rbrace, "; "+copyBack+" ")
}

// resolvesTo reports whether v's name at pos means v.
func (r *rewriter) resolvesTo(v types.Object, pos token.Pos) bool {
	scope := r.pkg.Scope().Innermost(pos)
	if scope == nil {
		return false
	}
	_, obj := scope.LookupParent(v.Name(), pos)
	return obj == v
}
