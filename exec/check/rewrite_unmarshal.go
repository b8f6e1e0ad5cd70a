package check

import (
	"fmt"
	"go/types"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// json.Unmarshal into a value whose type holds types of the snippet with
// an UnmarshalJSON method: encoding/json cannot see the method in the
// interpreter (its types are made with reflect, which gives them no
// methods), so the rewrite calls it. The call becomes a helper of the
// target's type that validates the data as json.Unmarshal does and
// decodes: a type with the method by calling it with the value's bytes; a
// pointer (null sets it to nil, as Go does); a slice element by element;
// a struct through a mirror struct with the same fields and tags in which
// the fields that need the method are json.RawMessage, decoded by
// encoding/json (Go's field matching, merging and type errors), then the
// method called for each such field present; a map with string keys
// member by member. Arrays and embedded structs on the way to a method,
// and UnmarshalText, stay refused.

// unmarshalMethod reports whether t is a package-level type of the
// snippet (or the tree) whose pointer has UnmarshalJSON.
func unmarshalMethod(t types.Type) bool {
	n, ok := interpNamed(t)
	if !ok {
		return false
	}
	return types.NewMethodSet(types.NewPointer(t)).Lookup(n.Obj().Pkg(), "UnmarshalJSON") != nil
}

// unmarshalNeeds reports whether decoding into t reaches a type with
// UnmarshalJSON.
func unmarshalNeeds(t types.Type, seen map[types.Type]bool) bool {
	t = types.Unalias(t)
	if seen[t] {
		return false
	}
	seen[t] = true
	if unmarshalMethod(t) {
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return unmarshalNeeds(u.Elem(), seen)
	case *types.Slice:
		return unmarshalNeeds(u.Elem(), seen)
	case *types.Array:
		return unmarshalNeeds(u.Elem(), seen)
	case *types.Map:
		return unmarshalNeeds(u.Elem(), seen)
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			if (f.Exported() || f.Embedded()) && reflect.StructTag(u.Tag(i)).Get("json") != "-" && unmarshalNeeds(f.Type(), seen) {
				return true
			}
		}
	}
	return false
}

// unmarshalSupported reports whether the rewrite can decode into t: every
// type with UnmarshalJSON sits at the top, in a struct field, behind a
// pointer, in a slice or in a map with string keys; no UnmarshalText;
// named types at package level.
func unmarshalSupported(t types.Type, seen map[types.Type]bool) bool {
	t = types.Unalias(t)
	if seen[t] {
		return true
	}
	seen[t] = true
	if n, ok := interpNamed(t); ok {
		if n.Obj().Parent() != n.Obj().Pkg().Scope() {
			return !unmarshalNeeds(t, map[types.Type]bool{})
		}
		ms := types.NewMethodSet(types.NewPointer(t))
		if ms.Lookup(n.Obj().Pkg(), "UnmarshalText") != nil {
			return false
		}
		if ms.Lookup(n.Obj().Pkg(), "UnmarshalJSON") != nil {
			return true
		}
	}
	if !unmarshalNeeds(t, map[types.Type]bool{}) {
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return unmarshalSupported(u.Elem(), seen)
	case *types.Slice:
		return unmarshalSupported(u.Elem(), seen)
	case *types.Map:
		// Keys of a string kind without methods of their own.
		if !isString(u.Key()) || types.NewMethodSet(types.NewPointer(u.Key())).Len() > 0 {
			return false
		}
		return unmarshalSupported(u.Elem(), seen)
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			if reflect.StructTag(u.Tag(i)).Get("json") == "-" {
				continue
			}
			if f.Embedded() {
				return false
			}
			if f.Exported() && !unmarshalSupported(f.Type(), seen) {
				return false
			}
		}
		return true
	}
	return false
}

// unmarshalCall returns the helper that json.Unmarshal(data, v) becomes
// for v of type *t, or "" when it cannot.
func (r *rewriter) unmarshalCall(t types.Type) string {
	tn := r.typeNameQuiet(t)
	if tn == "" {
		return ""
	}
	key := "jsonunmarshal " + tn
	if h, ok := r.helpers[key]; ok {
		return h
	}
	dec := r.decodeFn(t)
	if dec == "" {
		return ""
	}
	name := r.fresh("unmarshal")
	r.helpers[key] = name
	sh := r.qualify(types.NewPackage(shimPath, "shim"))
	r.defs = append(r.defs, fmt.Sprintf("func %s(data []byte, v *%s) error {\nraw, err := %s.JSONValue(data)\nif err != nil {\nreturn err\n}\nreturn %s.Unstop(%s(raw, v, \"\", \"\"))\n}\n", name, tn, sh, sh, dec))
	return name
}

// decodeFn returns the helper that decodes one JSON value (valid, without
// white space around it) into *v for v of type *t.
func (r *rewriter) decodeFn(t types.Type) string {
	tn := r.typeNameQuiet(t)
	if tn == "" {
		return ""
	}
	key := "jsondecode " + tn
	if h, ok := r.helpers[key]; ok {
		return h
	}
	name := r.fresh("decode")
	r.helpers[key] = name
	body, ok := r.decodeBody(t)
	if !ok {
		return ""
	}
	r.defs = append(r.defs, fmt.Sprintf("func %s(data []byte, v *%s, st, path string) error {\n%s\n}\n", name, tn, body))
	return name
}

func (r *rewriter) decodeBody(t types.Type) (string, bool) {
	js := r.qualify(types.NewPackage("encoding/json", "json"))
	sh := r.qualify(types.NewPackage(shimPath, "shim"))
	if unmarshalMethod(t) {
		return "return " + sh + ".Stop(" + sh + ".Context(v.UnmarshalJSON(data), st, path))", true
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		en, h := r.typeNameQuiet(u.Elem()), r.decodeFn(u.Elem())
		if en == "" || h == "" {
			return "", false
		}
		return fmt.Sprintf("if string(data) == \"null\" {\n*v = nil\nreturn nil\n}\nif *v == nil {\n*v = new(%s)\n}\nreturn %s(data, *v, st, path)", en, h), true
	case *types.Slice:
		h := r.decodeFn(u.Elem())
		tn := r.typeNameQuiet(t)
		if h == "" || tn == "" {
			return "", false
		}
		return fmt.Sprintf("if string(data) == \"null\" {\n*v = nil\nreturn nil\n}\nvar raws []%s.RawMessage\nif err := %s.Unmarshal(data, &raws); err != nil {\nreturn %s.TypeAt(err, %q, st, path)\n}\ns := make(%s, len(raws))\nvar first error\nfor i := range raws {\nif err := %s(raws[i], &s[i], st, path); err != nil {\nif %s.Stopped(err) {\n*v = s[:i+1]\nreturn err\n}\nif first == nil {\nfirst = err\n}\n}\n}\n*v = s\nreturn first", js, js, sh, goTypeName(t), tn, h, sh), true
	case *types.Map:
		h := r.decodeFn(u.Elem())
		tn, kn, en := r.typeNameQuiet(t), r.typeNameQuiet(u.Key()), r.typeNameQuiet(u.Elem())
		if h == "" || tn == "" || kn == "" || en == "" {
			return "", false
		}
		return fmt.Sprintf("if string(data) == \"null\" {\n*v = nil\nreturn nil\n}\nkeys, vals, err := %s.Members(data)\nif err != nil {\nreturn %s.TypeAt(err, %q, st, path)\n}\nif *v == nil {\n*v = make(%s)\n}\nvar first error\nfor i := range keys {\nvar e %s\nif err := %s(vals[i], &e, st, path); err != nil {\nif %s.Stopped(err) {\nreturn err\n}\nif first == nil {\nfirst = err\n}\n}\n(*v)[%s(keys[i])] = e\n}\nreturn first", sh, sh, goTypeName(t), tn, en, h, sh, kn), true
	case *types.Struct:
		// Members are decoded in the order they stand in the object, and
		// a method's error stops there, as in Go: the fields of the
		// members after it keep their values.
		var decl, in, keys, plain []string
		type custom struct{ field, helper, key string }
		var customs []custom
		var plainIdx []int
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			jtag := reflect.StructTag(u.Tag(i)).Get("json")
			if !f.Exported() || f.Embedded() || jtag == "-" {
				continue
			}
			key, _, _ := strings.Cut(jtag, ",")
			if key == "" {
				key = f.Name()
			}
			tag := ""
			if u.Tag(i) != "" {
				tag = " " + strconv.Quote(u.Tag(i))
			}
			if unmarshalNeeds(f.Type(), map[types.Type]bool{}) {
				h := r.decodeFn(f.Type())
				if h == "" {
					return "", false
				}
				decl = append(decl, fmt.Sprintf("%s %s.RawMessage%s", f.Name(), js, tag))
				customs = append(customs, custom{f.Name(), h, key})
				keys = append(keys, strconv.Quote(key))
				continue
			}
			ft := r.typeNameQuiet(f.Type())
			if ft == "" {
				return "", false
			}
			decl = append(decl, fmt.Sprintf("%s %s%s", f.Name(), ft, tag))
			in = append(in, fmt.Sprintf("m.%s = v.%s", f.Name(), f.Name()))
			plain = append(plain, f.Name())
			plainIdx = append(plainIdx, len(keys))
			keys = append(keys, strconv.Quote(key))
		}
		names := jsonStructNames(t, "", map[types.Type]bool{}, nil)
		var b strings.Builder
		fmt.Fprintf(&b, "var m struct {\n%s\n}\n", strings.Join(decl, "\n"))
		for _, l := range in {
			b.WriteString(l + "\n")
		}
		fmt.Fprintf(&b, "err := %s.Prefix(%s.TypeAt(%s.Unmarshal(data, &m, []string{%s}), %q, st, path), path)\n", sh, sh, sh, strings.Join(names, ", "), goTypeName(t))
		fmt.Fprintf(&b, "if err != nil && !%s.TypeError(err) {\n", sh)
		for _, p := range plain {
			fmt.Fprintf(&b, "v.%s = m.%s\n", p, p)
		}
		b.WriteString("return err\n}\n")
		fmt.Fprintf(&b, "pos := %s.Order(data, []string{%s})\n", sh, strings.Join(keys, ", "))
		b.WriteString("failAt := -1\nvar cerr error\n")
		if len(customs) > 0 {
			ci := make([]string, 0, len(customs))
			for k := range keys {
				if !slices.Contains(plainIdx, k) {
					ci = append(ci, fmt.Sprintf("pos[%d]", k))
				}
			}
			fmt.Fprintf(&b, "order := []int{%s}\nfor _, k := range %s.ByPos(order) {\nswitch k {\n", strings.Join(ci, ", "), sh)
			for i, c := range customs {
				fmt.Fprintf(&b, "case %d:\ncerr = %s(m.%s, &v.%s, %q, %s.Join(path, %q))\n", i, c.helper, c.field, c.field, structName(t), sh, c.key)
			}
			fmt.Fprintf(&b, "}\nif cerr != nil && !%s.Stopped(cerr) {\nif err == nil {\nerr = cerr\n}\ncerr = nil\n}\nif cerr != nil {\nfailAt = order[k]\nbreak\n}\n}\n", sh)
		}
		for i, p := range plain {
			fmt.Fprintf(&b, "if cerr == nil || pos[%d] < failAt {\nv.%s = m.%s\n}\n", plainIdx[i], p, p)
		}
		b.WriteString("if cerr != nil {\nreturn cerr\n}\nreturn err")
		return b.String(), true
	}
	return "", false
}

// goTypeName is t's name as reflect prints it: packages by their name.
func goTypeName(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// structName is the name encoding/json gives the struct type t in errors.
func structName(t types.Type) string {
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}
