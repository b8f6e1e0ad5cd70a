package check

import (
	"go/ast"
	"go/constant"
	"go/types"
	"slices"
	"text/template/parse"
)

// templateHidden names a method of the snippet's that a template run over
// data holding interfaces (map[string]any, []any) would miss, or "": the
// methods of the snippet's types are hidden from text/template, so
// {{.Total}} on such a value fails with "can't evaluate field" and
// {{.Status}} of a value with a String method prints its fields. Only
// types whose values are put into an interface in the snippet count
// (boxedTypes); a String or Error method counts always (the template
// prints the value), another method when a template parsed from a
// constant names it (or when a template's text is not a constant).
func (c *checker) templateHidden() string {
	boxed := c.boxedTypes(false)
	if len(boxed) == 0 {
		return ""
	}
	names, allConst := c.templateNames()
	for _, n := range boxed {
		ms := types.NewMethodSet(types.NewPointer(n))
		for i := 0; i < ms.Len(); i++ {
			m := ms.At(i).Obj().Name()
			if m == "String" || m == "Error" || !allConst || names[m] {
				return n.Obj().Name() + "." + m
			}
		}
	}
	return ""
}

// holdsIface reports whether a value of type t can hold an interface
// value: t is one, or a slice, array, map, pointer or struct holding one.
func holdsIface(t types.Type, seen map[types.Type]bool) bool {
	return holdsIfaceOf(t, false, seen)
}

// holdsIfaceOf is holdsIface for empty interfaces (any) only when
// emptyOnly: the interpreter gives a value in an interface with methods
// (fmt.Stringer, error) a wrapper with those methods.
func holdsIfaceOf(t types.Type, emptyOnly bool, seen map[types.Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	if _, isParam := t.(*types.TypeParam); isParam {
		return false // its constraint is no interface value
	}
	switch u := t.Underlying().(type) {
	case *types.Interface:
		return !emptyOnly || u.Empty()
	case *types.Pointer:
		return holdsIfaceOf(u.Elem(), emptyOnly, seen)
	case *types.Slice:
		return holdsIfaceOf(u.Elem(), emptyOnly, seen)
	case *types.Array:
		return holdsIfaceOf(u.Elem(), emptyOnly, seen)
	case *types.Map:
		return holdsIfaceOf(u.Key(), emptyOnly, seen) || holdsIfaceOf(u.Elem(), emptyOnly, seen)
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if holdsIfaceOf(u.Field(i).Type(), emptyOnly, seen) {
				return true
			}
		}
	}
	return false
}

// boxedTypes lists, sorted by name, the snippet's types with methods
// whose values (or pointers) the snippet puts into an interface (an
// empty one when emptyOnly) in a composite literal, an assignment, a var
// declaration or an append.
func (c *checker) boxedTypes(emptyOnly bool) []*types.Named {
	found := map[*types.Named]bool{}
	flag := func(e ast.Expr, target types.Type) {
		if e == nil || target == nil {
			return
		}
		if it, isIface := target.Underlying().(*types.Interface); !isIface || emptyOnly && !it.Empty() {
			return
		}
		methodTypes(c.info.TypeOf(e), found, map[types.Type]bool{})
	}
	ast.Inspect(c.file, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.CompositeLit:
			lt := c.info.TypeOf(x)
			if lt == nil {
				return true
			}
			switch u := lt.Underlying().(type) {
			case *types.Map:
				for _, el := range x.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						flag(kv.Key, u.Key())
						flag(kv.Value, u.Elem())
					}
				}
			case *types.Slice, *types.Array:
				var elem types.Type
				if s, ok := u.(*types.Slice); ok {
					elem = s.Elem()
				} else {
					elem = u.(*types.Array).Elem()
				}
				for _, el := range x.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						el = kv.Value
					}
					flag(el, elem)
				}
			case *types.Struct:
				for i, el := range x.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if id, ok := kv.Key.(*ast.Ident); ok {
							if f, ok := c.info.Uses[id].(*types.Var); ok {
								flag(kv.Value, f.Type())
							}
						}
						continue
					}
					if i < u.NumFields() {
						flag(el, u.Field(i).Type())
					}
				}
			}
		case *ast.AssignStmt:
			if len(x.Lhs) == len(x.Rhs) {
				for i := range x.Lhs {
					flag(x.Rhs[i], c.info.TypeOf(x.Lhs[i]))
				}
			}
		case *ast.ValueSpec:
			if x.Type != nil && len(x.Values) == len(x.Names) {
				for _, v := range x.Values {
					flag(v, c.info.TypeOf(x.Type))
				}
			}
		case *ast.CallExpr:
			if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok && len(x.Args) > 1 {
				if b, ok := c.info.Uses[id].(*types.Builtin); ok && b.Name() == "append" && !x.Ellipsis.IsValid() {
					if s, ok := underlying(c.info.TypeOf(x.Args[0])).(*types.Slice); ok {
						for _, a := range x.Args[1:] {
							flag(a, s.Elem())
						}
					}
				}
			}
		}
		return true
	})
	out := make([]*types.Named, 0, len(found))
	for n := range found {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b *types.Named) int {
		switch {
		case a.Obj().Name() < b.Obj().Name():
			return -1
		case a.Obj().Name() > b.Obj().Name():
			return 1
		}
		return 0
	})
	return out
}

// methodTypes adds to found the snippet's types with methods that a value
// of type t is or holds (in elements, fields or through pointers).
func methodTypes(t types.Type, found map[*types.Named]bool, seen map[types.Type]bool) {
	if t == nil || seen[t] {
		return
	}
	seen[t] = true
	if n, ok := interpNamed(t); ok {
		if _, isIface := n.Underlying().(*types.Interface); !isIface && types.NewMethodSet(types.NewPointer(n)).Len() > 0 {
			found[n] = true
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		methodTypes(u.Elem(), found, seen)
	case *types.Slice:
		methodTypes(u.Elem(), found, seen)
	case *types.Array:
		methodTypes(u.Elem(), found, seen)
	case *types.Map:
		methodTypes(u.Key(), found, seen)
		methodTypes(u.Elem(), found, seen)
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			methodTypes(u.Field(i).Type(), found, seen)
		}
	}
}

// templateNames collects the field and method names that the templates
// the snippet parses from constants refer to ({{.A.B}}, {{$x.C}},
// {{(.D).E}}); allConst is false when some template's text is not a
// constant.
func (c *checker) templateNames() (names map[string]bool, allConst bool) {
	names = map[string]bool{}
	allConst = true
	ast.Inspect(c.file, func(node ast.Node) bool {
		call, ok := node.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		fn, ok := c.info.Uses[calleeIdent(call.Fun)].(*types.Func)
		if !ok || fn.FullName() != "(*text/template.Template).Parse" {
			return true
		}
		tv := c.info.Types[call.Args[0]]
		if tv.Value == nil || tv.Value.Kind() != constant.String {
			allConst = false
			return true
		}
		t := parse.New("snippet")
		t.Mode = parse.SkipFuncCheck
		trees := map[string]*parse.Tree{}
		if _, err := t.Parse(constant.StringVal(tv.Value), "", "", trees); err != nil {
			return true // Parse fails in Go as in the snippet
		}
		for _, tr := range trees {
			templateNodeNames(tr.Root, names)
		}
		return true
	})
	return names, allConst
}

// templateNodeNames adds the field names n refers to.
func templateNodeNames(n parse.Node, names map[string]bool) {
	if n == nil {
		return
	}
	add := func(ids []string) {
		for _, id := range ids {
			names[id] = true
		}
	}
	switch x := n.(type) {
	case *parse.ListNode:
		if x == nil {
			return
		}
		for _, c := range x.Nodes {
			templateNodeNames(c, names)
		}
	case *parse.ActionNode:
		templateNodeNames(x.Pipe, names)
	case *parse.PipeNode:
		if x == nil {
			return
		}
		for _, c := range x.Cmds {
			templateNodeNames(c, names)
		}
	case *parse.CommandNode:
		for _, a := range x.Args {
			templateNodeNames(a, names)
		}
	case *parse.FieldNode:
		add(x.Ident)
	case *parse.VariableNode:
		if len(x.Ident) > 1 {
			add(x.Ident[1:])
		}
	case *parse.ChainNode:
		add(x.Field)
		templateNodeNames(x.Node, names)
	case *parse.IfNode:
		templateNodeNames(x.Pipe, names)
		templateNodeNames(x.List, names)
		templateNodeNames(x.ElseList, names)
	case *parse.RangeNode:
		templateNodeNames(x.Pipe, names)
		templateNodeNames(x.List, names)
		templateNodeNames(x.ElseList, names)
	case *parse.WithNode:
		templateNodeNames(x.Pipe, names)
		templateNodeNames(x.List, names)
		templateNodeNames(x.ElseList, names)
	case *parse.TemplateNode:
		templateNodeNames(x.Pipe, names)
	}
}

// fmtPrinters are the functions of fmt whose arguments it formats, with
// the index of the first one.
var fmtPrinters = map[string]int{
	"fmt.Print": 0, "fmt.Println": 0, "fmt.Printf": 1,
	"fmt.Sprint": 0, "fmt.Sprintln": 0, "fmt.Sprintf": 1,
	"fmt.Fprint": 1, "fmt.Fprintln": 1, "fmt.Fprintf": 2,
	"fmt.Errorf": 1, "fmt.Append": 1, "fmt.Appendln": 1, "fmt.Appendf": 2,
}

// checkFmtGenericBoxed refuses formatting, with fmt, values that hold
// interfaces when the snippet puts values of an instance of its generic
// types with a String, Error, GoString or Format method into interfaces:
// the rewrite converts the values of its other types for fmt, not those,
// and the interpreter hides their methods (Pair[string, int] in an any
// printed as {a 1}, in an []any as the interpreter's wrapper).
func (c *checker) checkFmtGenericBoxed() {
	var gen []*types.Named
	for _, n := range c.boxedTypes(true) {
		if n.TypeArgs().Len() == 0 {
			continue
		}
		ms := types.NewMethodSet(types.NewPointer(n))
		for _, m := range []string{"String", "Error", "GoString", "Format"} {
			if ms.Lookup(n.Obj().Pkg(), m) != nil {
				gen = append(gen, n)
				break
			}
		}
	}
	if len(gen) == 0 {
		return
	}
	name := types.TypeString(gen[0], c.qualifier)
	ast.Inspect(c.file, func(node ast.Node) bool {
		call, ok := node.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn, ok := c.info.Uses[calleeIdent(call.Fun)].(*types.Func)
		if !ok {
			return true
		}
		first, ok := fmtPrinters[fn.FullName()]
		if !ok {
			return true
		}
		for i := first; i < len(call.Args); i++ {
			if holdsIfaceOf(c.info.TypeOf(call.Args[i]), true, map[types.Type]bool{}) {
				c.errorf(call.Args[i].Pos(), "call its method before the value goes into the interface (\"p\": p.String()), or print it from a variable of its own type",
					"fmt cannot see the methods of %s in snippets when a value of it is held in an interface: the interpreter hides the methods of generic types' values from the standard library", name)
				break
			}
		}
		return true
	})
}
