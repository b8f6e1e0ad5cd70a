package check

import (
	"go/ast"
	"go/types"
	"strings"
)

// zeroResults sets a function's results to their zero values where its
// body starts, because the interpreter starts them with what its result
// slots held from the function's previous call: named results read
// before they are set (n++, sum += x) would add to the previous call's,
// and a function that defers calls would return the previous results
// after a recovered panic. Named results are zeroed in every function;
// unnamed ones, in a function that defers, get names first:
//
//	func get(i int) (int, error) { defer ...  →
//	func get(i int) (r0 int, r1 error) { r0, r1 = *new(int), *new(error); defer ...
func (r *rewriter) zeroResults(ft *ast.FuncType, body *ast.BlockStmt) {
	if body == nil || ft.Results == nil || len(ft.Results.List) == 0 {
		return
	}
	if len(ft.Results.List[0].Names) == 0 && !defersIn(body) {
		return
	}
	var names, zeros []string
	var edits []edit
	unnamed := len(ft.Results.List[0].Names) == 0
	parens := unnamed && !ft.Results.Opening.IsValid()
	if parens {
		edits = append(edits, edit{r.off(ft.Results.Pos()), r.off(ft.Results.Pos()), "("})
	}
	for _, f := range ft.Results.List {
		t := r.info.TypeOf(f.Type)
		if t == nil {
			return
		}
		zero := "*new(" + types.TypeString(t, r.qualify) + ")"
		if unnamed {
			name := r.fresh("r")
			edits = append(edits, edit{r.off(f.Type.Pos()), r.off(f.Type.Pos()), name + " "})
			names = append(names, name)
			zeros = append(zeros, zero)
			continue
		}
		for _, n := range f.Names {
			if n.Name == "_" {
				return
			}
			names = append(names, n.Name)
			zeros = append(zeros, zero)
		}
	}
	if parens {
		edits = append(edits, edit{r.off(ft.Results.End()), r.off(ft.Results.End()), ")"})
	}
	r.edits = append(r.edits, edits...)
	r.insert(body.Lbrace+1, " "+strings.Join(names, ", ")+" = "+strings.Join(zeros, ", ")+";")
}

// defersIn reports whether body has a defer statement of its own (not in
// a nested function literal).
func defersIn(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			found = true
		}
		return !found
	})
	return found
}
