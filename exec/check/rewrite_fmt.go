package check

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"unicode/utf8"
)

// shimPath is the import path of the compiled helpers of the fmt rewrite
// (exec/internal/shim.ImportPath).
const shimPath = "mcpfs/internal/shim"

// fmtFuncs are the fmt functions whose arguments the rewrite converts:
// the index of the format argument (-1: none) and of the first value.
var fmtFuncs = map[string]struct{ format, first int }{
	"fmt.Print":    {-1, 0},
	"fmt.Println":  {-1, 0},
	"fmt.Sprint":   {-1, 0},
	"fmt.Sprintln": {-1, 0},
	"fmt.Fprint":   {-1, 1},
	"fmt.Fprintln": {-1, 1},
	"fmt.Printf":   {0, 1},
	"fmt.Sprintf":  {0, 1},
	"fmt.Errorf":   {0, 1},
	"fmt.Fprintf":  {1, 2},
}

// argVerbs is how a format uses one argument.
type argVerbs struct {
	name bool // %T or %#v: the type's name is printed
	wrap bool // %w: the value itself must reach fmt.Errorf
}

// formatVerbs parses a constant format as fmt does and returns how it uses
// each argument; ok is false when it cannot tell.
func formatVerbs(format string, nargs int) (uses []argVerbs, ok bool) {
	uses = make([]argVerbs, nargs)
	argNum := 0
	index := func(i int) int {
		if i < len(format) && format[i] == '[' {
			j := strings.IndexByte(format[i:], ']')
			if j > 0 {
				if n, err := strconv.Atoi(format[i+1 : i+j]); err == nil && n >= 1 {
					argNum = n - 1
				}
				return i + j + 1
			}
		}
		return i
	}
	digits := func(i int) int {
		for i < len(format) && format[i] >= '0' && format[i] <= '9' {
			i++
		}
		return i
	}
	for i := 0; i < len(format); {
		if format[i] != '%' {
			i++
			continue
		}
		i++
		sharp, plus := false, false
		for i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0 {
			sharp = sharp || format[i] == '#'
			plus = plus || format[i] == '+'
			i++
		}
		i = index(i)
		if i < len(format) && format[i] == '*' {
			argNum++
			i++
		} else {
			i = digits(i)
		}
		if i < len(format) && format[i] == '.' {
			i++
			i = index(i)
			if i < len(format) && format[i] == '*' {
				argNum++
				i++
			} else {
				i = digits(i)
			}
		}
		i = index(i)
		if i >= len(format) {
			break
		}
		verb, size := utf8.DecodeRuneInString(format[i:])
		i += size
		if verb == '%' {
			continue
		}
		if argNum < nargs {
			switch {
			case verb == 'T' || (verb == 'v' && (sharp || plus)):
				// %+v prints field names, which the interpreter spells
				// X<name> for unexported fields: format it as Go does.
				uses[argNum].name = true
			case verb == 'w':
				uses[argNum].wrap = true
			}
		}
		argNum++
	}
	return uses, true
}

// fmtCall converts the arguments of a call of a fmt print function whose
// types the interpreter would format differently from Go: values of the
// snippet's types with String, Error, Format or GoString methods anywhere
// inside them, and any of the snippet's types under %T and %#v. It
// reports whether call is such a call.
func (r *rewriter) fmtCall(call *ast.CallExpr) bool {
	fn, ok := r.info.Uses[calleeIdent(call.Fun)].(*types.Func)
	if !ok {
		return false
	}
	spec, ok := fmtFuncs[fn.FullName()]
	if !ok || len(call.Args) <= spec.first {
		return ok
	}
	nargs := len(call.Args) - spec.first
	var uses []argVerbs
	constFormat := false
	if spec.format >= 0 {
		if tv := r.info.Types[call.Args[spec.format]]; tv.Value != nil && tv.Value.Kind() == constant.String {
			uses, constFormat = formatVerbs(constant.StringVal(tv.Value), nargs)
		}
	}
	if uses == nil {
		uses = make([]argVerbs, nargs)
		for i := range uses {
			// Unknown format: any verb may apply, but an error may be %w.
			uses[i].name = spec.format >= 0
			uses[i].wrap = fn.Name() == "Errorf"
		}
	}
	if call.Ellipsis.IsValid() {
		for i := range uses {
			uses[i].name = spec.format >= 0 && (!constFormat || anyName(uses))
		}
	}
	named := false
	for i, a := range call.Args[spec.first:] {
		t := r.info.TypeOf(a)
		if t == nil {
			continue
		}
		u := uses[i]
		if u.wrap {
			// %w: an error whose methods fmt.Errorf and errors see.
			r.wrapErrArg(a)
			continue
		}
		if call.Ellipsis.IsValid() && i == nargs-1 {
			st, ok := t.Underlying().(*types.Slice)
			if !ok || !r.fmtNeeds(st.Elem(), true, u.name, true, map[string]bool{}) {
				continue
			}
			name := r.dynSlice(st.Elem(), u.name, a.Pos())
			if name == "" {
				continue
			}
			r.insert(a.Pos(), name+"(")
			r.insert(a.End(), ")")
			named = named || u.name
			continue
		}
		if sig, ok := t.Underlying().(*types.Signature); ok && u.name && r.sigNamesInterp(sig) {
			// %T of a function whose signature names the snippet's
			// types: the interpreter prints their structs.
			sh := r.qualify(types.NewPackage(shimPath, "shim"))
			r.insert(a.Pos(), fmt.Sprintf("func(x %s) any { return &%s.Value{Type: %s, Kind: %s.Pointer, V: x, Nil: x == nil} }(", r.typeNameQuiet(t), sh, strconv.Quote(reflectString(t)), sh))
			r.insert(a.End(), ")")
			named = true
			continue
		}
		if !r.fmtNeeds(t, true, u.name, true, map[string]bool{}) {
			continue
		}
		name := r.fmtConv(t, true, u.name, true, a.Pos())
		if name == "" {
			continue
		}
		r.insert(a.Pos(), name+"(")
		r.insert(a.End(), ")")
		named = named || u.name
	}
	if !named || spec.format < 0 {
		return true
	}
	// %T of a converted value: the shim's Sprintf names its type.
	sh := r.qualify(types.NewPackage(shimPath, "shim"))
	switch fn.Name() {
	case "Sprintf", "Errorf":
		r.replace(call.Fun.Pos(), call.Fun.End(), sh+"."+fn.Name())
		r.consume(call)
	case "Printf":
		r.replace(call.Fun.Pos(), call.Lparen+1, r.local["fmt"]+".Print("+sh+".Sprintf(")
		r.insert(call.Rparen, ")")
	case "Fprintf":
		r.replace(call.Fun.Pos(), call.Fun.End(), r.local["fmt"]+".Fprint")
		r.insert(call.Args[1].Pos(), sh+".Sprintf(")
		r.insert(call.Rparen, ")")
	}
	return true
}

func anyName(uses []argVerbs) bool {
	for _, u := range uses {
		if u.name {
			return true
		}
	}
	return false
}

// interpNamed reports whether t is a named type declared by interpreted
// code (the snippet or a tree package).
func interpNamed(t types.Type) (*types.Named, bool) {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return nil, false
	}
	p := n.Obj().Pkg().Path()
	return n, p == "main" || strings.HasPrefix(p, treePrefix)
}

// ifaceWrapped reports whether the interpreter holds a value of type t in
// an interface{} in a wrapper of its own (a value, not a pointer, of a
// type of the snippet's with methods), which the standard library sees
// inside a slice, map or struct.
func ifaceWrapped(t types.Type) bool {
	n, ok := interpNamed(t)
	if !ok {
		return false
	}
	if _, isIface := n.Underlying().(*types.Interface); isIface {
		return false
	}
	return types.NewMethodSet(types.NewPointer(n)).Len() > 0
}

// fmtMethodNames are the methods fmt calls.
var fmtMethodNames = []string{"Format", "GoString", "Error", "String"}

// fmtMethods returns the fmt methods in t's method set, when t is or
// points to an interpreted named type.
func fmtMethods(t types.Type) []string {
	base := t
	if p, ok := t.(*types.Pointer); ok {
		base = p.Elem()
	}
	if _, ok := interpNamed(base); !ok {
		return nil
	}
	ms := types.NewMethodSet(t)
	var out []string
	for _, name := range fmtMethodNames {
		if sel := ms.Lookup(nil, name); sel != nil {
			if r := fmtMethodSig(name, sel.Obj().Type().(*types.Signature)); r {
				out = append(out, name)
			}
		} else if n, ok := interpNamed(base); ok {
			// Methods of the snippet's package are unexported-safe: look
			// them up with the package.
			if sel := ms.Lookup(n.Obj().Pkg(), name); sel != nil && fmtMethodSig(name, sel.Obj().Type().(*types.Signature)) {
				out = append(out, name)
			}
		}
	}
	return out
}

func fmtMethodSig(name string, sig *types.Signature) bool {
	switch name {
	case "Format":
		return sig.Params().Len() == 2 && sig.Results().Len() == 0
	default:
		if sig.Params().Len() != 0 || sig.Results().Len() != 1 {
			return false
		}
		b, ok := sig.Results().At(0).Type().(*types.Basic)
		return ok && b.Kind() == types.String
	}
}

// fmtNeeds reports whether fmt formats a value of type t differently in
// the interpreter: top is the argument itself (not a part of it), name
// whether the verb prints type names (%T, %#v), methods whether fmt may
// call its methods (not below an unexported field).
func (r *rewriter) fmtNeeds(t types.Type, top, name, methods bool, seen map[string]bool) bool {
	key := fmt.Sprintf("%s|%v|%v|%v", types.TypeString(t, nil), top, name, methods)
	if done, ok := seen[key]; ok {
		return done
	}
	seen[key] = false
	res := r.fmtNeeds1(t, top, name, methods, seen)
	seen[key] = res
	return res
}

func (r *rewriter) fmtNeeds1(t types.Type, top, name, methods bool, seen map[string]bool) bool {
	t = types.Unalias(t)
	if n, ok := interpNamed(t); ok {
		if methods && len(fmtMethods(t)) > 0 || name {
			return true
		}
		if _, isPtr := t.(*types.Pointer); !isPtr && len(fmtMethods(types.NewPointer(t))) > 0 {
			return true // the interpreter would call the pointer's methods on the value
		}
		return r.fmtNeeds(n.Underlying(), top, name, methods, seen)
	}
	switch u := t.(type) {
	case *types.Named:
		if _, ok := u.Underlying().(*types.Interface); ok {
			return len(r.dynCandidates(u, top, name)) > 0
		}
		return false
	case *types.Pointer:
		if _, ok := interpNamed(u.Elem()); ok {
			if methods && len(fmtMethods(u)) > 0 || name {
				return true
			}
		}
		if top {
			switch u.Elem().Underlying().(type) {
			case *types.Struct, *types.Array, *types.Slice, *types.Map:
				return r.fmtNeeds(u.Elem(), false, name, methods, seen)
			}
		}
		return false
	case *types.Slice:
		return r.fmtNeeds(u.Elem(), false, name, methods, seen)
	case *types.Array:
		return r.fmtNeeds(u.Elem(), false, name, methods, seen)
	case *types.Map:
		return r.fmtNeeds(u.Key(), false, name, methods, seen) || r.fmtNeeds(u.Elem(), false, name, methods, seen)
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			if r.fmtNeeds(f.Type(), false, name, methods && f.Exported(), seen) {
				return true
			}
		}
		return false
	case *types.Interface:
		return len(r.dynCandidates(u, top, name)) > 0
	case *types.TypeParam:
		return len(r.dynCandidates(u.Constraint().Underlying().(*types.Interface), top, name)) > 0
	}
	return false
}

// dynCandidates returns the snippet's types (T and *T) that a value of
// interface type iface may hold and that fmt would format differently.
func (r *rewriter) dynCandidates(iface types.Type, top, name bool) []types.Type {
	it, ok := iface.Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	key := fmt.Sprintf("%s|%v|%v", types.TypeString(iface, nil), top, name)
	if r.dyn == nil {
		r.dyn = map[string][]types.Type{}
	}
	if c, ok := r.dyn[key]; ok {
		return c
	}
	r.dyn[key] = nil // a cycle finds none
	var out []types.Type
	for _, nt := range r.concreteTypes() {
		for _, t := range []types.Type{nt, types.NewPointer(nt)} {
			if !types.Implements(t, it) {
				continue
			}
			if r.fmtNeeds(t, top, name, true, map[string]bool{}) {
				out = append(out, t)
				continue
			}
			// Inside a slice, map or struct (or a slice spread as
			// variadic arguments), an interface holding a value of a
			// type with methods holds the interpreter's wrapper, which
			// fmt prints as {0xc000… {…}}.
			if ifaceWrapped(t) {
				out = append(out, t)
			}
		}
	}
	r.dyn[key] = out
	return out
}

// fmtConv returns the helper that converts a value of type t for fmt
// (declaring it and the helpers it needs), or "" after reporting why not.
func (r *rewriter) fmtConv(t types.Type, top, name, methods bool, pos token.Pos) string {
	t = types.Unalias(t)
	if tp, ok := t.(*types.TypeParam); ok {
		return r.dynConv(tp.Constraint(), top, name)
	}
	if _, ok := t.Underlying().(*types.Interface); ok {
		return r.dynConv(t, top, name)
	}
	tn := r.typeNameQuiet(t)
	if tn == "" {
		if n, ok := t.(*types.Named); ok && n.Obj().Parent() != nil && n.Obj().Parent() != n.Obj().Pkg().Scope() {
			// A type declared in a function (it has no methods): its
			// values are assignable to its underlying type.
			tn = r.typeNameQuiet(n.Underlying())
		}
	}
	if tn == "" {
		r.errorf(pos, "declare the types it uses at package level (outside func), or print its fields one by one", "the interpreter cannot print a value of type %s as Go does: it uses a type declared inside a function", types.TypeString(t, r.qualifier))
		return ""
	}
	key := fmt.Sprintf("fmt %s|%v|%v|%v", tn, top, name, methods)
	if h, ok := r.helpers[key]; ok {
		return h
	}
	fname := r.fresh("fmt")
	r.helpers[key] = fname
	sh := r.qualify(types.NewPackage(shimPath, "shim"))
	body := r.fmtBody(t, tn, top, name, methods, sh, pos)
	r.defs = append(r.defs, fmt.Sprintf("func %s(x %s) any {\n%s\n}\n", fname, tn, body))
	return fname
}

func (r *rewriter) fmtBody(t types.Type, tn string, top, name, methods bool, sh string, pos token.Pos) string {
	ts := strconv.Quote(reflectString(t))
	var meth strings.Builder
	if methods {
		for _, m := range fmtMethods(t) {
			field := map[string]string{"String": "Str", "Error": "Err", "GoString": "GoStr", "Format": "Fmt"}[m]
			if m == "Format" {
				fmt.Fprintf(&meth, "v.%s = x.%s\n", field, m)
				continue
			}
			// A closure, not the method value x.M: the interpreter types the
			// method value of another interpreted package's pointer type
			// (mcp.ToolError) as a method expression, and the helper does
			// not compile.
			fmt.Fprintf(&meth, "v.%s = func() string { return x.%s() }\n", field, m)
		}
	}
	child := func(ct types.Type, expr string, cmethods bool) string {
		if !r.fmtNeeds(ct, false, name, cmethods, map[string]bool{}) {
			return expr
		}
		h := r.fmtConv(ct, false, name, cmethods, pos)
		if h == "" {
			return expr
		}
		return h + "(" + expr + ")"
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		un := u.Name()
		if u.Kind() == types.UnsafePointer {
			return "return x"
		}
		return fmt.Sprintf("v := &%s.Value{Type: %s, Kind: %s.Basic, V: %s(x)}\n%sreturn v", sh, ts, sh, un, meth.String())
	case *types.Pointer:
		// fmt calls the methods of a nil pointer too (they may handle
		// nil); the shim prints <nil> when they panic, as fmt does.
		s := fmt.Sprintf("if x == nil {\nv := &%s.Value{Type: %s, Kind: %s.Pointer, Nil: true}\n%sreturn v\n}\nv := &%s.Value{Type: %s, Kind: %s.Pointer, V: x}\n%s", sh, ts, sh, meth.String(), sh, ts, sh, meth.String())
		if top {
			switch u.Elem().Underlying().(type) {
			case *types.Struct, *types.Array, *types.Slice, *types.Map:
				if h := r.fmtConvForce(u.Elem(), name, methods, pos); h != "" {
					s += "v.Elem = " + h + "(*x)\n"
				}
			}
		}
		return s + "return v"
	case *types.Slice, *types.Array:
		var elem types.Type
		kind := "Slice"
		nilCheck := "x == nil"
		if s, ok := u.(*types.Slice); ok {
			elem = s.Elem()
		} else {
			elem = u.(*types.Array).Elem()
			kind = "Array"
			nilCheck = "false"
		}
		return fmt.Sprintf("v := &%s.Value{Type: %s, Kind: %s.%s, Nil: %s}\n%sfor i := 0; i < len(x); i++ {\nv.Elems = append(v.Elems, %s)\n}\nreturn v", sh, ts, sh, kind, nilCheck, meth.String(), child(elem, "x[i]", methods))
	case *types.Map:
		sortKey := "k"
		if types.IsInterface(u.Key()) {
			// Through a compiled call, the interpreter's wrapper of
			// a value with methods becomes the value, which compare
			// can order.
			sortKey = sh + ".Key(k)"
		} else if b, ok := u.Key().Underlying().(*types.Basic); ok {
			sortKey = b.Name() + "(k)"
		} else {
			if h := r.fmtConvForce(u.Key(), name, false, pos); h != "" {
				sortKey = h + "(k)"
			}
		}
		return fmt.Sprintf("v := &%s.Value{Type: %s, Kind: %s.Map, Nil: x == nil}\n%sfor k, e := range x {\nv.Keys = append(v.Keys, %s)\nv.Elems = append(v.Elems, %s)\nv.Sort = append(v.Sort, %s)\n}\nreturn v",
			sh, ts, sh, meth.String(), child(u.Key(), "k", methods), child(u.Elem(), "e", methods), sortKey)
	case *types.Struct:
		var fields, elems []string
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			if f.Name() == "_" || (!f.Exported() && f.Pkg() != r.pkg) {
				return "return x" // fields the snippet cannot read
			}
			fields = append(fields, strconv.Quote(f.Name()))
			elems = append(elems, child(f.Type(), "x."+f.Name(), methods && f.Exported()))
		}
		return fmt.Sprintf("v := &%s.Value{Type: %s, Kind: %s.Struct, Fields: []string{%s}, Elems: []any{%s}}\n%sreturn v",
			sh, ts, sh, strings.Join(fields, ", "), strings.Join(elems, ", "), meth.String())
	}
	return "return x"
}

// fmtConvForce is fmtConv for a value that must become a *Value even when
// fmt would format it alike (the pointee of a top-level pointer).
func (r *rewriter) fmtConvForce(t types.Type, name, methods bool, pos token.Pos) string {
	if _, ok := t.Underlying().(*types.Interface); ok {
		return ""
	}
	return r.fmtConv(t, false, name, methods, pos)
}

// dynConv returns the helper that converts a value held in an interface:
// a type switch over the snippet's types that need converting.
func (r *rewriter) dynConv(iface types.Type, top, name bool) string {
	cands := r.dynCandidates(iface, top, name)
	key := fmt.Sprintf("dyn %s|%v|%v", types.TypeString(iface, nil), top, name)
	if h, ok := r.helpers[key]; ok {
		return h
	}
	fname := r.fresh("fmtdyn")
	r.helpers[key] = fname
	sh := r.qualify(types.NewPackage(shimPath, "shim"))
	var b strings.Builder
	param := r.typeNameQuiet(iface)
	if _, ok := iface.(*types.Interface); ok || param == "" {
		param = "any"
	}
	if it, ok := iface.Underlying().(*types.Interface); ok && (it.IsComparable() || !it.IsMethodSet()) {
		// A constraint (comparable, ~int | ~string) of a type
		// parameter's value is no parameter type.
		param = "any"
	}
	// The interpreter binds v of `switch v := x.(type)` wrongly for types
	// with methods: each case asserts x itself.
	fmt.Fprintf(&b, "func %s(x %s) any {\nswitch x.(type) {\n", fname, param)
	if !top {
		fmt.Fprintf(&b, "case nil:\nreturn &%s.Value{Type: %s, Kind: %s.Interface}\n", sh, strconv.Quote(reflectString(iface)), sh)
	}
	var under []string
	var plain []types.Type
	seen := map[string]bool{}
	for _, c := range cands {
		if len(fmtMethods(c)) == 0 {
			// The interpreter's type switch misses the snippet's types
			// without fmt methods; a comma-ok assertion finds them.
			if _, isStruct := c.Underlying().(*types.Struct); isStruct || ifaceWrapped(c) {
				plain = append(plain, c)
			} else if p, ok := c.(*types.Pointer); ok {
				if _, isStruct := p.Elem().Underlying().(*types.Struct); isStruct {
					plain = append(plain, c)
				}
			}
			continue
		}
		h := r.fmtConv(c, top, name, true, token.NoPos)
		if h == "" {
			continue
		}
		cn := r.typeNameQuiet(c)
		fmt.Fprintf(&b, "case %s:\nreturn %s(x.(%s))\n", cn, h, cn)
		// The interpreter matches a value of the underlying type to a case
		// of the named type unless a case of its own comes after.
		switch c.Underlying().(type) {
		case *types.Basic, *types.Slice, *types.Map, *types.Array:
			if un := r.typeNameQuiet(c.Underlying()); un != "" && !seen[un] {
				seen[un] = true
				under = append(under, un)
			}
		}
	}
	// Values of the snippet's types inside slices and maps held in an
	// interface.
	var nested []types.Type
	anyT := types.NewInterfaceType(nil, nil)
	nested = append(nested, types.NewSlice(anyT), types.NewMap(types.Typ[types.String], anyT))
	var nestedPlain []types.Type // asserted with comma-ok, after the switch
	for _, c := range cands {
		if _, isPtr := c.(*types.Pointer); !isPtr {
			nestedPlain = append(nestedPlain, types.NewSlice(c))
		}
	}
	for _, nt := range nested {
		if !types.AssignableTo(nt, iface) || !r.fmtNeeds(nt, top, name, true, map[string]bool{}) {
			continue
		}
		h := r.fmtConv(nt, top, name, true, token.NoPos)
		cn := r.typeNameQuiet(nt)
		if h == "" || cn == "" {
			continue
		}
		fmt.Fprintf(&b, "case %s:\nreturn %s(x.(%s))\n", cn, h, cn)
	}
	if len(under) > 0 {
		fmt.Fprintf(&b, "case %s:\nreturn x\n", strings.Join(under, ", "))
	}
	b.WriteString("}\n")
	for _, c := range plain {
		h := r.fmtConv(c, top, name, true, token.NoPos)
		if h == "" {
			continue
		}
		fmt.Fprintf(&b, "if v, ok := x.(%s); ok {\nreturn %s(v)\n}\n", r.typeNameQuiet(c), h)
	}
	for _, nt := range nestedPlain {
		if !types.AssignableTo(nt, iface) || !r.fmtNeeds(nt, top, name, true, map[string]bool{}) {
			continue
		}
		h := r.fmtConv(nt, top, name, true, token.NoPos)
		cn := r.typeNameQuiet(nt)
		if h == "" || cn == "" {
			continue
		}
		fmt.Fprintf(&b, "if v, ok := x.(%s); ok {\nreturn %s(v)\n}\n", cn, h)
	}
	b.WriteString("return x\n}\n")

	r.defs = append(r.defs, b.String())
	return fname
}

// dynSlice returns the helper that converts the elements of a slice
// passed with ... to a fmt function.
func (r *rewriter) dynSlice(elem types.Type, name bool, pos token.Pos) string {
	tn := r.typeNameQuiet(elem)
	if tn == "" {
		return ""
	}
	conv := r.fmtConv(elem, true, name, true, pos)
	if conv == "" {
		return ""
	}
	return r.helper("fmtslice "+tn+strconv.FormatBool(name), "fmtslice", func(f string) string {
		return fmt.Sprintf("func %s(x []%s) []any {\nout := make([]any, len(x))\nfor i := 0; i < len(x); i++ {\nout[i] = %s(x[i])\n}\nreturn out\n}\n", f, tn, conv)
	})
}

// typeNameQuiet is typeName without reporting: "" when t cannot be named
// at package level.
func (r *rewriter) typeNameQuiet(t types.Type) string {
	n := len(r.errs)
	s := r.typeName(t, 0)
	r.errs = r.errs[:n]
	return s
}

// reflectString writes t as reflect.Type.String does (and so %T).
func reflectString(t types.Type) string {
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		obj := t.Obj()
		s := obj.Name()
		if obj.Pkg() != nil {
			s = obj.Pkg().Name() + "." + s
		}
		if ta := t.TypeArgs(); ta != nil && ta.Len() > 0 {
			args := make([]string, ta.Len())
			for i := range args {
				args[i] = reflectString(ta.At(i))
			}
			s += "[" + strings.Join(args, ",") + "]"
		}
		return s
	case *types.Basic:
		switch t.Kind() {
		case types.Byte:
			return "uint8"
		case types.Rune:
			return "int32"
		case types.UnsafePointer:
			return "unsafe.Pointer"
		}
		return t.Name()
	case *types.Pointer:
		return "*" + reflectString(t.Elem())
	case *types.Slice:
		return "[]" + reflectString(t.Elem())
	case *types.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), reflectString(t.Elem()))
	case *types.Map:
		return "map[" + reflectString(t.Key()) + "]" + reflectString(t.Elem())
	case *types.Chan:
		switch t.Dir() {
		case types.SendOnly:
			return "chan<- " + reflectString(t.Elem())
		case types.RecvOnly:
			return "<-chan " + reflectString(t.Elem())
		}
		return "chan " + reflectString(t.Elem())
	case *types.Signature:
		var b strings.Builder
		b.WriteString("func(")
		for i := 0; i < t.Params().Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			pt := t.Params().At(i).Type()
			if t.Variadic() && i == t.Params().Len()-1 {
				b.WriteString("..." + reflectString(pt.(*types.Slice).Elem()))
				continue
			}
			b.WriteString(reflectString(pt))
		}
		b.WriteString(")")
		switch t.Results().Len() {
		case 0:
		case 1:
			b.WriteString(" " + reflectString(t.Results().At(0).Type()))
		default:
			b.WriteString(" (")
			for i := 0; i < t.Results().Len(); i++ {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(reflectString(t.Results().At(i).Type()))
			}
			b.WriteString(")")
		}
		return b.String()
	case *types.Struct:
		if t.NumFields() == 0 {
			return "struct {}"
		}
		parts := make([]string, t.NumFields())
		for i := range parts {
			f := t.Field(i)
			s := ""
			if !f.Embedded() {
				s = f.Name() + " "
			}
			s += reflectString(f.Type())
			if tag := t.Tag(i); tag != "" {
				s += " " + strconv.Quote(tag)
			}
			parts[i] = s
		}
		return "struct { " + strings.Join(parts, "; ") + " }"
	case *types.Interface:
		if t.NumMethods() == 0 && t.NumEmbeddeds() == 0 {
			return "interface {}"
		}
		var parts []string
		for i := 0; i < t.NumMethods(); i++ {
			m := t.Method(i)
			parts = append(parts, m.Name()+strings.TrimPrefix(reflectString(m.Type()), "func"))
		}
		return "interface { " + strings.Join(parts, "; ") + " }"
	}
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// sigNamesInterp reports whether a parameter or result of sig names a
// type declared by interpreted code.
func (r *rewriter) sigNamesInterp(sig *types.Signature) bool {
	for _, tup := range []*types.Tuple{sig.Params(), sig.Results()} {
		for i := 0; i < tup.Len(); i++ {
			if r.fmtNeeds(tup.At(i).Type(), false, true, false, map[string]bool{}) {
				return true
			}
		}
	}
	return false
}
