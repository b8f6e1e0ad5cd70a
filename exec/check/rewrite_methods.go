package check

import (
	"fmt"
	"go/ast"
	"go/types"
	"strconv"
	"strings"
)

// methodSel rewrites method values and method expressions of the
// snippet's own types, which the interpreter gets wrong: a method value
// (x.M not called) binds the variable x rather than its value, and a
// method expression (T.M, (*T).M) panics when called. Both become
// function literals:
//
//	x.M    →  func(r T) func(a A) R { return func(a A) R { return r.M(a) } }(x)
//	T.M    →  func(r T, a A) R { return r.M(a) }
func (r *rewriter) methodSel(sel *ast.SelectorExpr) {
	s := r.info.Selections[sel]
	if s == nil {
		return
	}
	recv := s.Recv()
	base := recv
	if p, ok := recv.(*types.Pointer); ok {
		base = p.Elem()
	}
	if _, isIface := base.Underlying().(*types.Interface); r.called[sel] && (!isIface || s.Kind() != types.MethodExpr) {
		return // called at once: the interpreter gets it right, but Iface.M(x)
	}
	if _, ok := interpNamed(base); !ok {
		return
	}
	if _, isIface := base.Underlying().(*types.Interface); isIface && s.Kind() != types.MethodExpr {
		// A method value of an interface binds the interface value,
		// which the interpreter does; a method expression of one
		// (Shape.Name) fails to compile there and is rewritten too.
		return
	}
	sig, ok := s.Type().(*types.Signature)
	if !ok {
		return
	}
	switch s.Kind() {
	case types.MethodVal:
		rt := r.typeNameQuiet(recv)
		params, args, results, ok := r.sigParts(sig, 0)
		if rt == "" || !ok {
			return
		}
		// A method with a pointer receiver, taken from an addressable
		// value, binds &x: calling it changes x.
		addr := ""
		if _, isPtr := recv.(*types.Pointer); !isPtr && !s.Indirect() {
			if fn, ok := s.Obj().(*types.Func); ok {
				if _, ptrRecv := fn.Type().(*types.Signature).Recv().Type().(*types.Pointer); ptrRecv {
					rt, addr = "*"+rt, "&"
				}
			}
		}
		// A method with a value receiver reached through a pointer
		// (p.M with p a *T, or s.M promoted through an embedded *T)
		// binds a copy of the value the pointer points to when the
		// method value is taken: later changes through the pointer do
		// not show.
		open, closing := "", ""
		if vt, path, deref, ok := r.valueRecv(s); ok {
			rt = vt
			open, closing = "(", ")"+path
			if deref {
				open = "*(("
				closing = ")" + path + ")"
			}
		}
		fn := "func(" + params + ")" + results
		ret := "return "
		if results == "" {
			ret = ""
		}
		r.insert(sel.Pos(), fmt.Sprintf("func(r %s) %s { return %s { %sr.%s(%s) } }(%s%s", rt, fn, fn, ret, sel.Sel.Name, args, addr, open))
		r.replace(sel.X.End(), sel.End(), closing+")")
	case types.MethodExpr:
		// The signature's first parameter is the receiver.
		params, args, results, ok := r.sigParts(sig, 1)
		rt := r.typeNameQuiet(sig.Params().At(0).Type())
		if rt == "" || !ok {
			return
		}
		if params != "" {
			params = ", " + params
		}
		ret := "return "
		if results == "" {
			ret = ""
		}
		r.replace(sel.Pos(), sel.End(), fmt.Sprintf("func(r %s%s)%s { %sr.%s(%s) }", rt, params, results, ret, sel.Sel.Name, args))
		r.skip[sel] = true
	}
}

// valueRecv reports, for a method value whose method has a value
// receiver and is reached through a pointer, the receiver's type name,
// the embedded fields that lead to it from the operand (".Base.Inner")
// and whether the value at their end is a pointer to dereference.
func (r *rewriter) valueRecv(s *types.Selection) (typeName, path string, deref, ok bool) {
	fn, isFn := s.Obj().(*types.Func)
	if !isFn {
		return "", "", false, false
	}
	if _, ptrRecv := fn.Type().(*types.Signature).Recv().Type().(*types.Pointer); ptrRecv {
		return "", "", false, false
	}
	_, recvPtr := s.Recv().(*types.Pointer)
	if !recvPtr && !s.Indirect() {
		return "", "", false, false
	}
	t := s.Recv()
	deref = recvPtr
	for _, i := range s.Index()[:len(s.Index())-1] {
		if p, isPtr := t.Underlying().(*types.Pointer); isPtr {
			t = p.Elem()
		}
		st, isStruct := t.Underlying().(*types.Struct)
		if !isStruct {
			return "", "", false, false
		}
		f := st.Field(i)
		path += "." + f.Name()
		t = f.Type()
		_, deref = t.(*types.Pointer)
	}
	if p, isPtr := t.(*types.Pointer); isPtr {
		t = p.Elem()
	}
	if _, isIface := t.Underlying().(*types.Interface); isIface {
		return "", "", false, false
	}
	typeName = r.typeNameQuiet(t)
	return typeName, path, deref, typeName != ""
}

// sigParts writes sig's parameters from index from on ("p0 int, p1
// ...string"), the arguments that pass them on ("p0, p1..."), and its
// results (" (int, error)"), or ok false when a type cannot be named.
func (r *rewriter) sigParts(sig *types.Signature, from int) (params, args, results string, ok bool) {
	var ps, as []string
	for i := from; i < sig.Params().Len(); i++ {
		t := sig.Params().At(i).Type()
		name := fmt.Sprintf("p%d", i)
		if sig.Variadic() && i == sig.Params().Len()-1 {
			tn := r.typeNameQuiet(t.(*types.Slice).Elem())
			if tn == "" {
				return "", "", "", false
			}
			ps = append(ps, name+" ..."+tn)
			as = append(as, name+"...")
			continue
		}
		tn := r.typeNameQuiet(t)
		if tn == "" {
			return "", "", "", false
		}
		ps = append(ps, name+" "+tn)
		as = append(as, name)
	}
	var rs []string
	for i := 0; i < sig.Results().Len(); i++ {
		tn := r.typeNameQuiet(sig.Results().At(i).Type())
		if tn == "" {
			return "", "", "", false
		}
		rs = append(rs, tn)
	}
	switch len(rs) {
	case 0:
	case 1:
		results = " " + rs[0]
	default:
		results = " (" + strings.Join(rs, ", ") + ")"
	}
	return strings.Join(ps, ", "), strings.Join(as, ", "), results, true
}

// promotedIfaceSel spells out the embedded fields of a method promoted
// from an embedded interface (s.Notify → s.Notifier.Notify): the
// interpreter panics on the promoted call.
func (r *rewriter) promotedIfaceSel(sel *ast.SelectorExpr) {
	s := r.info.Selections[sel]
	if s == nil || (s.Kind() != types.MethodVal && s.Kind() != types.FieldVal) || len(s.Index()) < 2 {
		return
	}
	t := s.Recv()
	var path []string
	viaIface := false
	for _, i := range s.Index()[:len(s.Index())-1] {
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok {
			return
		}
		f := st.Field(i)
		path = append(path, f.Name())
		t = f.Type()
		if _, ok := t.Underlying().(*types.Interface); ok {
			viaIface = true
		}
	}
	if viaIface && s.Kind() == types.MethodVal {
		r.insert(sel.Sel.Pos(), strings.Join(path, ".")+".")
	}
}

// commaOkIface rewrites a comma-ok assertion `n, ok := v.(T)` that the
// interpreter panics on into a call of asHelper: T an interface of the
// snippet's (always), or any interface (the operand may be nil).
func (r *rewriter) commaOkIface(ta *ast.TypeAssertExpr) {
	if ta.Type == nil {
		return
	}
	if _, ok := r.info.Types[ta].Type.(*types.Tuple); !ok {
		return
	}
	t := r.info.TypeOf(ta.Type)
	if _, ok := t.Underlying().(*types.Interface); !ok {
		return
	}
	name := r.asHelper(r.info.TypeOf(ta.X), t)
	if name == "" {
		return
	}
	r.insert(ta.X.Pos(), name+"(")
	r.replace(ta.X.End(), ta.Rparen+1, ")")
}

// emptyIfaceAssert rewrites an assertion v.(T) without comma-ok, T an
// empty interface (any, interface{}), which the interpreter panics on
// whatever v holds ("nil is not interface{}"), into a helper that
// panics only when v is nil, as Go does.
func (r *rewriter) emptyIfaceAssert(ta *ast.TypeAssertExpr) {
	if ta.Type == nil {
		return
	}
	if _, ok := r.info.Types[ta].Type.(*types.Tuple); ok {
		return // commaOkIface
	}
	t := r.info.TypeOf(ta.Type)
	if it, ok := t.Underlying().(*types.Interface); !ok || !it.Empty() {
		return
	}
	tn, xn := r.typeNameQuiet(t), r.typeNameQuiet(r.info.TypeOf(ta.X))
	if tn == "" || xn == "" {
		return
	}
	goName := types.TypeString(t, func(p *types.Package) string { return p.Name() })
	if goName == "any" || goName == "interface{}" {
		goName = "interface {}"
	}
	name := r.helper("must "+xn+" "+tn, "must", func(f string) string {
		return "func " + f + "(v " + xn + ") " + tn + " {\nif v == nil {\npanic(" + strconv.Quote("interface conversion: interface is nil, not "+goName) + ")\n}\nreturn v\n}\n"
	})
	r.insert(ta.X.Pos(), name+"(")
	r.replace(ta.X.End(), ta.Rparen+1, ")")
}

// asHelper returns a helper func(v X) (T, bool) that does v.(T) with
// comma-ok as Go does where the interpreter does not: a nil v gives
// false (the interpreter panics), an empty interface T holds every other
// v (the interpreter says false), and an interface T of the snippet's is
// asserted through a type switch (its comma-ok assertion panics).
func (r *rewriter) asHelper(xt, t types.Type) string {
	tn, xn := r.typeNameQuiet(t), r.typeNameQuiet(xt)
	if tn == "" || xn == "" {
		return ""
	}
	it, isIface := t.Underlying().(*types.Interface)
	_, own := interpNamed(t)
	return r.helper("as "+xn+" "+tn, "as", func(f string) string {
		if isIface && it.Empty() {
			// Every value but nil is an empty interface; the interpreter's
			// comma-ok assertion to one says false.
			return "func " + f + "(v " + xn + ") (" + tn + ", bool) {\nif v == nil {\nreturn nil, false\n}\nreturn v, true\n}\n"
		}
		if isIface && own {
			// The interpreter's type switch counts a pointer's methods
			// in a value's method set: the snippet's types that
			// implement T only through their pointer are cased first.
			// v is taken as any: the interpreter's type switch on a
			// parameter of the snippet's interface type misses another
			// interface T that the value implements.
			var ptrOnly []string
			for _, c := range r.concreteTypes() {
				if !types.Implements(c, it) && types.Implements(types.NewPointer(c), it) {
					if cn := r.typeNameQuiet(c); cn != "" {
						ptrOnly = append(ptrOnly, cn)
					}
				}
			}
			not := ""
			if len(ptrOnly) > 0 {
				not = "case " + strings.Join(ptrOnly, ", ") + ":\nreturn nil, false\n"
			}
			return "func " + f + "(v any) (" + tn + ", bool) {\nswitch x := v.(type) {\n" + not + "case " + tn + ":\nreturn x, true\n}\nreturn nil, false\n}\n"
		}
		return "func " + f + "(v " + xn + ") (" + tn + ", bool) {\nif v == nil {\nreturn *new(" + tn + "), false\n}\nx, ok := v.(" + tn + ")\nreturn x, ok\n}\n"
	})
}

// typeSwitchChain reports whether the type switch ts is one the
// interpreter runs wrongly and the rewrite turns into comma-ok
// assertions (typeSwitch): its operand or one of its cases is an
// interface of the standard library (error, fmt.Stringer), none of its
// cases is a named non-pointer type of the snippet's other than a struct
// (a comma-ok assertion to one also matches its underlying type), and
// default, if any, comes last.
func (c *checker) typeSwitchChain(ts *ast.TypeSwitchStmt) bool {
	if ts.Init != nil {
		return false
	}
	x := typeSwitchOperand(ts)
	if x == nil {
		return false
	}
	hostIface := func(t types.Type) bool {
		if t == nil {
			return false // not type-checked (an undefined name)
		}
		it, ok := t.Underlying().(*types.Interface)
		if !ok || it.NumMethods() == 0 {
			return false
		}
		_, own := interpNamed(t)
		return !own
	}
	need := hostIface(c.info.TypeOf(x))
	for i, cl := range ts.Body.List {
		cc := cl.(*ast.CaseClause)
		if cc.List == nil && i != len(ts.Body.List)-1 {
			return false
		}
		for _, e := range cc.List {
			t := c.info.TypeOf(e)
			if t == nil {
				continue
			}
			if hostIface(t) {
				need = true
			}
			if _, own := interpNamed(t); own {
				if _, isStruct := t.Underlying().(*types.Struct); !isStruct {
					if _, isIface := t.Underlying().(*types.Interface); !isIface {
						return false
					}
				}
			}
		}
	}
	return need
}

func typeSwitchOperand(ts *ast.TypeSwitchStmt) ast.Expr {
	switch a := ts.Assign.(type) {
	case *ast.AssignStmt:
		if ta, ok := a.Rhs[0].(*ast.TypeAssertExpr); ok {
			return ta.X
		}
	case *ast.ExprStmt:
		if ta, ok := a.X.(*ast.TypeAssertExpr); ok {
			return ta.X
		}
	}
	return nil
}

// typeSwitch rewrites a type switch that typeSwitchChain accepts as a
// chain of comma-ok assertions, line for line:
//
//	switch x := v.(type) {   →  switch t := v; { default: if false { panic(0)
//	case nil:                →  } else if t == nil { x := t; _ = x
//	case *E:                 →  } else if x, ok := as(t); ok { _ = x
//	case A, B:               →  } else if ok(as(t)) || ok(as(t)) { x := t; _ = x
//	default:                 →  } else { x := t; _ = x
//	}                        →  } }
//
// A break still leaves the (tagless, one-clause) switch.
func (r *rewriter) typeSwitch(ts *ast.TypeSwitchStmt) {
	if !r.typeSwitchChain(ts) {
		return
	}
	x := typeSwitchOperand(ts)
	xt := r.info.TypeOf(x)
	bind := ""
	if a, ok := ts.Assign.(*ast.AssignStmt); ok {
		bind = a.Lhs[0].(*ast.Ident).Name
	}
	tv := r.fresh("ts")
	var heads []string
	for _, cl := range ts.Body.List {
		cc := cl.(*ast.CaseClause)
		var head string
		switch {
		case cc.List == nil:
			head = "} else {"
			if bind != "" {
				head += " " + bind + " := " + tv + "; _ = " + bind + ";"
			}
		case len(cc.List) == 1 && !isNilIdent(r, cc.List[0]):
			h := r.asHelper(xt, r.info.TypeOf(cc.List[0]))
			if h == "" {
				return
			}
			v := "_"
			if bind != "" {
				v = bind
			}
			ok := r.fresh("ok")
			head = "} else if " + v + ", " + ok + " := " + h + "(" + tv + "); " + ok + " {"
			if bind != "" {
				head += " _ = " + bind + ";"
			}
		default:
			var conds []string
			for _, e := range cc.List {
				if isNilIdent(r, e) {
					conds = append(conds, tv+" == nil")
					continue
				}
				h := r.asHelper(xt, r.info.TypeOf(e))
				if h == "" {
					return
				}
				conds = append(conds, "func() bool { _, ok := "+h+"("+tv+"); return ok }()")
			}
			head = "} else if " + strings.Join(conds, " || ") + " {"
			if bind != "" {
				head += " " + bind + " := " + tv + "; _ = " + bind + ";"
			}
		}
		heads = append(heads, head)
	}
	for i, cl := range ts.Body.List {
		cc := cl.(*ast.CaseClause)
		r.replace(cc.Case, cc.Colon+1, heads[i])
	}
	r.replace(ts.Switch, x.Pos(), "switch "+tv+" := ")
	r.replace(x.End(), ts.Body.Lbrace+1, "; { default: if false { panic(0)") // a terminating branch: the chain terminates when the switch did
	r.insert(ts.Body.Rbrace, "} ")
}

// typeSwitchBind gives a variable to a type switch that binds none and
// that typeSwitch leaves as it is: without one the interpreter matches no
// value against a case that names the empty interface (case any, case
// interface{}) or a type built on it (case []any, case map[string]any),
// so a switch over a decoded JSON value falls through every case. With
// one it matches as Go does:
//
//	switch v.(type) {  →  switch ts1 := v.(type) {
//	case []any:        →  case []any: _ = ts1;
func (r *rewriter) typeSwitchBind(ts *ast.TypeSwitchStmt) {
	es, ok := ts.Assign.(*ast.ExprStmt)
	if !ok || r.typeSwitchChain(ts) {
		return // bound already, or rewritten as a chain of assertions
	}
	v := r.fresh("ts")
	r.insert(es.Pos(), v+" := ")
	for _, cl := range ts.Body.List {
		r.insert(cl.(*ast.CaseClause).Colon+1, " _ = "+v+";")
	}
}

func isNilIdent(r *rewriter, e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	_, isNil := r.info.Uses[id].(*types.Nil)
	return isNil
}
