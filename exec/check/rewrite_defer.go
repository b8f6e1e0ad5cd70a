package check

import (
	"go/ast"
	"go/types"
	"sort"
	"strings"
)

// deferStmt rewrites a deferred call whose function value, receiver or
// arguments are not constants: the interpreter evaluates them when the
// call runs, Go when the defer statement runs. They are evaluated into
// fresh variables first, on the same line:
//
//	defer fmt.Println(i, x.n)  →  { d1, d2 := i, x.n; defer fmt.Println(d1, d2) }
//
// It runs after the rest of the rewrite, taking the rewritten text of the
// parts.
func (r *rewriter) deferStmt(s *ast.DeferStmt) {
	call := s.Call
	var names, values []string
	start, end := r.off(s.Pos()), r.off(s.End())
	var inner []edit
	for _, e := range r.edits {
		switch {
		case e.end <= start && e.start < start, e.start >= end && e.end > end:
			// outside
		case e.start >= start && e.end <= end:
			if e.start == e.end && (e.start == start || e.start == end) {
				continue // an insertion at a boundary belongs to the outside
			}
			inner = append(inner, e)
		case e.start < start && e.end <= start, e.start >= end:
		default:
			return // an edit across the statement's edges
		}
	}
	render := func(n ast.Node) string { return r.render(r.off(n.Pos()), r.off(n.End()), inner) }
	hoist := func(text string) string {
		name := r.fresh("d")
		names = append(names, name)
		values = append(values, text)
		return name
	}
	fun := render(call.Fun)
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.FuncLit:
		// The interpreter makes the closure when the defer statement
		// runs (the fork's call), as Go does: nothing to hoist.
	case *ast.Ident:
		if _, isVar := r.info.Uses[f].(*types.Var); isVar {
			fun = hoist(fun)
		}
	case *ast.SelectorExpr:
		sel := r.info.Selections[f]
		switch {
		case sel == nil: // pkg.Func
		case sel.Kind() == types.MethodVal:
			recv := render(f.X)
			sig := sel.Obj().Type().(*types.Signature)
			_, ptrRecv := sig.Recv().Type().(*types.Pointer)
			_, ptrVal := underlying(sel.Recv()).(*types.Pointer)
			if ptrRecv && !ptrVal {
				recv = "&(" + recv + ")"
			}
			fun = hoist(recv) + "." + f.Sel.Name
		default:
			fun = hoist(fun)
		}
	default:
		if _, isType := r.info.Types[call.Fun]; isType && r.info.Types[call.Fun].IsType() {
			break
		}
		fun = hoist(fun)
	}
	args := make([]string, len(call.Args))
	for i, a := range call.Args {
		args[i] = render(a)
		if tv := r.info.Types[a]; tv.Value != nil || tv.IsType() {
			continue
		}
		args[i] = hoist(args[i])
	}
	if len(names) == 0 {
		return
	}
	ell := ""
	if call.Ellipsis.IsValid() {
		ell = "..."
	}
	text := "{ " + strings.Join(names, ", ") + " := " + strings.Join(values, ", ") + "; defer " + fun + "(" + strings.Join(args, ", ") + ell + ") }"
	// The parts keep their order, so every line keeps its number.
	// Replace the inner edits with one edit over the statement.
	kept := r.edits[:0]
	for _, e := range r.edits {
		if e.start >= start && e.end <= end && !(e.start == e.end && (e.start == start || e.start == end)) {
			continue
		}
		kept = append(kept, e)
	}
	r.edits = append(kept, edit{start, end, text})
}

// render returns src[start:end] with the edits in it applied.
func (r *rewriter) render(start, end int, edits []edit) string {
	var in []edit
	for _, e := range edits {
		if e.start >= start && e.end <= end {
			in = append(in, e)
		}
	}
	sort.SliceStable(in, func(i, j int) bool { return in[i].start < in[j].start })
	var b strings.Builder
	last := start
	for _, e := range in {
		if e.start < last {
			continue
		}
		b.Write(r.src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(r.src[last:end])
	return b.String()
}
