package check

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"
)

// errorMethods reports whether t (a type of interpreted code) has Error()
// string and Unwrap() error in its method set.
func errorMethods(t types.Type) (isErr, unwrap bool) {
	base := t
	if p, ok := t.(*types.Pointer); ok {
		base = p.Elem()
	}
	n, ok := interpNamed(base)
	if !ok {
		return false, false
	}
	ms := types.NewMethodSet(t)
	if sel := ms.Lookup(n.Obj().Pkg(), "Error"); sel != nil {
		isErr = fmtMethodSig("Error", sel.Obj().Type().(*types.Signature))
	}
	if sel := ms.Lookup(n.Obj().Pkg(), "Unwrap"); sel != nil {
		sig := sel.Obj().Type().(*types.Signature)
		unwrap = sig.Params().Len() == 0 && sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), types.Universe.Lookup("error").Type())
	}
	return isErr, unwrap
}

// isMethod reports whether t has the method Is(error) bool that
// errors.Is calls.
func isMethod(t types.Type) bool {
	obj, _, _ := types.LookupFieldOrMethod(t, false, nil, "Is")
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Type().(*types.Signature)
	return sig.Params().Len() == 1 && sig.Results().Len() == 1 &&
		types.Identical(sig.Params().At(0).Type(), types.Universe.Lookup("error").Type()) &&
		types.Identical(sig.Results().At(0).Type(), types.Typ[types.Bool])
}

// concreteTypes are the snippet's named types that a value in an
// interface can be told apart as: not aliases, generics or interfaces,
// and with no twin of the same shape (see shapeTwin).
func (r *rewriter) concreteTypes() []*types.Named {
	var out []*types.Named
	scope := r.pkg.Scope()
	for _, n := range scope.Names() {
		tn, ok := scope.Lookup(n).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		nt, ok := tn.Type().(*types.Named)
		if !ok || nt.TypeParams().Len() > 0 {
			continue
		}
		if _, isIface := nt.Underlying().(*types.Interface); isIface {
			continue
		}
		if shapeTwin(r.pkg, nt) != nil {
			continue // indistinguishable from its twin in an interface
		}
		out = append(out, nt)
	}
	return out
}

// errCandidates are the snippet's types (T, *T) that are errors: both
// when T's Error method has a value receiver (an error may hold either).
func (r *rewriter) errCandidates() []types.Type {
	var out []types.Type
	for _, nt := range r.concreteTypes() {
		for _, t := range []types.Type{types.NewPointer(nt), nt} {
			if isErr, _ := errorMethods(t); isErr {
				out = append(out, t)
			}
		}
	}
	return out
}

// errConv returns the helper that turns a value of type t (an error type
// of the snippet's, or the error interface) into an error whose Error and
// Unwrap methods the standard library sees (a shim.Err), or "" when no
// conversion is needed.
func (r *rewriter) errConv(t types.Type) string {
	t = types.Unalias(t)
	if it, ok := t.Underlying().(*types.Interface); ok {
		if !types.Identical(t, types.Universe.Lookup("error").Type()) && it.NumMethods() > 0 {
			return ""
		}
		cands := r.errCandidates()
		if len(cands) == 0 {
			return ""
		}
		return r.helper("errdyn", "errdyn", func(f string) string {
			var b strings.Builder
			fmt.Fprintf(&b, "func %s(x error) error {\n", f)
			for _, c := range cands {
				h := r.errConv(c)
				cn := r.typeNameQuiet(c)
				if h == "" || cn == "" {
					continue
				}
				fmt.Fprintf(&b, "if v, ok := x.(%s); ok {\nreturn %s(v)\n}\n", cn, h)
			}
			b.WriteString("return x\n}\n")
			return b.String()
		})
	}
	isErr, unwrap := errorMethods(t)
	tn := r.typeNameQuiet(t)
	if !isErr || tn == "" {
		return ""
	}
	sh := r.qualify(types.NewPackage(shimPath, "shim"))
	key := "err " + tn
	if h, ok := r.helpers[key]; ok {
		return h
	}
	name := r.fresh("err")
	r.helpers[key] = name
	next := "nil"
	if unwrap {
		next = "func() error { return " + r.errConv(types.Universe.Lookup("error").Type()) + "(x.Unwrap()) }"
	}
	nilCheck := ""
	if _, isPtr := t.(*types.Pointer); isPtr {
		nilCheck = "if x == nil {\nreturn nil\n}\n"
	}
	if isMethod(t) {
		// errors.Is calls the value's Is method with the target, as
		// the value it stands for when it is one of the snippet's.
		r.defs = append(r.defs, fmt.Sprintf("func %s(x %s) error {\n%sreturn %s.WrapErrIs(x, x.Error, %s, func(t any) bool {\nte, _ := t.(error)\nreturn x.Is(te)\n})\n}\n", name, tn, nilCheck, sh, next))
		return name
	}
	r.defs = append(r.defs, fmt.Sprintf("func %s(x %s) error {\n%sreturn %s.WrapErr(x, x.Error, %s)\n}\n", name, tn, nilCheck, sh, next))
	return name
}

// wrapErrArg converts the error argument e for the standard library, and
// reports whether it did.
func (r *rewriter) wrapErrArg(e ast.Expr) bool {
	t := r.info.TypeOf(e)
	if t == nil {
		return false
	}
	h := r.errConv(t)
	if h == "" {
		return false
	}
	r.insert(e.Pos(), h+"(")
	r.insert(e.End(), ")")
	return true
}

// wrapErrSlice converts the errors of the slice e ([]error, given as
// errors.Join(errs...)) as wrapErrArg converts one.
func (r *rewriter) wrapErrSlice(e ast.Expr) {
	st, ok := types.Unalias(r.info.TypeOf(e)).(*types.Slice)
	if !ok {
		return
	}
	h := r.errConv(st.Elem())
	if h == "" {
		return
	}
	f := r.helper("errslice "+h, "errslice", func(f string) string {
		return "func " + f + "(xs []error) []error {\nout := make([]error, len(xs))\nfor i, x := range xs {\nout[i] = " + h + "(x)\n}\nreturn out\n}\n"
	})
	r.insert(e.Pos(), f+"(")
	r.insert(e.End(), ")")
}

// errorsCall converts the errors given to errors.Is, errors.As (with a
// target of the standard library's) and errors.Unwrap, so that they follow
// the Unwrap methods of the snippet's error types.
func (r *rewriter) errorsCall(call *ast.CallExpr) bool {
	fn, ok := r.info.Uses[calleeIdent(call.Fun)].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "errors" {
		return false
	}
	switch fn.Name() {
	case "Is":
		if len(call.Args) == 2 {
			r.wrapErrArg(call.Args[0])
			r.wrapErrArg(call.Args[1])
		}
		return true
	case "Join":
		// The joined errors are seen by errors.Is and errors.As through
		// the join's Unwrap() []error: they are converted as Is's are.
		for i, a := range call.Args {
			if i == len(call.Args)-1 && call.Ellipsis.IsValid() {
				r.wrapErrSlice(a)
				continue
			}
			r.wrapErrArg(a)
		}
		return true
	case "Unwrap":
		if len(call.Args) == 1 && r.wrapErrArg(call.Args[0]) {
			r.insert(call.Pos(), r.unwrapHelper()+"(")
			r.insert(call.End(), ")")
		}
		return true
	}
	return false
}

// unwrapHelper returns the helper that turns a shim.Err back into the
// snippet's error it carries.
func (r *rewriter) unwrapHelper() string {
	return r.helper("errunwrap", "unwrap", func(f string) string {
		sh := r.qualify(types.NewPackage(shimPath, "shim"))
		// The wrapped value is asserted to the snippet's error
		// types first: the interpreter does not see the error
		// interface in a value of an interpreted type held by the
		// standard library's any, so w.V.(error) fails for it.
		var b strings.Builder
		b.WriteString("func " + f + "(e error) error {\nif w, ok := e.(*" + sh + ".Err); ok {\n")
		for _, c := range r.errCandidates() {
			if cn := r.typeNameQuiet(c); cn != "" {
				fmt.Fprintf(&b, "if v, ok := w.V.(%s); ok {\nreturn v\n}\n", cn)
			}
		}
		b.WriteString("if v, ok := w.V.(error); ok {\nreturn v\n}\n}\nreturn e\n}\n")
		return b.String()
	})
}

// unwrapMethodCall converts what an Unwrap method called through an
// interface returns (`e.Unwrap()` with e an error or an interface{
// Unwrap() error }): the value may be one of the standard library's
// (fmt.Errorf's, errors.Join's) holding the snippet's errors as the
// shim.Errs errorsCall made of them, which the snippet must get back as
// they were.
func (r *rewriter) unwrapMethodCall(call *ast.CallExpr) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Unwrap" || len(call.Args) != 0 {
		return
	}
	s, ok := r.info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal || !types.IsInterface(s.Recv()) {
		return
	}
	if len(r.errCandidates()) == 0 {
		return
	}
	errType := types.Universe.Lookup("error").Type()
	switch t := r.info.TypeOf(call); {
	case t != nil && types.Identical(t, errType):
		r.insert(call.Pos(), r.unwrapHelper()+"(")
		r.insert(call.End(), ")")
	case t != nil && types.Identical(t, types.NewSlice(errType)):
		un := r.unwrapHelper()
		f := r.helper("errunwrapall", "unwrapall", func(f string) string {
			return "func " + f + "(errs []error) []error {\nif errs == nil {\nreturn nil\n}\nout := make([]error, len(errs))\nfor i, e := range errs {\nout[i] = " + un + "(e)\n}\nreturn out\n}\n"
		})
		r.insert(call.Pos(), f+"(")
		r.insert(call.End(), ")")
	}
}
