package check

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// The interpreter has neither the iter package nor range over functions,
// nor the iterator functions of strings and slices (Go 1.23+). The rewrite
// turns iter.Seq[V] and iter.Seq2[K, V] into the function types they
// stand for, drops the import, replaces those iterator functions with
// helpers, and turns range over a function into a call of it with the
// loop body as the yield function (rangeOverFunc).

// iterImport blanks the import of "iter" (the interpreter has no such
// package): its uses are all rewritten to function types.
func (r *rewriter) iterImport() {
	for _, im := range r.file.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == "iter" {
			r.replace(im.Pos(), im.End(), `_ "fmt"`)
		}
	}
}

// iterType rewrites iter.Seq[V] and iter.Seq2[K, V] as function types.
func (r *rewriter) iterType(n ast.Node) bool {
	var x ast.Expr
	var args []ast.Expr
	switch e := n.(type) {
	case *ast.IndexExpr:
		x, args = e.X, []ast.Expr{e.Index}
	case *ast.IndexListExpr:
		x, args = e.X, e.Indices
	default:
		return false
	}
	sel, ok := x.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	tn, ok := r.info.Uses[sel.Sel].(*types.TypeName)
	if !ok || tn.Pkg() == nil || tn.Pkg().Path() != "iter" {
		return false
	}
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = r.text(a)
	}
	r.replace(n.Pos(), n.End(), "func(func("+strings.Join(names, ", ")+") bool)")
	r.skip[n] = true
	r.gone[sel.Sel] = true
	return true
}

// seqFuncHelpers replace iterator functions of the standard library that
// the interpreter lacks; $F is the helper's name, $S and $E the slice and
// element types, $strings the name of package strings.
var seqFuncHelpers = map[string]string{
	"slices.Backward": `func $F(s $S) func(func(int, $E) bool) {
	return func(yield func(int, $E) bool) {
		for i := len(s) - 1; i >= 0; i-- {
			if !yield(i, s[i]) {
				return
			}
		}
	}
}`,
	"slices.Chunk": `func $F(s $S, n int) func(func($S) bool) {
	if n < 1 {
		panic("cannot be less than 1")
	}
	return func(yield func($S) bool) {
		for i := 0; i < len(s); i += n {
			end := i + n
			if end > len(s) {
				end = len(s)
			}
			if !yield(s[i:end:end]) {
				return
			}
		}
	}
}`,
	"strings.SplitSeq": `func $F(s, sep string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for _, p := range $strings.Split(s, sep) {
			if !yield(p) {
				return
			}
		}
	}
}`,
	"strings.FieldsSeq": `func $F(s string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for _, p := range $strings.Fields(s) {
			if !yield(p) {
				return
			}
		}
	}
}`,
	"strings.Lines": `func $F(s string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for len(s) > 0 {
			i := $strings.IndexByte(s, '\n')
			line := s
			if i >= 0 {
				line = s[:i+1]
			}
			s = s[len(line):]
			if !yield(line) {
				return
			}
		}
	}
}`,
}

// seqFuncCall replaces a call of one of seqFuncHelpers' functions.
func (r *rewriter) seqFuncCall(call *ast.CallExpr) bool {
	fn, ok := r.info.Uses[calleeIdent(call.Fun)].(*types.Func)
	if !ok || fn.Pkg() == nil {
		return false
	}
	key := fn.Pkg().Path() + "." + fn.Name()
	tmpl, ok := seqFuncHelpers[key]
	if !ok {
		return false
	}
	repl := []string{}
	hkey := key
	if key == "slices.Backward" || key == "slices.Chunk" {
		args := r.typeArgs(call)
		if len(args) != 2 {
			return false
		}
		s, e := r.typeName(args[0], call.Pos()), r.typeName(args[1], call.Pos())
		if s == "" || e == "" {
			return true
		}
		repl = append(repl, "$S", s, "$E", e)
		hkey += " " + s
	} else {
		repl = append(repl, "$strings", r.qualify(types.NewPackage("strings", "strings")))
	}
	name := r.helper(hkey, "seq", func(f string) string {
		return strings.NewReplacer(append([]string{"$F", f}, repl...)...).Replace(tmpl)
	})
	r.replace(call.Fun.Pos(), call.Fun.End(), name)
	r.consume(call)
	return true
}

// yieldSig returns the parameters of the yield function of an iterator
// type func(yield func(...) bool), or ok false.
func yieldSig(t types.Type) (*types.Tuple, bool) {
	sig, ok := t.Underlying().(*types.Signature)
	if !ok || sig.Params().Len() != 1 || sig.Results().Len() != 0 {
		return nil, false
	}
	y, ok := sig.Params().At(0).Type().Underlying().(*types.Signature)
	if !ok || y.Results().Len() != 1 || y.Params().Len() > 2 {
		return nil, false
	}
	if b, ok := y.Results().At(0).Type().Underlying().(*types.Basic); !ok || b.Kind() != types.Bool {
		return nil, false
	}
	return y.Params(), true
}

// rangeOverFunc rewrites `for k, v := range seq { body }` as a call of seq
// with the body as its yield function, on the same lines:
//
//	seq(func(k K, v V) bool { body; return true })
//
// break becomes `return false`, continue `return true`, and a return of the
// enclosing function sets its results, stops the iteration and returns
// after the call. Labels, goto and defer in the body are refused.
func (r *rewriter) rangeOverFunc(s *ast.RangeStmt, stack []ast.Node) bool {
	params, ok := yieldSig(r.info.TypeOf(s.X))
	if !ok {
		return false
	}
	hint := "write the loop as a call: seq(func(v T) bool { ...; return true }), or collect the values into a slice first"
	if s.Tok == token.ASSIGN {
		r.errorf(s.Pos(), hint, "the interpreter cannot range over a function into existing variables (=); use :=")
		return true
	}
	if len(stack) > 0 {
		if _, labeled := stack[len(stack)-1].(*ast.LabeledStmt); labeled {
			r.errorf(s.Pos(), "remove the label: break and continue without one are rewritten", "the interpreter cannot run a labeled range over a function")
			return true
		}
	}
	// The yield function's parameters.
	vars := []ast.Expr{s.Key, s.Value}
	ps := make([]string, params.Len())
	for i := range ps {
		name := "_"
		if i < len(vars) && vars[i] != nil {
			name = r.text(vars[i])
		}
		// Written in place: type parameters and local types are in scope.
		ps[i] = name + " " + types.TypeString(params.At(i).Type(), r.qualify)
	}
	// The enclosing function's results, for return statements.
	var results *types.Tuple
	for i := len(stack) - 1; i >= 0; i-- {
		var sig *types.Signature
		switch f := stack[i].(type) {
		case *ast.FuncLit:
			sig, _ = r.info.TypeOf(f).(*types.Signature)
		case *ast.FuncDecl:
			if obj, ok := r.info.Defs[f.Name].(*types.Func); ok {
				sig = obj.Type().(*types.Signature)
			}
		default:
			continue
		}
		if sig != nil {
			results = sig.Results()
		}
		break
	}
	retFlag := ""
	var resVars []string
	var edits []edit
	bad := false
	var visit func(n ast.Node, loops, breaks int)
	visit = func(n ast.Node, loops, breaks int) {
		ast.Inspect(n, func(m ast.Node) bool {
			if bad || m == nil || m == n {
				return !bad
			}
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt, *ast.RangeStmt:
				if rs, ok := m.(*ast.RangeStmt); ok {
					if _, isFunc := yieldSig(r.info.TypeOf(rs.X)); isFunc && retFlag != "" {
						bad = true
						r.errorf(rs.Pos(), hint, "the interpreter cannot run a return from inside two nested ranges over functions")
						return false
					}
				}
				visit(m, loops+1, breaks+1)
				return false
			case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				visit(m, loops, breaks+1)
				return false
			case *ast.DeferStmt:
				bad = true
				r.errorf(m.Pos(), hint, "the interpreter cannot run defer inside a range over a function (it would run after each value)")
				return false
			case *ast.BranchStmt:
				switch {
				case m.Tok == token.GOTO || m.Label != nil:
					bad = true
					r.errorf(m.Pos(), hint, "the interpreter cannot run %s with a label inside a range over a function", m.Tok)
				case m.Tok == token.BREAK && breaks == 0:
					edits = append(edits, edit{r.off(m.Pos()), r.off(m.End()), "return false"})
				case m.Tok == token.CONTINUE && loops == 0:
					edits = append(edits, edit{r.off(m.Pos()), r.off(m.End()), "return true"})
				}
			case *ast.ReturnStmt:
				if retFlag == "" {
					retFlag = r.fresh("ret")
					if results != nil {
						for i := 0; i < results.Len(); i++ {
							resVars = append(resVars, r.fresh("r"))
						}
					}
				}
				end := "; " + retFlag + " = true; return false }"
				switch {
				case len(m.Results) == 0:
					edits = append(edits, edit{r.off(m.Pos()), r.off(m.End()), "{ " + retFlag + " = true; return false }"})
					if results != nil && results.Len() > 0 && results.At(0).Name() != "" {
						// A bare return of named results: they are set already.
						resVars = nil
					}
				default:
					edits = append(edits, edit{r.off(m.Pos()), r.off(m.Pos()) + len("return"), "{ " + strings.Join(resVars, ", ") + " ="})
					edits = append(edits, edit{r.off(m.End()), r.off(m.End()), end})
				}
			}
			return true
		})
	}
	visit(s.Body, 0, 0)
	if bad {
		return true
	}
	r.edits = append(r.edits, edits...)
	var pre strings.Builder
	if retFlag != "" {
		fmt.Fprintf(&pre, "var %s bool; ", retFlag)
		for i, v := range resVars {
			fmt.Fprintf(&pre, "var %s %s; ", v, types.TypeString(results.At(i).Type(), r.qualify))
		}
	}
	r.replace(s.For, s.X.Pos(), pre.String())
	r.replace(s.X.End(), s.Body.Lbrace+1, "(func("+strings.Join(ps, ", ")+") bool {")
	r.insert(s.Body.Rbrace, "; return true ")
	post := ")"
	if retFlag != "" {
		post += "; if " + retFlag + " { return " + strings.Join(resVars, ", ") + " }"
	}
	r.insert(s.Body.Rbrace+1, post)
	return true
}
