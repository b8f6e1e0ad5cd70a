package check

import (
	"fmt"
	"go/ast"
	"go/types"
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
	if s == nil || r.called[sel] {
		return
	}
	recv := s.Recv()
	base := recv
	if p, ok := recv.(*types.Pointer); ok {
		base = p.Elem()
	}
	if _, ok := interpNamed(base); !ok {
		return
	}
	if _, isIface := base.Underlying().(*types.Interface); isIface {
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
		fn := "func(" + params + ")" + results
		ret := "return "
		if results == "" {
			ret = ""
		}
		r.insert(sel.Pos(), fmt.Sprintf("func(r %s) %s { return %s { %sr.%s(%s) } }(", rt, fn, fn, ret, sel.Sel.Name, args))
		r.replace(sel.X.End(), sel.End(), ")")
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

// commaOkIface rewrites a comma-ok assertion to an interface of the
// snippet's (`n, ok := v.(Named)`), which the interpreter panics on, into
// a helper that uses a type switch, which it runs:
//
//	func as(v any) (Named, bool) { switch x := v.(type) { case Named: return x, true }; return nil, false }
func (r *rewriter) commaOkIface(ta *ast.TypeAssertExpr) {
	if ta.Type == nil {
		return
	}
	if _, ok := r.info.Types[ta].Type.(*types.Tuple); !ok {
		return
	}
	t := r.info.TypeOf(ta.Type)
	if _, ok := interpNamed(t); !ok {
		return
	}
	if _, ok := t.Underlying().(*types.Interface); !ok {
		return
	}
	xt := r.info.TypeOf(ta.X)
	tn, xn := r.typeNameQuiet(t), r.typeNameQuiet(xt)
	if tn == "" || xn == "" {
		return
	}
	name := r.helper("as "+xn+" "+tn, "as", func(f string) string {
		return "func " + f + "(v " + xn + ") (" + tn + ", bool) {\nswitch x := v.(type) {\ncase " + tn + ":\nreturn x, true\n}\nreturn nil, false\n}\n"
	})
	r.insert(ta.X.Pos(), name+"(")
	r.replace(ta.X.End(), ta.Rparen+1, ")")
}
