package check

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// checkErrorValues refuses the uses of error values that the interpreter
// gets silently wrong and the rewrite does not convert: errors.Is/As/
// Unwrap when the snippet declares As methods, Is methods of another
// signature than Is(error) bool, or Unwrap returning []error (the
// standard library cannot see them). Error, Unwrap() error and Is(error)
// bool are followed (rewrite_errors.go).
func (c *checker) checkErrorValues() {
	var chainTypes []string
	for _, name := range c.pkg.Scope().Names() {
		tn, ok := c.pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		for _, t := range []types.Type{tn.Type(), types.NewPointer(tn.Type())} {
			ms := types.NewMethodSet(t)
			for i := 0; i < ms.Len(); i++ {
				if slices.Contains(chainTypes, name+"."+ms.At(i).Obj().Name()) {
					continue // in the value's method set and the pointer's
				}
				switch m := ms.At(i).Obj().Name(); m {
				case "Is":
					// Is(error) bool is called by errors.Is
					// (rewrite_errors.go); another Is is not.
					if !isMethod(t) {
						chainTypes = append(chainTypes, name+"."+m)
					}
				case "As":
					chainTypes = append(chainTypes, name+"."+m)
				case "Unwrap":
					// Unwrap() error is followed (rewrite_errors.go);
					// Unwrap() []error is not.
					if sig := ms.At(i).Obj().Type().(*types.Signature); sig.Results().Len() != 1 || !types.Identical(sig.Results().At(0).Type(), types.Universe.Lookup("error").Type()) {
						chainTypes = append(chainTypes, name+"."+m)
					}
				}
			}
		}
	}
	ast.Inspect(c.file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		id := calleeIdent(call.Fun)
		fn, ok := c.info.Uses[id].(*types.Func)
		if !ok || fn.Pkg() == nil {
			return true
		}
		switch fn.FullName() {
		case "errors.Is", "errors.As", "errors.Unwrap":
			if len(chainTypes) > 0 {
				c.errorf(call.Pos(), "check the error's type directly (e, ok := err.(*T)) and read its fields, instead of declaring "+strings.Join(chainTypes, ", "),
					"%s cannot see the methods %s that the snippet declares: the interpreter hides them from the standard library", fn.FullName(), strings.Join(chainTypes, ", "))
			}
		}
		return true
	})
}

// checkErrorsAsTargets refuses errors.As given an error-typed value (a
// pointer variable itself, not its address), as go vet does. A value
// (not pointer) type of the snippet's is found in an error by errors.As,
// a type assertion or a type switch as Go finds it (the yaegi fork looks
// inside its wrapper of compiled interfaces).
func (c *checker) checkErrorsAsTargets() {
	ast.Inspect(c.file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn, ok := c.info.Uses[calleeIdent(call.Fun)].(*types.Func)
		if !ok || fn.FullName() != "errors.As" || len(call.Args) != 2 {
			return true
		}
		if h := c.errorsAsTargetHint(call); h != "" {
			c.errorf(call.Args[1].Pos(), h, "second argument to errors.As must be a pointer to a variable of an error type (or of an interface type)")
			return true
		}
		pt, ok := underlying(c.info.TypeOf(call.Args[1])).(*types.Pointer)
		if !ok {
			return true
		}
		elem := pt.Elem()
		errIface := types.Universe.Lookup("error").Type().Underlying().(*types.Interface)
		if _, isIface := elem.Underlying().(*types.Interface); isIface || types.Implements(elem, errIface) || !types.Implements(types.NewPointer(elem), errIface) {
			return true
		}
		// T's Error method has a pointer receiver: errors.As panics.
		name := types.TypeString(elem, c.qualifier)
		hint := fmt.Sprintf("look for *%s: var x *%s; errors.As(err, &x)", name, name)
		if n, ok := types.Unalias(elem).(*types.Named); ok && n.Obj().Name() == "ToolError" {
			hint += ", or use mcp.AsToolError(err)"
		}
		c.errorf(call.Args[1].Pos(), hint, "second argument to errors.As must be a pointer to a type that implements error (or to an interface type): %s does not, *%s does", name, name)
		return true
	})
}

// checkTemplates refuses executing a text/template over values of the
// snippet's types with methods: the interpreter hides the methods from
// the template (it neither calls .Method nor formats with String). Data
// that holds interfaces (map[string]any) is refused when the snippet puts
// values of such types into interfaces and a template may use their
// methods (templateHidden).
func (c *checker) checkTemplates() {
	ast.Inspect(c.file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn, ok := c.info.Uses[calleeIdent(call.Fun)].(*types.Func)
		if !ok {
			return true
		}
		arg := -1
		switch fn.FullName() {
		case "(*text/template.Template).Execute":
			arg = 1
		case "(*text/template.Template).ExecuteTemplate":
			arg = 2
		}
		if arg < 0 || arg >= len(call.Args) {
			return true
		}
		if m := methodsInside(c.info.TypeOf(call.Args[arg]), map[types.Type]bool{}); m != "" {
			c.errorf(call.Args[arg].Pos(), "call the methods first and pass their results in a map or a struct without methods",
				"text/template cannot see the method %s in snippets: the interpreter hides the methods of the snippet's types from the standard library", m)
		} else if holdsIface(c.info.TypeOf(call.Args[arg]), map[types.Type]bool{}) {
			// The data holds interfaces (map[string]any): values of the
			// snippet's types put into them hide their methods too.
			if m := c.templateHidden(); m != "" {
				c.errorf(call.Args[arg].Pos(), "call the methods first and put their results in the data (\"Total\": inv.Total(), \"Status\": s.String())",
					"text/template cannot see the method %s in snippets: the data holds values of the snippet's types in interfaces, and the interpreter hides their methods from the standard library", m)
			}
		}
		return true
	})
}

// methodsInside names a method of an interpreted type found in t.
func methodsInside(t types.Type, seen map[types.Type]bool) string {
	if t == nil || seen[t] {
		return ""
	}
	seen[t] = true
	base := t
	if p, ok := t.(*types.Pointer); ok {
		base = p.Elem()
	}
	if n, ok := interpNamed(base); ok {
		if _, isIface := n.Underlying().(*types.Interface); !isIface {
			ms := types.NewMethodSet(types.NewPointer(n))
			if ms.Len() > 0 {
				return n.Obj().Name() + "." + ms.At(0).Obj().Name()
			}
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return methodsInside(u.Elem(), seen)
	case *types.Slice:
		return methodsInside(u.Elem(), seen)
	case *types.Array:
		return methodsInside(u.Elem(), seen)
	case *types.Map:
		if m := methodsInside(u.Key(), seen); m != "" {
			return m
		}
		return methodsInside(u.Elem(), seen)
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if m := methodsInside(u.Field(i).Type(), seen); m != "" {
				return m
			}
		}
	}
	return ""
}

// shapeTwin returns another type of the snippet's with the same
// underlying type as t (or as t's element, for a pointer), both
// function types, or nil. The interpreter cannot tell such types apart
// once a value of one sits in an interface: a type assertion or type
// switch to one matches the other. Other types have run-time types of
// their own (ownType).
func shapeTwin(pkg *types.Package, t types.Type) *types.Named {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := interpNamed(t)
	if !ok || n.Obj().Pkg() != pkg {
		return nil
	}
	if _, isIface := n.Underlying().(*types.Interface); isIface {
		return nil
	}
	if ownType(n) {
		return nil
	}
	for _, name := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() || tn == n.Obj() {
			continue
		}
		other, ok := tn.Type().(*types.Named)
		if ok && other.TypeParams().Len() == 0 && !ownType(other) && types.Identical(other.Underlying(), n.Underlying()) {
			return other
		}
	}
	return nil
}

// ownType reports whether the interpreter gives values of the defined
// type n a run-time type of their own, told apart from any other in an
// interface (the yaegi fork's definedRType): all but function types.
func ownType(n *types.Named) bool {
	_, isFunc := n.Underlying().(*types.Signature)
	return !isFunc
}

// checkShapeTwins refuses finding, in an interface value, a type of the
// snippet's that has a twin of the same fields: the interpreter would
// take one for the other.
func (c *checker) checkShapeTwins() {
	report := func(at ast.Node, t types.Type) {
		twin := shapeTwin(c.pkg, t)
		if twin == nil {
			return
		}
		name := types.TypeString(t, c.qualifier)
		c.errorf(at.Pos(), fmt.Sprintf("give %s and %s different fields (or make them one type with a field that tells them apart)", name, twin.Obj().Name()),
			"the interpreter cannot tell %s from %s in an interface value: they have the same fields", name, twin.Obj().Name())
	}
	ast.Inspect(c.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TypeAssertExpr:
			if n.Type != nil {
				report(n.Type, c.info.TypeOf(n.Type))
			}
		case *ast.TypeSwitchStmt:
			for _, cl := range n.Body.List {
				for _, e := range cl.(*ast.CaseClause).List {
					if t := c.info.TypeOf(e); t != nil {
						report(e, t)
					}
				}
			}
		case *ast.CallExpr:
			fn, ok := c.info.Uses[calleeIdent(n.Fun)].(*types.Func)
			if ok && fn.FullName() == "errors.As" && len(n.Args) == 2 {
				if pt, ok := underlying(c.info.TypeOf(n.Args[1])).(*types.Pointer); ok {
					report(n.Args[1], pt.Elem())
				}
			}
		}
		return true
	})
}

// errorsAsTargetHint: errors.As given an error-typed value (a pointer
// variable itself, not its address): what to pass instead, or "".
func (c *checker) errorsAsTargetHint(call *ast.CallExpr) string {
	arg := call.Args[1]
	if u, ok := ast.Unparen(arg).(*ast.UnaryExpr); ok && u.Op == token.AND {
		return ""
	}
	t := c.info.TypeOf(arg)
	if t == nil {
		return ""
	}
	pt, ok := t.Underlying().(*types.Pointer)
	if !ok {
		return ""
	}
	errIface := types.Universe.Lookup("error").Type().Underlying().(*types.Interface)
	if _, isIface := pt.Elem().Underlying().(*types.Interface); isIface || types.Implements(pt.Elem(), errIface) || !types.Implements(t, errIface) {
		return ""
	}
	a := c.text(arg)
	return fmt.Sprintf("errors.As sets the variable its second argument points to: pass its address, errors.As(%s, &%s), then use %s", c.text(call.Args[0]), a, a)
}
