package check

import (
	"fmt"
	"go/ast"

	"go/types"
	"reflect"
	"strconv"
	"strings"
)

// jsonCall converts the value that json.Marshal, MarshalIndent or
// Encoder.Encode encodes when the interpreter would encode it differently
// from Go: types of the snippet with MarshalJSON or MarshalText methods
// anywhere inside it (which encoding/json cannot see), embedded fields it
// does not flatten (embedFlattened) and unexported fields (which it
// encodes).
// The value becomes one built of anonymous structs, maps and slices with
// the same JSON, and shim.JSON/shim.Text for the methods.
func (r *rewriter) jsonCall(call *ast.CallExpr) bool {
	fn, ok := r.info.Uses[calleeIdent(call.Fun)].(*types.Func)
	if !ok {
		return false
	}
	spec, ok := jsonValueArg[fn.FullName()]
	if !ok || !spec.encode || spec.arg >= len(call.Args) {
		return false
	}
	arg := call.Args[spec.arg]
	t := r.info.TypeOf(arg)
	if t == nil || !r.jsonNeeds(t, map[types.Type]bool{}) {
		return true
	}
	h := r.jsonConv(t)
	if h == "" {
		why := r.jsonProblem(t, true, map[types.Type]bool{})
		if why == "" {
			why = "it holds a type declared inside a function or an embedded pointer to a struct"
		}
		r.errorf(arg.Pos(), "declare the types at package level, give embedded fields a name (Base Base `json:\"base\"`), or copy the values into a struct with only exported, named fields",
			"%s would differ in snippets: %s", fn.Name(), why)
		return true
	}
	r.insert(arg.Pos(), h+"(")
	r.insert(arg.End(), ")")
	return true
}

// jsonMethods returns which of MarshalJSON and MarshalText t's method set
// has, when t is or points to a type of interpreted code.
func jsonMethods(t types.Type) (marshalJSON, marshalText bool) {
	base := t
	if p, ok := t.(*types.Pointer); ok {
		base = p.Elem()
	}
	n, ok := interpNamed(base)
	if !ok {
		return false, false
	}
	ms := types.NewMethodSet(t)
	return ms.Lookup(n.Obj().Pkg(), "MarshalJSON") != nil, ms.Lookup(n.Obj().Pkg(), "MarshalText") != nil
}

func (r *rewriter) jsonNeeds(t types.Type, seen map[types.Type]bool) bool {
	t = types.Unalias(t)
	if seen[t] {
		return false
	}
	seen[t] = true
	if j, tx := jsonMethods(t); j || tx {
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return r.jsonNeeds(u.Elem(), seen)
	case *types.Slice:
		return r.jsonNeeds(u.Elem(), seen)
	case *types.Array:
		return r.jsonNeeds(u.Elem(), seen)
	case *types.Map:
		return r.jsonNeeds(u.Key(), seen) || r.jsonNeeds(u.Elem(), seen)
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			interp := f.Pkg() != nil && (f.Pkg().Path() == "main" || strings.HasPrefix(f.Pkg().Path(), treePrefix))
			if interp && (f.Embedded() && !embedFlattened(f) || !f.Embedded() && !f.Exported()) {
				return true
			}
			if r.jsonNeeds(f.Type(), seen) {
				return true
			}
		}
	case *types.Interface:
		return len(r.jsonCandidates()) > 0
	}
	return false
}

// jsonCandidates are the snippet's types (T, *T) that an interface value
// may hold and that need converting.
func (r *rewriter) jsonCandidates() []types.Type {
	if r.jsonCands != nil {
		return *r.jsonCands
	}
	out := []types.Type{}
	r.jsonCands = &out
	for _, nt := range r.concreteTypes() {
		for _, t := range []types.Type{nt, types.NewPointer(nt)} {
			// A value of a type with methods sits in an interface in
			// the interpreter's wrapper, which encoding/json writes as {}.
			if r.jsonNeeds(t, map[types.Type]bool{}) || ifaceWrapped(t) {
				out = append(out, t)
			}
		}
	}
	*r.jsonCands = out
	return out
}

// jsonField is one field of a struct as encoding/json encodes it, after
// flattening embedded structs.
type jsonField struct {
	key, opts string
	path      string // selectors from the struct value: ".Base.ID"
	typ       types.Type
	tagged    bool
	depth     int
	guards    []string // embedded pointers on the way, which must not be nil: ".Audit"
}

// jsonFields lists the fields encoding/json encodes for st, in order,
// with Go's rules for embedded structs; ok is false for what it does not
// handle (embedded pointers to structs of unexported types). The fields
// of an embedded pointer to a struct are encoded when it is not nil.
func jsonFields(st *types.Struct) (fields []jsonField, ok bool) {
	var all []jsonField
	var walk func(st *types.Struct, path string, depth int, guards []string, seen map[*types.Struct]bool) bool
	walk = func(st *types.Struct, path string, depth int, guards []string, seen map[*types.Struct]bool) bool {
		if seen[st] {
			return true
		}
		seen[st] = true
		for i := 0; i < st.NumFields(); i++ {
			f := st.Field(i)
			tag := reflect.StructTag(st.Tag(i)).Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if f.Embedded() && name == "" {
				ft := f.Type()
				if p, isPtr := ft.Underlying().(*types.Pointer); isPtr {
					if est, isStruct := p.Elem().Underlying().(*types.Struct); isStruct {
						if !f.Exported() {
							return false
						}
						g := append(append([]string(nil), guards...), path+"."+f.Name())
						if !walk(est, path+"."+f.Name(), depth+1, g, seen) {
							return false
						}
						continue
					}
				}
				if est, isStruct := ft.Underlying().(*types.Struct); isStruct {
					if !walk(est, path+"."+f.Name(), depth+1, guards, seen) {
						return false
					}
					continue
				}
			}
			if !f.Exported() {
				continue
			}
			key := name
			if key == "" {
				key = f.Name()
			}
			all = append(all, jsonField{key: key, opts: opts, path: path + "." + f.Name(), typ: f.Type(), tagged: name != "", depth: depth, guards: guards})
		}
		return true
	}
	if !walk(st, "", 0, nil, map[*types.Struct]bool{}) {
		return nil, false
	}
	// Dominance: the shallowest field of a name wins; at equal depth a
	// single tagged one wins; otherwise the name is dropped.
	for i, f := range all {
		keep := true
		tagged := 0
		for j, g := range all {
			if g.key != f.key {
				continue
			}
			if g.depth < f.depth {
				keep = false
			}
			if g.depth == f.depth {
				if g.tagged {
					tagged++
				}
				if j != i && !(f.tagged && !g.tagged) && !(g.tagged && !f.tagged) {
					keep = false
				}
				if j != i && g.tagged && !f.tagged {
					keep = false
				}
			}
		}
		if keep && tagged <= 1 {
			fields = append(fields, f)
		}
	}
	return fields, true
}

// jsonConv returns the helper that converts a value of type t for
// encoding/json, or "" when it cannot.
func (r *rewriter) jsonConv(t types.Type) string {
	t = types.Unalias(t)
	if _, ok := t.Underlying().(*types.Interface); ok {
		return r.jsonDyn()
	}
	tn := r.typeNameQuiet(t)
	if tn == "" {
		if n, ok := t.(*types.Named); ok && n.Obj().Parent() != nil && n.Obj().Parent() != n.Obj().Pkg().Scope() {
			tn = r.typeNameQuiet(n.Underlying())
		}
	}
	if tn == "" {
		return ""
	}
	key := "json " + tn
	if h, ok := r.helpers[key]; ok {
		return h
	}
	name := r.fresh("json")
	r.helpers[key] = name
	body, ok := r.jsonBody(t)
	if !ok {
		return ""
	}
	r.defs = append(r.defs, fmt.Sprintf("func %s(x %s) any {\n%s\n}\n", name, tn, body))
	return name
}

func (r *rewriter) jsonBody(t types.Type) (string, bool) {
	_, isPtr := t.Underlying().(*types.Pointer)
	nilCheck := ""
	if isPtr {
		nilCheck = "if x == nil {\nreturn nil\n}\n"
	}
	if j, tx := jsonMethods(t); j {
		return nilCheck + "return &" + r.qualify(types.NewPackage(shimPath, "shim")) + ".JSON{M: x.MarshalJSON}", true
	} else if tx {
		return nilCheck + "return &" + r.qualify(types.NewPackage(shimPath, "shim")) + ".Text{M: x.MarshalText}", true
	}
	conv := func(ct types.Type, expr string) (string, bool) {
		if !r.jsonNeeds(ct, map[types.Type]bool{}) {
			return expr, true
		}
		h := r.jsonConv(ct)
		if h == "" {
			return "", false
		}
		return h + "(" + expr + ")", true
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		// A defined type with methods but no marshalers (ifaceWrapped):
		// its underlying value encodes the same.
		if u.Kind() == types.UnsafePointer {
			return "", false
		}
		return "return " + u.Name() + "(x)", true
	case *types.Pointer:
		c, ok := conv(u.Elem(), "*x")
		if !ok {
			return "", false
		}
		if c == "*x" {
			return nilCheck + "return x", true
		}
		return nilCheck + "return " + c, true
	case *types.Slice, *types.Array:
		var elem types.Type
		check := ""
		if s, ok := u.(*types.Slice); ok {
			elem = s.Elem()
			check = "if x == nil {\nreturn nil\n}\n"
		} else {
			elem = u.(*types.Array).Elem()
		}
		c, ok := conv(elem, "x[i]")
		if !ok {
			return "", false
		}
		return check + "v := make([]any, len(x))\nfor i := 0; i < len(x); i++ {\nv[i] = " + c + "\n}\nreturn v", true
	case *types.Map:
		c, ok := conv(u.Elem(), "e")
		if !ok {
			return "", false
		}
		var k string
		kb, isBasic := u.Key().Underlying().(*types.Basic)
		_, tx := jsonMethods(u.Key())
		switch {
		case isBasic && kb.Info()&types.IsString != 0:
			k = "string(k)"
		case tx:
			k = "func() string { b, _ := k.MarshalText(); return string(b) }()"
		case isBasic && kb.Info()&types.IsUnsigned != 0:
			k = r.qualify(types.NewPackage("strconv", "strconv")) + ".FormatUint(uint64(k), 10)"
		case isBasic && kb.Info()&types.IsInteger != 0:
			k = r.qualify(types.NewPackage("strconv", "strconv")) + ".FormatInt(int64(k), 10)"
		default:
			return "", false
		}
		return "if x == nil {\nreturn nil\n}\nv := make(map[string]any, len(x))\nfor k, e := range x {\nv[" + k + "] = " + c + "\n}\nreturn v", true
	case *types.Struct:
		fields, ok := jsonFields(u)
		if !ok {
			return "", false
		}
		var decl []string
		var sets []string
		for i, f := range fields {
			tag := f.key
			if f.opts != "" || tag == "-" {
				// A key of "-" needs its comma: a bare "-" drops the field.
				tag += "," + f.opts
			}
			tagText := strconv.Quote(`json:"` + tag + `"`)
			fname := fmt.Sprintf("F%d", i)
			if len(f.guards) > 0 {
				// Behind an embedded pointer: a pointer field, set only
				// when the embedded pointers are not nil, and left out
				// (omitempty) otherwise.
				ftn := "any"
				expr := "x" + f.path
				if r.jsonNeeds(f.typ, map[types.Type]bool{}) {
					c, ok := conv(f.typ, expr)
					if !ok {
						return "", false
					}
					expr = c
				} else if ftn = r.typeNameQuiet(f.typ); ftn == "" {
					return "", false
				}
				ptag := f.key + ",omitempty"
				if f.opts != "" {
					ptag = f.key + "," + f.opts
					if !strings.Contains(","+f.opts+",", ",omitempty,") {
						ptag += ",omitempty"
					}
				}
				decl = append(decl, fname+" *"+ftn+" "+strconv.Quote(`json:"`+ptag+`"`))
				var conds []string
				for _, g := range f.guards {
					conds = append(conds, "x"+g+" != nil")
				}
				if strings.Contains(","+f.opts+",", ",omitempty,") {
					if empty := jsonEmpty(f.typ, "x"+f.path); empty != "" {
						conds = append(conds, "!("+empty+")")
					}
				}
				sets = append(sets, "if "+strings.Join(conds, " && ")+" {\nt := "+expr+"\nv."+fname+" = &t\n}")
				continue
			}
			if !r.jsonNeeds(f.typ, map[types.Type]bool{}) {
				ftn := r.typeNameQuiet(f.typ)
				if ftn == "" {
					return "", false
				}
				decl = append(decl, fname+" "+ftn+" "+tagText)
				sets = append(sets, "v."+fname+" = x"+f.path)
				continue
			}
			c, ok := conv(f.typ, "x"+f.path)
			if !ok {
				return "", false
			}
			decl = append(decl, fname+" any "+tagText)
			set := "v." + fname + " = " + c
			if strings.Contains(","+f.opts+",", ",omitempty,") {
				if empty := jsonEmpty(f.typ, "x"+f.path); empty != "" {
					set = "if !(" + empty + ") {\n" + set + "\n}"
				}
			}
			sets = append(sets, set)
		}
		return "var v struct {\n" + strings.Join(decl, "\n") + "\n}\n" + strings.Join(sets, "\n") + "\nreturn v", true
	}
	return "return x", true
}

// jsonEmpty is the test encoding/json's omitempty makes of a value of
// type t, or "" when such a value is never empty.
func jsonEmpty(t types.Type, expr string) string {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsBoolean != 0:
			return "!" + expr
		case u.Info()&types.IsString != 0:
			return expr + ` == ""`
		case u.Info()&types.IsNumeric != 0:
			return expr + " == 0"
		}
	case *types.Slice, *types.Map, *types.Array:
		return "len(" + expr + ") == 0"
	case *types.Pointer, *types.Interface, *types.Signature, *types.Chan:
		return expr + " == nil"
	}
	return ""
}

// jsonDyn returns the helper that converts a value held in an interface.
func (r *rewriter) jsonDyn() string {
	if h, ok := r.helpers["jsondyn"]; ok {
		return h
	}
	name := r.fresh("jsondyn")
	r.helpers["jsondyn"] = name
	var b strings.Builder
	fmt.Fprintf(&b, "func %s(x any) any {\nswitch x.(type) {\n", name)
	var plain []types.Type
	for _, c := range r.jsonCandidates() {
		if j, tx := jsonMethods(c); !j && !tx {
			plain = append(plain, c)
			continue
		}
		h := r.jsonConv(c)
		cn := r.typeNameQuiet(c)
		if h == "" || cn == "" {
			continue
		}
		fmt.Fprintf(&b, "case %s:\nreturn %s(x.(%s))\n", cn, h, cn)
	}
	// Values of the snippet's types inside slices and maps held in an
	// interface.
	anyT := types.NewInterfaceType(nil, nil)
	nested := []types.Type{types.NewSlice(anyT), types.NewMap(types.Typ[types.String], anyT)}
	for _, c := range r.jsonCandidates() {
		if _, isPtr := c.(*types.Pointer); !isPtr {
			// The interpreter's type switch misses slices of the
			// snippet's types; a comma-ok assertion finds them.
			plain = append(plain, types.NewSlice(c))
		}
	}
	for _, nt := range nested {
		h := r.jsonConv(nt)
		cn := r.typeNameQuiet(nt)
		if h == "" || cn == "" {
			continue
		}
		fmt.Fprintf(&b, "case %s:\nreturn %s(x.(%s))\n", cn, h, cn)
	}
	b.WriteString("}\n")
	for _, c := range plain {
		h := r.jsonConv(c)
		cn := r.typeNameQuiet(c)
		if h == "" || cn == "" {
			continue
		}
		fmt.Fprintf(&b, "if v, ok := x.(%s); ok {\nreturn %s(v)\n}\n", cn, h)
	}
	b.WriteString("return x\n}\n")
	r.defs = append(r.defs, b.String())
	return name
}

// jsonDecode makes json.Unmarshal and Decoder.Decode name the snippet's
// struct types in their errors (shim.Unmarshal, shim.Decode).
func (r *rewriter) jsonDecode(call *ast.CallExpr) bool {
	fn, ok := r.info.Uses[calleeIdent(call.Fun)].(*types.Func)
	if !ok {
		return false
	}
	var target ast.Expr
	switch fn.FullName() {
	case "encoding/json.Unmarshal":
		if len(call.Args) != 2 {
			return false
		}
		target = call.Args[1]
		if p, ok := r.info.TypeOf(target).(*types.Pointer); ok && unmarshalNeeds(p.Elem(), map[types.Type]bool{}) {
			if h := r.unmarshalCall(p.Elem()); h != "" {
				r.replace(call.Fun.Pos(), call.Fun.End(), h)
				r.consume(call)
				return true
			}
			r.errorf(target.Pos(), "decode into a plain type (string, number, json.RawMessage) and convert it after Unmarshal; declare the types at package level",
				"Unmarshal would differ in snippets: encoding/json cannot call the UnmarshalJSON methods inside %s in the interpreter", types.TypeString(p.Elem(), r.qualifier))
			return true
		}
	case "(*encoding/json.Decoder).Decode":
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || len(call.Args) != 1 {
			return false
		}
		target = call.Args[0]
		names := jsonStructNames(r.info.TypeOf(target), "", map[types.Type]bool{}, nil)
		if len(names) == 0 || !r.pure(sel.X) {
			return true
		}
		sh := r.qualify(types.NewPackage(shimPath, "shim"))
		r.replace(call.Fun.Pos(), call.Lparen+1, sh+".Decode("+r.text(sel.X)+", ")
		r.insert(call.Rparen, ", []string{"+strings.Join(names, ", ")+"}")
		r.consume(call)
		return true
	default:
		return false
	}
	names := jsonStructNames(r.info.TypeOf(target), "", map[types.Type]bool{}, nil)
	if len(names) == 0 {
		return true
	}
	sh := r.qualify(types.NewPackage(shimPath, "shim"))
	r.replace(call.Fun.Pos(), call.Fun.End(), sh+".Unmarshal")
	r.insert(call.Rparen, ", []string{"+strings.Join(names, ", ")+"}")
	r.consume(call)
	return true
}

// jsonStructNames lists, as quoted "path=Name", the named struct types of
// interpreted code that decoding into t goes through.
func jsonStructNames(t types.Type, path string, seen map[types.Type]bool, out []string) []string {
	if t == nil || seen[t] {
		return out
	}
	seen[t] = true
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return jsonStructNames(u.Elem(), path, seen, out)
	case *types.Slice:
		return jsonStructNames(u.Elem(), path, seen, out)
	case *types.Array:
		return jsonStructNames(u.Elem(), path, seen, out)
	case *types.Map:
		return jsonStructNames(u.Elem(), path, seen, out)
	case *types.Struct:
		if n, ok := interpNamed(t); ok {
			out = append(out, strconv.Quote(path+"="+n.Obj().Name()))
		}
		fields, ok := jsonFields(u)
		if !ok {
			return out
		}
		for _, f := range fields {
			p := f.key
			if path != "" {
				p = path + "." + f.key
			}
			out = jsonStructNames(f.typ, p, seen, out)
		}
	}
	return out
}
