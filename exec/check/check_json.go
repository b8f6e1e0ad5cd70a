package check

import (
	"go/ast"
	"go/types"
	"strings"
)

// jsonValueArg gives, for the encoding/json functions and methods that
// walk a value's fields, which argument is the value and whether it is
// being encoded (unexported fields matter only then).
var jsonValueArg = map[string]struct {
	arg    int
	encode bool
}{
	"encoding/json.Marshal":           {0, true},
	"encoding/json.MarshalIndent":     {0, true},
	"(*encoding/json.Encoder).Encode": {0, true},
	"encoding/json.Unmarshal":         {1, false},
	"(*encoding/json.Decoder).Decode": {0, false},
}

// checkJSON refuses encoding/json over interpreted struct types that the
// interpreter would decode differently from Go: embedded fields it does
// not flatten (embedFlattened), methods it cannot call.
func (c *checker) checkJSON() {
	ast.Inspect(c.file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn, ok := c.info.Uses[calleeIdent(call.Fun)].(*types.Func)
		if !ok {
			return true
		}
		spec, ok := jsonValueArg[fn.FullName()]
		if !ok || spec.arg >= len(call.Args) || spec.encode {
			return true // encoding: the rewrite converts the value (jsonCall)
		}
		arg := call.Args[spec.arg]
		// json.Unmarshal calls UnmarshalJSON methods itself where the
		// rewrite can (rewrite_unmarshal.go).
		c.unmarshalByRewrite = false
		if p, ok := c.info.TypeOf(arg).(*types.Pointer); ok && fn.FullName() == "encoding/json.Unmarshal" {
			c.unmarshalByRewrite = unmarshalSupported(p.Elem(), map[types.Type]bool{})
		}
		why := c.jsonProblem(c.info.TypeOf(arg), spec.encode, map[types.Type]bool{})
		c.unmarshalByRewrite = false
		if why != "" {
			hint := "give the field a name (Base Base `json:\"base\"`) or copy the values into a struct with only exported, named fields"
			if strings.Contains(why, "cannot call the method") {
				hint = "decode that field into a plain type (string, number, json.RawMessage) and convert it after " + fn.Name()
			}
			c.errorf(arg.Pos(), hint, "%s would differ in snippets: %s", fn.Name(), why)
		}
		return true
	})
}

// jsonProblem describes a field of t that the interpreter's encoding/json
// handles differently from Go, or returns "".
func (c *checker) jsonProblem(t types.Type, encode bool, seen map[types.Type]bool) string {
	if t == nil || seen[t] {
		return ""
	}
	seen[t] = true
	if !encode && c.unmarshalByRewrite && unmarshalMethod(t) {
		return "" // its UnmarshalJSON decodes it (rewrite_unmarshal.go)
	}
	if !encode && !c.unmarshalByRewrite {
		base := t
		if p, ok := t.(*types.Pointer); ok {
			base = p.Elem()
		}
		if n, ok := interpNamed(base); ok {
			ms := types.NewMethodSet(types.NewPointer(base))
			for _, m := range []string{"UnmarshalJSON", "UnmarshalText"} {
				if ms.Lookup(n.Obj().Pkg(), m) != nil {
					return "encoding/json cannot call the method " + m + " of " + types.TypeString(base, c.qualifier) + " in the interpreter"
				}
			}
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return c.jsonProblem(u.Elem(), encode, seen)
	case *types.Slice:
		return c.jsonProblem(u.Elem(), encode, seen)
	case *types.Array:
		return c.jsonProblem(u.Elem(), encode, seen)
	case *types.Map:
		return c.jsonProblem(u.Elem(), encode, seen)
	case *types.Struct:
		name := types.TypeString(t, c.qualifier)
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			tag := u.Tag(i)
			if strings.Contains(tag, `json:"-"`) {
				continue
			}
			interp := f.Pkg() != nil && (f.Pkg().Path() == "main" || strings.HasPrefix(f.Pkg().Path(), treePrefix))
			if f.Embedded() && interp && !strings.Contains(tag, `json:"`) && !embedFlattened(f) {
				return "the interpreter does not flatten the embedded field " + f.Name() + " of " + name + " into the object"
			}
			if encode && !f.Exported() && interp && !f.Embedded() {
				return "the interpreter encodes the unexported field " + f.Name() + " of " + name + " (Go skips it)"
			}
			if why := c.jsonProblem(f.Type(), encode, seen); why != "" {
				return why
			}
		}
	}
	return ""
}

// embedFlattened reports whether the interpreter's encoding/json treats
// the embedded field f of a snippet's struct as Go does: the interpreter
// fork marks an embedded field as embedded when its type has no methods
// at run time (the snippet's own types have none there), so a struct,
// or a pointer to an exported one, is flattened into the object. An
// embedded interface is not marked, nor a struct that itself embeds a
// standard library type with methods (sync.Mutex); an unexported type
// not a struct would be encoded under its name, where Go skips it.
func embedFlattened(f *types.Var) bool {
	t := f.Type()
	if p, ok := t.(*types.Pointer); ok {
		if !f.Exported() {
			return false // Go refuses to allocate it, the interpreter does not
		}
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		if _, isIface := t.Underlying().(*types.Interface); isIface {
			return false
		}
		return f.Exported()
	}
	return !hasHostEmbed(st, map[*types.Struct]bool{})
}

// hasHostEmbed reports whether st embeds, at any depth, a type of the
// standard library with methods.
func hasHostEmbed(st *types.Struct, seen map[*types.Struct]bool) bool {
	if seen[st] {
		return false
	}
	seen[st] = true
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Embedded() {
			continue
		}
		t := f.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil {
			if path := n.Obj().Pkg().Path(); path != "main" && !strings.HasPrefix(path, treePrefix) {
				if types.NewMethodSet(types.NewPointer(t)).Len() > 0 {
					return true
				}
			}
		}
		if inner, ok := t.Underlying().(*types.Struct); ok && hasHostEmbed(inner, seen) {
			return true
		}
	}
	return false
}
