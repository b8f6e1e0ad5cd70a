package check

import "go/ast"

// switchCaseList gives a tagged switch whose case list calls a function
// after its first expression Go's order of evaluation: the expressions of
// a case are evaluated left to right, and only until one equals the tag.
// The interpreter evaluates every expression of a list before comparing,
// so a later call would run (and show its effects) even when an earlier
// expression matches. The switch becomes one without a tag, which the
// interpreter tries expression by expression:
//
//	switch tag { case a, f(): }  →  switch t := tag; { case t == a, t == f(): }
//
// With an init statement, the switch without a tag goes inside one that
// keeps the init (and any label: break and continue mean the same there):
//
//	switch x := g(); x { ... }  →  switch x := g(); { default: switch t := x; { ... } }
func (r *rewriter) switchCaseList(s *ast.SwitchStmt) {
	if s.Tag == nil || !laterCall(s) {
		return
	}
	t := r.fresh("tag")
	if s.Init != nil {
		r.insert(s.Tag.Pos(), "{ default: switch "+t+" := ")
		r.insert(s.End(), " }")
	} else {
		r.insert(s.Tag.Pos(), t+" := ")
	}
	r.insert(s.Tag.End(), ";")
	for _, st := range s.Body.List {
		cc, ok := st.(*ast.CaseClause)
		if !ok {
			continue
		}
		for _, e := range cc.List {
			switch ast.Unparen(e).(type) {
			case *ast.BinaryExpr, *ast.UnaryExpr:
				r.insert(e.Pos(), t+" == (")
				r.insert(e.End(), ")")
			default:
				r.insert(e.Pos(), t+" == ")
			}
		}
	}
}

// laterCall reports whether a case of s has a call after its first
// expression.
func laterCall(s *ast.SwitchStmt) bool {
	for _, st := range s.Body.List {
		cc, ok := st.(*ast.CaseClause)
		if !ok || len(cc.List) < 2 {
			continue
		}
		for _, e := range cc.List[1:] {
			found := false
			ast.Inspect(e, func(n ast.Node) bool {
				if _, ok := n.(*ast.CallExpr); ok {
					found = true
				}
				return !found
			})
			if found {
				return true
			}
		}
	}
	return false
}
