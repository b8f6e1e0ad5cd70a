package check

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"
)

// call rewrites calls of the min/max/clear builtins, of the slices, maps
// and cmp functions the interpreter lacks, and of the snippet's generic
// functions whose type arguments the interpreter cannot infer.
func (r *rewriter) call(call *ast.CallExpr) {
	fun := ast.Unparen(call.Fun)
	if id, ok := fun.(*ast.Ident); ok {
		if b, ok := r.info.Uses[id].(*types.Builtin); ok {
			switch b.Name() {
			case "min", "max":
				r.minMax(call, b.Name())
			case "clear":
				r.clear(call)
			case "panic":
				r.panicCall(call)
			case "recover":
				// The interpreter's recover returns a reflect.Value.
				sh := r.qualify(types.NewPackage(shimPath, "shim"))
				r.insert(call.Pos(), sh+".Recovered(")
				r.insert(call.End(), ")")
			}
			return
		}
	}
	r.variadicSliceArg(call)
	r.unwrapMethodCall(call)
	if r.fmtCall(call) || r.jsonCall(call) || r.jsonDecode(call) || r.seqFuncCall(call) || r.errorsCall(call) {
		return
	}
	if fn := r.stdFunc(call); fn != "" {
		r.stdCall(call, fn)
		return
	}
	if id := calleeIdent(call.Fun); id != nil {
		if fn, ok := r.info.Uses[id].(*types.Func); ok && fn.FullName() == "errors.As" && len(call.Args) == 2 {
			r.errorsAs(call)
			return
		}
		if fn, ok := r.info.Uses[id].(*types.Func); ok && fn.FullName() == treePrefix+"mcp.Ptr" {
			r.ptrCall(call)
			return
		}
	}
	r.instantiate(call)
}

func (r *rewriter) minMax(call *ast.CallExpr, name string) {
	tv := r.info.Types[call]
	if tv.Value != nil {
		r.replace(call.Pos(), call.End(), r.constText(tv))
		for _, a := range call.Args {
			r.skip[a] = true
		}
		return
	}
	fn := r.minMaxHelper(tv.Type, name, call.Pos())
	if fn == "" {
		return
	}
	r.replace(call.Fun.Pos(), call.Fun.End(), fn)
}

// minMaxHelper returns the min or max helper for type t.
func (r *rewriter) minMaxHelper(t types.Type, name string, pos token.Pos) string {
	var tn string
	tps := r.collectTypeParams(func() { tn = r.typeName(t, pos) })
	if tn == "" {
		return ""
	}
	tmpl := minHelper
	if name == "max" {
		tmpl = maxHelper
	}
	if b, ok := t.Underlying().(*types.Basic); ok && b.Info()&types.IsFloat != 0 {
		tmpl = minFloatHelper
		if name == "max" {
			tmpl = maxFloatHelper
		}
	}
	return r.genericHelper(name+" "+tn, name, tps, func(f string) string {
		return strings.NewReplacer("$F", f, "$T", tn).Replace(tmpl)
	})
}

// constText writes a constant value as Go source of its type.
func (r *rewriter) constText(tv types.TypeAndValue) string {
	var lit string
	if tv.Value.Kind() == constant.String {
		lit = strconv.Quote(constant.StringVal(tv.Value))
	} else {
		lit = tv.Value.ExactString()
		if tv.Value.Kind() == constant.Float {
			if f, exact := constant.Float64Val(tv.Value); exact || !strings.Contains(lit, "/") {
				lit = strconv.FormatFloat(f, 'g', -1, 64)
				if !strings.ContainsAny(lit, ".eEn") {
					lit += ".0"
				}
			}
		}
	}
	if b, ok := tv.Type.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		return "(" + lit + ")"
	}
	tn := types.TypeString(tv.Type, r.qualify)
	return tn + "(" + lit + ")"
}

func (r *rewriter) clear(call *ast.CallExpr) {
	if len(call.Args) != 1 {
		return
	}
	t := r.info.TypeOf(call.Args[0])
	if t == nil {
		return
	}
	tn := r.typeName(t, call.Pos())
	if tn == "" {
		return
	}
	var decl string
	switch u := t.Underlying().(type) {
	case *types.Map:
		if hasFloat(u.Key()) {
			r.errorf(call.Pos(), "assign a new map instead (m = map[K]V{}) if nothing else refers to it", "the interpreter cannot clear a map whose keys may be NaN")
			return
		}
		decl = `func $F(m $T) {
	for k := range m {
		delete(m, k)
	}
}`
	case *types.Slice:
		decl = `func $F(s $T) {
	var zero $E
	for i := range s {
		s[i] = zero
	}
}`
		en := r.typeName(u.Elem(), call.Pos())
		if en == "" {
			return
		}
		decl = strings.ReplaceAll(decl, "$E", en)
	default:
		return
	}
	fn := r.helper("clear "+tn, "clear", func(f string) string {
		return strings.NewReplacer("$F", f, "$T", tn).Replace(decl)
	})
	r.replace(call.Fun.Pos(), call.Fun.End(), fn)
}

// hasFloat reports whether values of t can hold a float (NaN) inside.
func hasFloat(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&(types.IsFloat|types.IsComplex) != 0
	case *types.Array:
		return hasFloat(u.Elem())
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if hasFloat(u.Field(i).Type()) {
				return true
			}
		}
	case *types.Interface:
		return true
	}
	return false
}

// typeArgs returns the type arguments of the call's instantiation.
func (r *rewriter) typeArgs(call *ast.CallExpr) []types.Type {
	return r.instTypeArgs(calleeIdent(call.Fun))
}

// instTypeArgs returns the type arguments of the generic function id
// names, explicit or inferred.
func (r *rewriter) instTypeArgs(id *ast.Ident) []types.Type {
	inst, ok := r.info.Instances[id]
	if !ok || inst.TypeArgs == nil {
		return nil
	}
	out := make([]types.Type, inst.TypeArgs.Len())
	for i := range out {
		out[i] = inst.TypeArgs.At(i)
	}
	return out
}

// supported lists the slices, maps and cmp functions snippets may call.
func supported() string {
	var names []string
	for n, t := range stdHelpers {
		if t != "" && !strings.HasPrefix(n, "sync.") {
			names = append(names, n)
		}
	}
	names = append(names, "slices.Collect(maps.Keys/maps.Values/slices.Values(x))", "slices.Sorted(...)", "slices.SortedFunc(...)", "maps.Collect(maps.All(m))")
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// stdCall rewrites a call of a slices, maps or cmp function to a helper.
func (r *rewriter) stdCall(call *ast.CallExpr, fn string) {
	switch fn {
	case "slices.Collect", "slices.Sorted", "slices.SortedFunc":
		r.seqConsumer(call, fn)
		return
	case "maps.Collect":
		if r.mapsCollectAll(call) || r.mapsCollectFunc(call) {
			return
		}
	}
	name, ok := r.stdHelper(fn, r.typeArgs(call), call.Pos())
	if !ok {
		return
	}
	r.replace(call.Fun.Pos(), call.Fun.End(), name)
	r.consume(call)
}

// stdHelper returns the helper that does fn (a function of slices, maps
// or cmp) for the type arguments args, or reports at pos why there is
// none.
func (r *rewriter) stdHelper(fn string, args []types.Type, pos token.Pos) (string, bool) {
	tmpl, ok := stdHelpers[fn]
	if !ok || tmpl == "" {
		hint := "supported: " + supported()
		if _, isSeq := seqHelpers[fn]; isSeq || strings.HasPrefix(fn, "maps.") && strings.Contains("maps.All maps.Insert maps.Collect", fn) {
			hint = "iterators work only inside slices.Collect, slices.Sorted, slices.SortedFunc and range, e.g. slices.Sorted(maps.Keys(m))\n" + hint
		}
		r.errorf(pos, hint, "%s is not available in snippets", fn)
		return "", false
	}
	var repl []string
	ok = false
	tps := r.collectTypeParams(func() { repl, ok = r.replacer(fn, args, pos) })
	if !ok {
		return "", false
	}
	key := fn + " " + strings.Join(repl[1:], ",")
	return r.genericHelper(key, strings.ReplaceAll(fn, ".", "_"), tps, func(f string) string {
		return strings.NewReplacer(append([]string{"$F", f}, repl...)...).Replace(tmpl)
	}), true
}

// replacer maps the template placeholders of fn to the type names of its
// type arguments. The first pair is a dummy so that the key is stable.
func (r *rewriter) replacer(fn string, args []types.Type, pos token.Pos) ([]string, bool) {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = r.typeName(a, pos)
		if names[i] == "" {
			return nil, false
		}
	}
	var ph []string
	switch {
	case fn == "maps.Copy" || fn == "maps.Equal":
		ph = []string{"$M1", "$M2", "$K", "$V"}
	case fn == "sync.OnceFunc":
		ph = nil
	case fn == "sync.OnceValues":
		ph = []string{"$T1", "$T2"}
	case strings.HasPrefix(fn, "maps."):
		ph = []string{"$M", "$K", "$V"}
	case strings.HasPrefix(fn, "slices.") && len(names) == 3:
		ph = []string{"$S", "$E", "$T"}
	case strings.HasPrefix(fn, "slices."):
		ph = []string{"$S", "$E"}
	default:
		ph = []string{"$T"}
	}
	if len(ph) != len(names) {
		r.errorf(pos, "", "%s: unexpected type arguments %v", fn, names)
		return nil, false
	}
	repl := []string{"$$", "$"}
	for i := range ph {
		repl = append(repl, ph[i], names[i])
	}
	// Longest placeholders first: $M1 before $M.
	if strings.HasPrefix(fn, "sync.") {
		repl = append(repl, "$sync", r.qualify(types.NewPackage("sync", "sync")))
	}
	if strings.HasPrefix(fn, "slices.") {
		if strings.Contains(stdHelpers[fn], "$sort") {
			repl = append(repl, "$sort", r.qualify(types.NewPackage("sort", "sort")))
		}
		if fn == "slices.Max" || fn == "slices.Min" {
			m := r.minMaxHelper(args[1], strings.ToLower(strings.TrimPrefix(fn, "slices.")), pos)
			repl = append(repl, "$max", m, "$min", m)
		}
	}
	return repl, true
}

// mapsCollectAll rewrites maps.Collect(maps.All(m)), a copy of m, to a
// helper that copies it (the interpreter has no iterators); false when
// call is another form.
func (r *rewriter) mapsCollectAll(call *ast.CallExpr) bool {
	if len(call.Args) != 1 {
		return false
	}
	inner, _ := ast.Unparen(call.Args[0]).(*ast.CallExpr)
	if inner == nil || r.stdFunc(inner) != "maps.All" || len(inner.Args) != 1 {
		return false
	}
	kv := r.typeArgs(call)
	if len(kv) != 2 {
		return false
	}
	kn, vn := r.typeName(kv[0], call.Pos()), r.typeName(kv[1], call.Pos())
	if kn == "" || vn == "" {
		return true // typeName reported why
	}
	cp := r.helper("mapscollectall "+kn+" "+vn, "collectmap", func(f string) string {
		return strings.NewReplacer("$F", f, "$K", kn, "$V", vn).Replace(
			`func $F(m map[$K]$V) map[$K]$V { out := make(map[$K]$V, len(m)); for k, v := range m { out[k] = v }; return out }`)
	})
	r.skip[inner] = true
	r.consume(inner)
	r.consume(call)
	r.replace(call.Pos(), inner.Args[0].Pos(), cp+"(")
	r.replace(inner.Args[0].End(), call.End(), ")")
	r.walk(inner.Args[0], nil)
	return true
}

// mapsCollectFunc rewrites maps.Collect over a function iterator (a
// function literal, a function of the snippet's returning iter.Seq2) to
// a helper that calls it with a yield function filling the map; false
// when its argument is a call of the standard library (refused as
// unsupported unless mapsCollectAll took it).
func (r *rewriter) mapsCollectFunc(call *ast.CallExpr) bool {
	if len(call.Args) != 1 {
		return false
	}
	if inner, _ := ast.Unparen(call.Args[0]).(*ast.CallExpr); inner != nil && r.stdFunc(inner) != "" {
		return false
	}
	if params, isSeq := yieldSig(r.info.TypeOf(call.Args[0])); !isSeq || params.Len() != 2 {
		return false
	}
	kv := r.typeArgs(call)
	if len(kv) != 2 {
		return false
	}
	kn, vn := r.typeName(kv[0], call.Pos()), r.typeName(kv[1], call.Pos())
	if kn == "" || vn == "" {
		return true // typeName reported why
	}
	collect := r.helper("mapscollectseq "+kn+" "+vn, "collectmap", func(f string) string {
		return strings.NewReplacer("$F", f, "$K", kn, "$V", vn).Replace(
			`func $F(seq func(func($K, $V) bool)) map[$K]$V { out := map[$K]$V{}; seq(func(k $K, v $V) bool { out[k] = v; return true }); return out }`)
	})
	r.consume(call)
	r.replace(call.Fun.Pos(), call.Fun.End(), collect)
	return true
}

// seqConsumer rewrites slices.Collect/Sorted/SortedFunc over maps.Keys,
// maps.Values or slices.Values.
func (r *rewriter) seqConsumer(call *ast.CallExpr, fn string) {
	var inner *ast.CallExpr
	if len(call.Args) > 0 {
		inner, _ = ast.Unparen(call.Args[0]).(*ast.CallExpr)
	}
	innerFn := r.stdFunc(inner)
	tmpl, ok := seqHelpers[innerFn]
	if (!ok || len(inner.Args) != 1) && len(call.Args) > 0 {
		if params, isSeq := yieldSig(r.info.TypeOf(call.Args[0])); isSeq && params.Len() == 1 {
			r.seqConsumerFunc(call, fn, params.At(0).Type())
			return
		}
	}
	if !ok || len(inner.Args) != 1 {
		r.errorf(call.Pos(), "write "+fn+"(maps.Keys(m)), "+fn+"(maps.Values(m)) or "+fn+"(slices.Values(s)), or build the slice with a loop",
			"%s is only supported over maps.Keys, maps.Values and slices.Values in snippets (the interpreter has no iterators)", fn)
		return
	}
	repl, ok := r.replacer(innerFn, r.typeArgs(inner), inner.Pos())
	if !ok {
		return
	}
	key := innerFn + " " + strings.Join(repl[1:], ",")
	collect := r.helper(key, "collect", func(f string) string {
		return strings.NewReplacer(append([]string{"$F", f}, repl...)...).Replace(tmpl)
	})
	r.skip[inner] = true
	r.consume(inner)
	r.consume(call)
	// fn(inner(x)[, f]) → collect(x) wrapped in a sort.
	elem := r.typeArgs(call)
	if len(elem) == 0 {
		return
	}
	en := r.typeName(elem[0], call.Pos())
	if en == "" {
		return
	}
	var outer string
	switch fn {
	case "slices.Collect":
		r.replace(call.Pos(), inner.Args[0].Pos(), collect+"(")
		r.replace(inner.Args[0].End(), call.End(), ")")
		r.walk(inner.Args[0], nil)
		return
	case "slices.Sorted":
		outer = r.helper("sorted "+en, "sorted", func(f string) string {
			return strings.NewReplacer("$F", f, "$E", en, "$sort", r.qualify(types.NewPackage("sort", "sort"))).Replace(
				`func $F(x []$E) []$E { $sort.Slice(x, func(i, j int) bool { return x[i] < x[j] || (x[i] != x[i] && x[j] == x[j]) }); return x }`)
		})
		r.replace(call.Pos(), inner.Args[0].Pos(), outer+"("+collect+"(")
		r.replace(inner.Args[0].End(), call.End(), "))")
		r.walk(inner.Args[0], nil)
	case "slices.SortedFunc":
		outer = r.helper("sortedfunc "+en, "sortedfunc", func(f string) string {
			return strings.NewReplacer("$F", f, "$E", en, "$sort", r.qualify(types.NewPackage("sort", "sort"))).Replace(
				`func $F(x []$E, cmp func(a, b $E) int) []$E { $sort.SliceStable(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 }); return x }`)
		})
		if len(call.Args) != 2 {
			return
		}
		r.replace(call.Pos(), inner.Args[0].Pos(), outer+"("+collect+"(")
		r.replace(inner.Args[0].End(), call.Args[1].Pos(), "), ")
		r.walk(inner.Args[0], nil)
		r.walk(call.Args[1], nil)
		r.skip[call.Args[1]] = true
	}
}

// instantiate writes the inferred type arguments of a call of the
// snippet's own generic function explicitly (completing a partial list):
// yaegi infers them only partly.
func (r *rewriter) instantiate(call *ast.CallExpr) {
	var id *ast.Ident
	var given int
	var lbrack, rbrack token.Pos
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.IndexExpr:
		id, _ = f.X.(*ast.Ident)
		given, lbrack, rbrack = 1, f.Lbrack, f.Rbrack
	case *ast.IndexListExpr:
		id, _ = f.X.(*ast.Ident)
		given, lbrack, rbrack = len(f.Indices), f.Lbrack, f.Rbrack
	}
	if id == nil {
		return
	}
	fn, ok := r.info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() != r.pkg {
		return
	}
	args := r.typeArgs(call)
	if len(args) == 0 || given == len(args) {
		return
	}
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = r.typeName(a, id.Pos())
		if names[i] == "" {
			return
		}
	}
	list := "[" + strings.Join(names, ", ") + "]"
	if given == 0 {
		r.insert(id.End(), list)
		return
	}
	r.replace(lbrack, rbrack+1, list)
}

// errorsAs rewrites errors.As with a target of a type the interpreter
// declares, which the host's errors.As refuses, to a helper that follows
// the chain with type assertions.
func (r *rewriter) errorsAs(call *ast.CallExpr) {
	pt, ok := underlying(r.info.TypeOf(call.Args[1])).(*types.Pointer)
	if !ok {
		return
	}
	if !interpreted(pt.Elem()) && !ifaceLiteral(pt.Elem()) {
		// The host's errors.As handles standard types; it follows the
		// Unwrap methods of the snippet's errors once they are converted.
		r.wrapErrArg(call.Args[0])
		return
	}
	tn := r.typeName(pt.Elem(), call.Args[1].Pos())
	if tn == "" {
		return
	}
	conv := r.errConv(types.Universe.Lookup("error").Type())
	if conv == "" {
		conv = "func(e error) error { return e }"
	}
	tmpl := errorsAsHelper
	var typed strings.Builder // the original value of a shim.Err, typed
	if _, isIface := pt.Elem().Underlying().(*types.Interface); isIface {
		// An interface of the snippet's: the interpreter's comma-ok
		// assertion to it fails; a type switch over the original value
		// (asserted back to its own type) works.
		tmpl = errorsAsIfaceHelper
		for _, c := range r.errCandidates() {
			if cn := r.typeNameQuiet(c); cn != "" {
				fmt.Fprintf(&typed, "if c, ok := w.V.(%s); ok {\n\t\t\t\tv = c\n\t\t\t}\n\t\t\t", cn)
			}
		}
	}
	name := r.helper("errors.As "+tn, "errorsAs", func(f string) string {
		return strings.NewReplacer("$F", f, "$T", tn, "$errors", r.qualify(types.NewPackage("errors", "errors")),
			"$conv", conv, "$shim", r.qualify(types.NewPackage(shimPath, "shim")), "$typed", typed.String()).Replace(tmpl)
	})
	r.replace(call.Fun.Pos(), call.Fun.End(), name)
	r.consume(call)
}

// ifaceLiteral reports whether t is an interface type written out with
// methods (interface{ Timeout() bool }): the interpreter declares it, and
// the host's errors.As refuses a pointer to it as a target.
func ifaceLiteral(t types.Type) bool {
	it, ok := types.Unalias(t).(*types.Interface)
	return ok && it.NumMethods() > 0
}

// interpreted reports whether t is (a pointer to) a named type that the
// interpreter declares: the snippet's own or a tree package's.
func interpreted(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	p := n.Obj().Pkg().Path()
	return p == "main" || strings.HasPrefix(p, treePrefix)
}

// seqConsumerFunc rewrites slices.Collect/Sorted/SortedFunc over any
// function iterator: a helper collects its values into a slice.
func (r *rewriter) seqConsumerFunc(call *ast.CallExpr, fn string, elem types.Type) {
	en := r.typeName(elem, call.Pos())
	if en == "" {
		return
	}
	collect := r.helper("collectseq "+en, "collect", func(f string) string {
		return strings.NewReplacer("$F", f, "$E", en).Replace(
			`func $F(seq func(func($E) bool)) []$E { var out []$E; seq(func(v $E) bool { out = append(out, v); return true }); return out }`)
	})
	r.consume(call)
	arg := call.Args[0]
	switch fn {
	case "slices.Collect":
		r.replace(call.Fun.Pos(), call.Fun.End(), collect)
	case "slices.Sorted":
		outer := r.helper("sorted "+en, "sorted", func(f string) string {
			return strings.NewReplacer("$F", f, "$E", en, "$sort", r.qualify(types.NewPackage("sort", "sort"))).Replace(
				`func $F(x []$E) []$E { $sort.Slice(x, func(i, j int) bool { return x[i] < x[j] || (x[i] != x[i] && x[j] == x[j]) }); return x }`)
		})
		r.replace(call.Fun.Pos(), call.Fun.End(), outer)
		r.insert(arg.Pos(), collect+"(")
		r.insert(arg.End(), ")")
	case "slices.SortedFunc":
		outer := r.helper("sortedfunc "+en, "sortedfunc", func(f string) string {
			return strings.NewReplacer("$F", f, "$E", en, "$sort", r.qualify(types.NewPackage("sort", "sort"))).Replace(
				`func $F(x []$E, cmp func(a, b $E) int) []$E { $sort.SliceStable(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 }); return x }`)
		})
		r.replace(call.Fun.Pos(), call.Fun.End(), outer)
		r.insert(arg.Pos(), collect+"(")
		r.insert(arg.End(), ")")
	}
}

// ptrCall rewrites mcp.Ptr(v), generic, into a helper for its type
// argument: the worker's runtime package is compiled and has no generic
// functions.
func (r *rewriter) ptrCall(call *ast.CallExpr) {
	args := r.typeArgs(call)
	if len(args) != 1 {
		return
	}
	tn := r.typeName(args[0], call.Pos())
	if tn == "" {
		return
	}
	r.replace(call.Fun.Pos(), call.Fun.End(), r.ptrHelper(tn))
	r.consume(call)
}

// ptrHelper returns the name of the helper that does mcp.Ptr for type tn.
func (r *rewriter) ptrHelper(tn string) string {
	return r.helper("ptr "+tn, "ptr", func(f string) string {
		return "func " + f + "(v " + tn + ") *" + tn + " { return &v }"
	})
}

// panicCall records where a panic call is, and what Go prints for its
// value: the interpreter reports a panic at the start of the function.
// The value itself reaches recover unchanged (shim.Recovered).
func (r *rewriter) panicCall(call *ast.CallExpr) {
	if r.tag != "" || len(call.Args) != 1 {
		return
	}
	arg := call.Args[0]
	t := r.info.TypeOf(arg)
	if t == nil {
		return
	}
	if b, ok := t.Underlying().(*types.Basic); ok && b.Info()&(types.IsFloat|types.IsComplex) != 0 {
		return // Go prints floats in the runtime's own format
	}
	sh := r.qualify(types.NewPackage(shimPath, "shim"))
	fmtName := r.qualify(types.NewPackage("fmt", "fmt"))
	line := strconv.Itoa(r.fset.Position(call.Lparen).Line)
	// The value is evaluated once, into the helper's parameter.
	tn := "any"
	if tb, ok := t.(*types.Basic); !ok || tb.Info()&types.IsUntyped == 0 {
		if n := r.typeNameQuiet(t); n != "" {
			tn = n
		}
	}
	// A value of the snippet's own type that is an error is stored as
	// an error, so that recover gives back a value whose Error method
	// a type assertion and fmt still see.
	at := "At"
	own := t
	if p, ok := t.(*types.Pointer); ok {
		own = p.Elem()
	}
	if _, ok := interpNamed(own); ok && tn != "any" && !types.IsInterface(t) && types.Implements(t, types.Universe.Lookup("error").Type().Underlying().(*types.Interface)) {
		at = "AtErr"
	}
	msg := "v"
	if tn == "any" {
		if empty := types.NewInterfaceType(nil, nil); r.fmtNeeds(empty, true, false, true, map[string]bool{}) {
			msg = r.fmtConv(empty, true, false, true, call.Pos()) + "(v)"
		}
	} else if r.fmtNeeds(t, true, false, true, map[string]bool{}) {
		if h := r.fmtConv(t, true, false, true, call.Pos()); h != "" {
			msg = h + "(v)"
		}
	}
	name := r.helper("panic "+tn, "at", func(f string) string {
		return "func " + f + "(v " + tn + ", line int) " + sh + ".Located { return " + sh + "." + at + "(v, " + fmtName + ".Sprint(" + msg + "), " + strconv.Quote(r.filename) + ", line) }"
	})
	r.insert(arg.Pos(), name+"(")
	r.insert(arg.End(), ", "+line+")")
}

// variadicSliceArg rewrites a call of a snippet's variadic function whose
// first variadic argument is itself a slice of the variadic type, or an
// interface that may hold one (f(xs), f(xs, y), f(any(xs)) for
// func f(args ...any) and xs []any): Go passes xs as one element, the
// interpreter spreads it as if it were f(xs...). The
// variadic arguments become []E{xs, y}..., which both read the same.
func (r *rewriter) variadicSliceArg(call *ast.CallExpr) {
	if call.Ellipsis.IsValid() {
		return
	}
	sig, ok := r.info.TypeOf(call.Fun).(*types.Signature)
	if !ok || !sig.Variadic() || len(call.Args) < sig.Params().Len() {
		return
	}
	if id := calleeIdent(call.Fun); id != nil {
		if fn, ok := r.info.Uses[id].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() != "main" {
			return // compiled functions get their arguments right
		}
	}
	slice, ok := sig.Params().At(sig.Params().Len() - 1).Type().(*types.Slice)
	if !ok {
		return
	}
	first := call.Args[sig.Params().Len()-1]
	at := r.info.TypeOf(first)
	if at == nil || !types.AssignableTo(at, slice.Elem()) {
		return
	}
	// A slice, or an interface that may hold one (any(xs)).
	if _, isSlice := at.Underlying().(*types.Slice); !isSlice && !types.IsInterface(at) {
		return
	}
	en := r.typeNameQuiet(slice)
	if en == "" {
		return
	}
	r.insert(first.Pos(), en+"{")
	r.insert(call.Args[len(call.Args)-1].End(), "}...")
}

// shiftConst gives the constant left operand of a non-constant shift its
// type: in p&(1<<i) with p a uint8 type, Go types the 1 as p's type (the
// type it would have without the shift), the interpreter as int. The
// operand becomes T(1).
func (r *rewriter) shiftConst(b *ast.BinaryExpr) {
	if b.Op != token.SHL && b.Op != token.SHR {
		return
	}
	if tv, ok := r.info.Types[b]; !ok || tv.Value != nil {
		return // a constant shift
	}
	xt, ok := r.info.Types[b.X]
	if !ok || xt.Value == nil || xt.Type == nil {
		return
	}
	if bt, ok := xt.Type.(*types.Basic); ok && bt.Info()&types.IsUntyped != 0 {
		return
	}
	if lit, ok := ast.Unparen(b.X).(*ast.BasicLit); !ok || lit.Kind != token.INT {
		return // an operand already typed where it is written
	}
	tn := r.typeNameQuiet(xt.Type)
	if tn == "" {
		return
	}
	r.insert(b.X.Pos(), tn+"(")
	r.insert(b.X.End(), ")")
}
