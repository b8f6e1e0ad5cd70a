package check

import (
	"go/ast"
	"go/constant"
	"go/types"
	"strings"
)

// checkErrorValues refuses the uses of error values that the interpreter
// gets silently wrong: host functions cannot see the methods of error
// types that interpreted code declares, so errors.Is/As/Unwrap do not
// follow their Unwrap (or Is/As) methods, and fmt.Errorf's %w does not
// wrap them.
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
				switch m := ms.At(i).Obj().Name(); m {
				case "Unwrap", "Is", "As":
					chainTypes = append(chainTypes, name+"."+m)
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
		case "fmt.Errorf":
			if len(call.Args) < 2 {
				return true
			}
			if tv := c.info.Types[call.Args[0]]; tv.Value == nil || tv.Value.Kind() != constant.String || !strings.Contains(constant.StringVal(tv.Value), "%w") {
				return true
			}
			for _, a := range call.Args[1:] {
				if t := c.info.TypeOf(a); t != nil && interpreted(t) {
					c.errorf(a.Pos(), "return the error value itself, or format it with %v (the result is then a plain error)",
						"fmt.Errorf cannot wrap %s with %%w in snippets: the interpreter passes it to the standard library without its Error method", types.TypeString(t, c.qualifier))
				}
			}
		}
		return true
	})
}
