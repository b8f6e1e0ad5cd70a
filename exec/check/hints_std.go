package check

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The hints below are about the standard library and the language: they
// read the signatures, method sets and constants that go/types knows (a
// function's real parameters, the methods of a type that take the given
// arguments, the function of another package with the name called) and
// check a candidate call with go/types before naming it.

var (
	rePtrMethod     = lazyRE(`^cannot call pointer method (\w+) on (.+)$`)
	reOneRangeVar   = lazyRE(`^range over (.+) permits only one iteration variable$`)
	reFloatMod      = lazyRE(`^invalid operation: operator % not defined on (.+) \((?:variable|value) of type (float32|float64)\)$`)
	reFloatConvert  = lazyRE(`^cannot convert (.+) \(untyped float constant\) to type (.+)$`)
	reNotOrdered    = lazyRE(`^invalid argument: (.+) \((?:variable|value) of (?:\w+ )?type (.+)\) cannot be ordered$`)
	reLenAnonStruct = lazyRE(`^invalid argument: (.+) \((?:variable|value) of (?:struct )?type (.+)\) for built-in (len|cap)$`)
	reTypeNotExpr   = lazyRE(`^(.+) \(type\) is not an expression$`)
	reDeleteArgs    = lazyRE(`^invalid operation: not enough arguments for delete\((.+)\)`)
	reTypeParamOp   = lazyRE(`type parameter (\w+) (?:cannot use operator (\S+?)|is not comparable)`)
	reSelectCase    = lazyRE(`^select case must be`)
	reMissingRet    = lazyRE(`^missing return$`)
	reInferred      = lazyRE(`^in call to ([\w.]+), type (func\(.*\) bool) of .* does not match inferred type (func\(.*\) int) for `)
	reInCall        = lazyRE(`^in call to ([\w.()*]+), `)
	reIterLen       = lazyRE(`^invalid argument: (.+) \(value of func type (iter\.Seq2?\[.+\])\) for built-in (len|cap)$`)
	reOpStruct      = lazyRE(`^invalid operation: operator (\S+) not defined on (.+) \((?:variable|value) of struct type (.+)\)$`)
	reSendOnly      = lazyRE(`^invalid operation: cannot receive from send-only channel (.+) (\S+) \((?:variable|value) of type (.+)\)$`)
	reRecvOnly      = lazyRE(`^invalid operation: cannot send to receive-only channel (.+) (\S+) \((?:variable|value) of type (.+)\)$`)
	reCapMap        = lazyRE(`^invalid argument: (.+) \((?:variable|value) of type (map\[.+)\) for built-in cap$`)
	reUnusedAlt     = lazyRE(`^(\w+) declared and not used$`)
	reNonNumericOp  = lazyRE(`^invalid operation: (.+)(\+\+|--) \(non-numeric type (.+)\)$`)
	reGenericBare   = lazyRE(`^cannot use generic type (\w+)\[(.+)\] without instantiation$`)
	reUncomparable  = lazyRE(`^invalid operation: (.+) == (.+) \(struct containing (.+) cannot be compared\)$`)
	reMissingMeth   = lazyRE(`(\S+) does not implement (\S+) \(missing method (\w+)\)`)
	reFallthrough   = lazyRE(`^cannot fallthrough final case in switch$`)
	reMakeArgs      = lazyRE(`^invalid operation: make\((\[\].+)\) expects 2 or 3 arguments; found 1$`)
	reTypeOutside   = lazyRE(`^use of \.\(type\) outside type switch$`)
	reUndefined     = lazyRE(`^undefined: (\w+)$`)
	reCallNoValue   = lazyRE(`^(.+) \(no value\) used as value$`)
	reCallerMethod  = lazyRE(`^(.+)\.(\w+) undefined \(type (.+) has no field or method (\w+)\)$`)
)

// stdHint is tried before the other hints: "" when no rule here applies.
func (c *checker) stdHint(te types.Error, at []ast.Node, parents map[ast.Node]ast.Node) string {
	if h := c.stdHint2(te, at, parents); h != "" {
		return h
	}
	msg := te.Msg
	switch {
	case rePtrMethod.MatchString(msg):
		return c.ptrMethodHint(te.Pos, rePtrMethod.FindStringSubmatch(msg))
	case reOneRangeVar.MatchString(msg):
		return c.oneRangeVarHint(te.Pos)
	case reFloatMod.MatchString(msg):
		if b, ok := c.enclosing(te.Pos, func(n ast.Node) bool { b, ok := n.(*ast.BinaryExpr); return ok && b.Op == token.REM }).(*ast.BinaryExpr); ok {
			x, y := c.text(b.X), c.text(b.Y)
			return fmt.Sprintf("%% is for integers: write math.Mod(%s, %s)%s, or convert first, int(%s) %% %s", x, y, c.importNote("math"), x, y)
		}
	case reFloatConvert.MatchString(msg):
		return c.floatConvertHint(te.Pos, reFloatConvert.FindStringSubmatch(msg))
	case reNotOrdered.MatchString(msg):
		m := reNotOrdered.FindStringSubmatch(msg)
		if call, ok := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.CallExpr); return ok }).(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && (id.Name == "min" || id.Name == "max") {
				var other ast.Expr
				for _, a := range call.Args {
					if c.text(a) != m[1] {
						other = a
					}
				}
				t := c.info.Types[call.Args[0]].Type
				for _, a := range call.Args {
					if c.text(a) == m[1] {
						t = c.info.Types[a].Type
					}
				}
				if t != nil {
					if _, isSlice := t.Underlying().(*types.Slice); isSlice {
						if other != nil && isNumeric(c.info.Types[other].Type) {
							return fmt.Sprintf("%s is a slice: for its length write len(%s), %s(%s, len(%s))", m[1], m[1], id.Name, c.text(other), m[1])
						}
						f := strings.ToUpper(id.Name[:1]) + id.Name[1:]
						return fmt.Sprintf("%s compares its arguments one by one; for the %s of a slice write slices.%s(%s)%s", id.Name, id.Name, f, m[1], c.importNote("slices"))
					}
					if st, ok := t.Underlying().(*types.Struct); ok && other != nil {
						if ot := c.info.Types[other].Type; ot != nil {
							for i := 0; i < st.NumFields(); i++ {
								if f := st.Field(i); types.Identical(f.Type(), types.Default(ot)) {
									return fmt.Sprintf("%s is a whole %s: compare its field, %s.%s (and keep %s a %s: %s := %s.%s)", m[1], c.typeString(t), m[1], f.Name(), m[1], c.typeString(f.Type()), m[1], m[1], f.Name())
								}
							}
						}
					}
				}
			}
		}
	case reDeleteArgs.MatchString(msg):
		m := reDeleteArgs.FindStringSubmatch(msg)
		key := "key"
		if t := c.exprTypeAt(m[1], te.Pos); t != nil {
			if mt, ok := t.Underlying().(*types.Map); ok {
				key = "key /* " + c.typeString(mt.Key()) + " */"
			}
		}
		return fmt.Sprintf("delete takes the map and one key: write delete(%s, %s); to remove every key, clear(%s)", m[1], key, m[1])
	case reTypeParamOp.MatchString(msg):
		m := reTypeParamOp.FindStringSubmatch(msg)
		if m[2] == "" || m[2] == "==" || m[2] == "!=" {
			return fmt.Sprintf("%s's constraint does not allow ==: constrain it with comparable, [%s comparable]", m[1], m[1])
		}
		return fmt.Sprintf("%s's constraint does not order its values: constrain it with cmp.Ordered, [%s cmp.Ordered]%s", m[1], m[1], c.importNote("cmp"))
	case reIncomparable.MatchString(msg):
		m := reIncomparable.FindStringSubmatch(msg)
		if t := c.exprTypeAt(m[1], te.Pos); t != nil {
			if tp, ok := t.(*types.TypeParam); ok {
				return fmt.Sprintf("%s's constraint (%s) does not allow ==: constrain it with comparable, [%s comparable]", tp.Obj().Name(), c.typeString(tp.Constraint()), tp.Obj().Name())
			}
		}
		return "the type parameter's constraint does not allow ==: constrain it with comparable"
	case reOverflowByte.MatchString(msg):
		r := reOverflowByte.FindStringSubmatch(msg)[1]
		if b, ok := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.BinaryExpr); return ok }).(*ast.BinaryExpr); ok {
			other := b.X
			if c.text(b.X) == "'"+r+"'" {
				other = b.Y
			}
			if ix, ok := ast.Unparen(other).(*ast.IndexExpr); ok && isString(c.info.Types[ix.X].Type) {
				sx := c.text(ix.X)
				return fmt.Sprintf("%s is one byte, and '%s' takes several: range over the runes, for _, r := range %s { if r == '%s' { ... } }, or index []rune(%s)", c.text(ix), r, sx, r, sx)
			}
		}
		return fmt.Sprintf("'%s' does not fit in a byte: work with runes (for _, r := range s, or []rune(s))", r)
	case reFuncMismatch.MatchString(msg) && !reInferred.MatchString(msg):
		if h := c.wrapFuncHint(te.Pos, reFuncMismatch.FindStringSubmatch(msg)); h != "" {
			return h
		}
	case reSelectCase.MatchString(msg):
		return c.selectCaseHint(te.Pos)
	case reMissingRet.MatchString(msg):
		return c.missingReturnHint(te.Pos)
	case reInferred.MatchString(msg):
		m := reInferred.FindStringSubmatch(msg)
		cmpExpr, cmpNote := c.compareFromLess(te.Pos)
		return fmt.Sprintf("%s wants a comparison that returns an int (negative, zero or positive), not a bool: write %s { return %s }%s%s", m[1], m[3], cmpExpr, cmpNote, c.importNote("cmp"))
	case reInCall.MatchString(msg):
		if call, ok := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.CallExpr); return ok }).(*ast.CallExpr); ok {
			if h := c.otherCallHint(call); h != "" {
				return h
			}
			return c.mapForSlicesHint(call)
		}
	case reLenAnonStruct.MatchString(msg) && (strings.Contains(msg, "of struct type") || strings.Contains(msg, "of type struct{")):
		m := reLenAnonStruct.FindStringSubmatch(msg)
		if x := outerExpr(at); x != nil {
			if call, ok := parents[x].(*ast.CallExpr); ok && len(call.Args) == 1 {
				x = call.Args[0]
			}
			if st, ok := underlying(c.info.Types[x].Type).(*types.Struct); ok {
				var ways []string
				for i := 0; i < st.NumFields(); i++ {
					switch st.Field(i).Type().Underlying().(type) {
					case *types.Slice, *types.Map, *types.Basic:
						if _, isBasic := st.Field(i).Type().Underlying().(*types.Basic); isBasic && !isString(st.Field(i).Type()) {
							continue
						}
						ways = append(ways, fmt.Sprintf("%s(%s.%s)", m[3], m[1], st.Field(i).Name()))
					}
				}
				if len(ways) > 0 && len(ways) <= 6 {
					return fmt.Sprintf("%s is a struct: take the %s of its field, %s", m[1], m[3], strings.Join(ways, ", or "))
				}
			}
		}
	case reTypeNotExpr.MatchString(msg):
		if h := c.typeForErrorHint(te.Pos); h != "" {
			return h
		}
	case reAppendString.MatchString(msg) && strings.Contains(msg, "of type ["):
		m := reAppendString.FindStringSubmatch(msg)
		if at, ok := types.Unalias(c.exprTypeAt(m[1], te.Pos)).(*types.Array); ok {
			return fmt.Sprintf("%s is an array, fixed in size: declare a slice, var %s []%s, to append to it (or append to a slice of it, %s[:])", m[1], m[1], c.typeString(at.Elem()), m[1])
		}
	case reIterLen.MatchString(msg):
		m := reIterLen.FindStringSubmatch(msg)
		return fmt.Sprintf("%s is an iterator (%s), which has no length: collect it first, %s(slices.Collect(%s))%s, or count in a for range loop", m[1], m[2], m[3], m[1], c.importNote("slices"))
	case reOpStruct.MatchString(msg):
		return c.opMethodHint(te.Pos, reOpStruct.FindStringSubmatch(msg))
	case reSendOnly.MatchString(msg):
		m := reSendOnly.FindStringSubmatch(msg)
		return fmt.Sprintf("%s is send-only (%s): to receive from it, declare it as a receive-only <-chan %s, or chan %s to send and receive", m[2], m[3], strings.TrimPrefix(m[3], "chan<- "), strings.TrimPrefix(m[3], "chan<- "))
	case reRecvOnly.MatchString(msg):
		m := reRecvOnly.FindStringSubmatch(msg)
		return fmt.Sprintf("%s is receive-only (%s): to send on it, declare it as a send-only chan<- %s, or chan %s to send and receive", m[2], m[3], strings.TrimPrefix(m[3], "<-chan "), strings.TrimPrefix(m[3], "<-chan "))
	case reCapMap.MatchString(msg):
		m := reCapMap.FindStringSubmatch(msg)
		return fmt.Sprintf("a map has no capacity: len(%s) counts its entries", m[1])
	case reUnusedAlt.MatchString(msg):
		name := reUnusedAlt.FindStringSubmatch(msg)[1]
		if ts, ok := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.TypeSwitchStmt); return ok }).(*ast.TypeSwitchStmt); ok {
			if a, ok := ts.Assign.(*ast.AssignStmt); ok && len(a.Rhs) == 1 {
				if ta, ok := a.Rhs[0].(*ast.TypeAssertExpr); ok {
					return fmt.Sprintf("no case uses %s: write switch %s.(type) without %s :=", name, c.text(ta.X), name)
				}
			}
		}
		return c.unusedHint(te.Pos, parents, name)
	case reCallerMethod.MatchString(msg):
		return c.unknownMethodHint(te.Pos, parents)
	case reMakeArgs.MatchString(msg):
		t := reMakeArgs.FindStringSubmatch(msg)[1]
		return fmt.Sprintf("make of a slice takes its length: make(%s, 0) (empty, grown by append), or make(%s, 0, n) with room for n", t, t)
	case reTypeOutside.MatchString(msg):
		if ta, ok := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.TypeAssertExpr); return ok }).(*ast.TypeAssertExpr); ok {
			x := c.text(ta.X)
			return fmt.Sprintf(".(type) works only in a type switch: switch %s.(type) { case T: ... } (switch v := %s.(type) to use the value as a T); for one type, an assertion, v, ok := %s.(T)", x, x, x)
		}
	case reCallNoValue.MatchString(msg):
		if h := c.calledNotPassedHint(te.Pos, parents); h != "" {
			return h
		}
	case reUndefined.MatchString(msg):
		return c.undefinedHint(te.Pos, reUndefined.FindStringSubmatch(msg)[1], parents)
	case reIndexInt.MatchString(msg):
		if ix, ok := c.enclosing(te.Pos, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.IndexExpr, *ast.SliceExpr:
				return true
			}
			return false
		}).(ast.Expr); ok {
			var idx []ast.Expr
			switch ix := ix.(type) {
			case *ast.IndexExpr:
				idx = []ast.Expr{ix.Index}
			case *ast.SliceExpr:
				idx = []ast.Expr{ix.Low, ix.High, ix.Max}
			}
			for _, i := range idx {
				if i == nil {
					continue
				}
				if t := c.info.Types[i].Type; t != nil {
					if p, ok := t.Underlying().(*types.Pointer); ok && isInteger(p.Elem()) {
						is := c.text(i)
						return fmt.Sprintf("%s is a pointer (%s): use the number it points to, *%s (when it is not nil)", is, c.typeString(t), is)
					}
				}
			}
		}
	case reNonNumericOp.MatchString(msg):
		m := reNonNumericOp.FindStringSubmatch(msg)
		if st, ok := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.IncDecStmt); return ok }).(*ast.IncDecStmt); ok {
			if t := c.info.Types[st.X].Type; t != nil {
				if sel := types.NewMethodSet(types.NewPointer(t)).Lookup(nil, "Add"); sel != nil {
					d := "1"
					if m[2] == "--" {
						d = "-1"
					}
					fn := sel.Obj().(*types.Func)
					return fmt.Sprintf("a %s is not a number; its Add method counts: write %s.Add(%s) (Add%s)", m[3], c.text(st.X), d, strings.TrimPrefix(c.sigString(fn.Type().(*types.Signature)), "func"))
				}
			}
		}
	case reGenericBare.MatchString(msg):
		m := reGenericBare.FindStringSubmatch(msg)
		return fmt.Sprintf("%s is generic: say what it holds, %s[int] or %s[string] (the type for %s)", m[1], m[1], m[1], m[2])
	case reUncomparable.MatchString(msg):
		return c.uncomparableHint(te.Pos)
	case reMissingMeth.MatchString(msg) && c.pkg != nil && c.pkg.Scope().Lookup(strings.TrimPrefix(reMissingMeth.FindStringSubmatch(msg)[1], "*")) != nil:
		// A type of the snippet's own that lacks a method.
		if h := c.missingMethodHint(te.Pos, reMissingMeth.FindStringSubmatch(msg)); h != "" {
			return h
		}
	case reFallthrough.MatchString(msg):
		return "there is no case after it to fall into: delete the fallthrough (or add the case it should reach)"

	case reCannotUse.MatchString(msg):
		if x := outerExpr(at); x != nil {
			if h := c.boolForCompareHint(x, parents); h != "" {
				return h
			}
			return c.stdArgHint(x, parents)
		}
	case reMismatch.MatchString(msg):
		return c.stdMismatchHint(te.Pos)
	case strings.HasPrefix(msg, "not enough arguments in call to "):
		call := c.callAt(te.Pos)
		if call == nil {
			return ""
		}
		if h := c.funcLitArgsHint(call); h != "" {
			return h
		}
		// A function called where it is to be passed: sc.Split(bufio.ScanWords()).
		if len(call.Args) == 0 {
			if outer, ok := parents[call].(*ast.CallExpr); ok {
				if ft := c.targetType(call, parents); ft != nil {
					if _, isFunc := ft.Underlying().(*types.Signature); isFunc {
						if t := c.info.Types[call.Fun].Type; t != nil && types.AssignableTo(t, ft) {
							return fmt.Sprintf("%s wants the function itself, which it calls: pass it without (), %s(%s)", c.text(outer.Fun), c.text(outer.Fun), c.text(call.Fun))
						}
					}
				}
			}
		}
	case strings.HasPrefix(msg, "too many arguments in call to "):
		// Another function that takes them all (slices.SortFunc for
		// slices.Sort given a comparison); the rest is said by argsHint.
		if call := c.callAt(te.Pos); call != nil {
			if fn := c.calleeFunc(call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "slices" && (fn.Name() == "Max" || fn.Name() == "Min") {
				if _, isSlice := underlying(c.info.Types[call.Args[0]].Type).(*types.Slice); !isSlice {
					b := strings.ToLower(fn.Name())
					return fmt.Sprintf("slices.%s takes one slice; for separate values use the built-in %s(%s)", fn.Name(), b, strings.Join(c.shortArgs(call.Args), ", "))
				}
			}
			if h := c.otherCallHint(call); h != "" {
				if s := c.stdArgCountHint(call); s != "" {
					h += "\n" + s
				}
				return h
			}
		}
	case reAssignCount.MatchString(msg):
		return c.moreResultsHint(te.Pos, reAssignCount.FindStringSubmatch(msg))
	}
	return ""
}

// checkCall type-checks src as an expression where pos is and returns its
// type, or nil when it does not check.
func (c *checker) checkCall(src string, pos token.Pos) (t types.Type) {
	x, err := parser.ParseExpr(src)
	if err != nil || c.pkg == nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			t = nil
		}
	}()
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if err := types.CheckExpr(token.NewFileSet(), c.pkg, pos, x, info); err != nil {
		return nil
	}
	return info.Types[x].Type
}

// exprTypeAt is the type of the expression src where pos is, or nil.
func (c *checker) exprTypeAt(src string, pos token.Pos) types.Type { return c.checkCall(src, pos) }

// shortArgs is the call's arguments as written, a long one (a function
// literal) shortened.
func (c *checker) shortArgs(args []ast.Expr) []string {
	var out []string
	for _, a := range args {
		s := c.text(a)
		if _, ok := a.(*ast.FuncLit); ok || len(s) > 40 {
			if fl, ok := a.(*ast.FuncLit); ok {
				s = c.text(fl.Type) + " { ... }"
			} else {
				s = s[:37] + "..."
			}
		}
		out = append(out, s)
	}
	return out
}

// calleeFuncOrMethod is the function or method a call calls, with the
// expression of its receiver for a method.
func (c *checker) calleeFuncOrMethod(call *ast.CallExpr) (*types.Func, string) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return c.calleeFunc(call), ""
	}
	if s, ok := c.info.Selections[sel]; ok {
		if fn, ok := s.Obj().(*types.Func); ok {
			return fn, c.text(sel.X)
		}
		return nil, ""
	}
	return c.calleeFunc(call), ""
}

// otherCallHint: the arguments as given fit another function of the same
// package (or method of the same type) named like the one called
// (slices.SortFunc for slices.Sort given a comparison, ReplaceAllString for
// ReplaceAll given strings), or the same function with two arguments
// swapped. Each candidate is type-checked before it is named.
func (c *checker) otherCallHint(call *ast.CallExpr) string {
	fn, recv := c.calleeFuncOrMethod(call)
	if fn == nil || fn.Pkg() == nil || strings.HasPrefix(fn.Pkg().Path(), treePrefix) || fn.Pkg() == c.pkg {
		return ""
	}
	args := make([]string, len(call.Args))
	for i, a := range call.Args {
		args[i] = c.text(a)
	}
	prefix := fn.Pkg().Name() + "."
	var names []string
	if recv != "" {
		prefix = recv + "."
		sig := fn.Type().(*types.Signature)
		ms := types.NewMethodSet(types.NewPointer(deref(sig.Recv().Type())))
		for i := 0; i < ms.Len(); i++ {
			names = append(names, ms.At(i).Obj().Name())
		}
	} else {
		for _, n := range fn.Pkg().Scope().Names() {
			if _, ok := fn.Pkg().Scope().Lookup(n).(*types.Func); ok {
				names = append(names, n)
			}
		}
	}
	if _, isPkg := c.info.Uses[calleeIdentOf(call.Fun)].(*types.Func); isPkg && recv == "" {
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
			prefix = c.text(sel.X) + "."
		}
	}
	short := c.shortArgs(call.Args)
	if fn.Type().(*types.Signature).Variadic() {
		names = nil // Printf's siblings take anything
	}
	// The names closest in length first (ReplaceAllString before
	// ReplaceAllLiteralString).
	sort.SliceStable(names, func(i, j int) bool {
		return abs(len(names[i])-len(fn.Name())) < abs(len(names[j])-len(fn.Name()))
	})
	for _, n := range names {
		if n == fn.Name() || !token.IsExported(n) || !(strings.HasPrefix(n, fn.Name()) || strings.HasPrefix(fn.Name(), n)) {
			continue
		}
		if c.checkCall(prefix+n+"("+strings.Join(args, ", ")+")", call.Pos()) != nil {
			other, _ := lookupFuncOrMethod(fn, n)
			sig := ""
			if other != nil {
				sig = " (" + prefix + n + strings.TrimPrefix(c.sigString(other.Type().(*types.Signature)), "func") + ")"
			}
			return fmt.Sprintf("%s%s takes these arguments: write %s%s(%s)%s", prefix, n, prefix, n, strings.Join(short, ", "), sig)
		}
	}
	sig := fn.Type().(*types.Signature)
	if len(args) >= 2 && len(args) == sig.Params().Len() && !sig.Variadic() {
		for i := 0; i < len(args); i++ {
			for j := i + 1; j < len(args); j++ {
				// Only arguments that fit neither where they are.
				if c.argFits(call.Args[i], sig.Params().At(i).Type()) || c.argFits(call.Args[j], sig.Params().At(j).Type()) {
					continue
				}
				sw := append([]string(nil), args...)
				sw[i], sw[j] = sw[j], sw[i]
				if c.checkCall(c.text(call.Fun)+"("+strings.Join(sw, ", ")+")", call.Pos()) != nil {
					sh := append([]string(nil), short...)
					sh[i], sh[j] = sh[j], sh[i]
					return fmt.Sprintf("the arguments are swapped: write %s(%s) (%s%s)", c.text(call.Fun), strings.Join(sh, ", "), fn.Name(), strings.TrimPrefix(c.sigString(fn.Type().(*types.Signature)), "func"))
				}
			}
		}
	}
	return ""
}

func calleeIdentOf(x ast.Expr) *ast.Ident {
	switch f := ast.Unparen(x).(type) {
	case *ast.Ident:
		return f
	case *ast.SelectorExpr:
		return f.Sel
	}
	return nil
}

// lookupFuncOrMethod finds the function name beside fn: in its package,
// or among the methods of its receiver's type.
func lookupFuncOrMethod(fn *types.Func, name string) (*types.Func, bool) {
	sig := fn.Type().(*types.Signature)
	if sig.Recv() == nil {
		f, ok := fn.Pkg().Scope().Lookup(name).(*types.Func)
		return f, ok
	}
	obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(deref(sig.Recv().Type())), true, fn.Pkg(), name)
	f, ok := obj.(*types.Func)
	return f, ok
}

// stdArgCountHint: a call to a standard function with too few or too many
// arguments: its signature as Go declares it, and the call with the
// arguments given and the missing parameters named (or the extra ones
// dropped).
func (c *checker) stdArgCountHint(call *ast.CallExpr) string {
	fn, _ := c.calleeFuncOrMethod(call)
	if fn == nil || fn.Pkg() == nil || strings.HasPrefix(fn.Pkg().Path(), treePrefix) || fn.Pkg() == c.pkg {
		return ""
	}
	sig := fn.Type().(*types.Signature)
	if sig.Variadic() {
		return ""
	}
	ps := sig.Params()
	args := c.shortArgs(call.Args)
	var out []string
	for i := 0; i < ps.Len(); i++ {
		if i < len(args) {
			out = append(out, args[i])
			continue
		}
		out = append(out, c.placeholder(ps.At(i)))
	}
	what := "fill in the rest"
	if len(args) > ps.Len() {
		what = fmt.Sprintf("it takes %d", ps.Len())
	}
	name := fn.Name()
	if sig.Recv() != nil {
		name = "(" + c.typeString(sig.Recv().Type()) + ") " + name
	} else {
		name = fn.Pkg().Name() + "." + name
	}
	return fmt.Sprintf("func %s%s\n%s: write %s(%s)", name, strings.TrimPrefix(c.sigString(sig), "func"), what, c.text(call.Fun), strings.Join(out, ", "))
}

// filledCall is call written with the arguments it leaves out filled in,
// as stdArgCountHint fills them (strconv.ParseFloat(s, 64)), when it
// calls a standard function with too few; otherwise "".
func (c *checker) filledCall(call *ast.CallExpr) string {
	fn, _ := c.calleeFuncOrMethod(call)
	if fn == nil || fn.Pkg() == nil || strings.HasPrefix(fn.Pkg().Path(), treePrefix) || fn.Pkg() == c.pkg {
		return ""
	}
	sig := fn.Type().(*types.Signature)
	ps := sig.Params()
	if sig.Variadic() || len(call.Args) >= ps.Len() || call.Ellipsis != token.NoPos {
		return ""
	}
	out := c.texts(call.Args)
	for i := len(call.Args); i < ps.Len(); i++ {
		out = append(out, c.placeholder(ps.At(i)))
	}
	return fmt.Sprintf("%s(%s)", c.text(call.Fun), strings.Join(out, ", "))
}

// placeholder is what to write for a missing argument: the parameter's
// name, with a value of its type where the name says little.
func (c *checker) placeholder(p *types.Var) string {
	// A pointer to a package's type that the package has values of
	// (time.UTC for a *time.Location).
	if pt, ok := p.Type().(*types.Pointer); ok {
		if n, ok := types.Unalias(pt.Elem()).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg() != c.pkg {
			scope := n.Obj().Pkg().Scope()
			var vals []string
			for _, name := range scope.Names() {
				if v, ok := scope.Lookup(name).(*types.Var); ok && v.Exported() && types.Identical(v.Type(), p.Type()) {
					vals = append(vals, c.qualifiedName(n.Obj().Pkg(), name))
				}
			}
			if len(vals) > 0 && len(vals) <= 3 {
				return strings.Join(vals, " or ")
			}
		}
	}
	if v, ok := customaryArgs[p.Name()]; ok && isInteger(p.Type()) {
		return v
	}
	if p.Name() != "" && p.Name() != "_" {
		return p.Name()
	}
	return c.zeroValue(p.Type())
}

// customaryArgs are the values the standard library's integer parameters
// of these names take in nearly every call (strconv's bitSize and base,
// time's nsec), written for them when a call leaves them out.
var customaryArgs = map[string]string{"bitSize": "64", "base": "10", "nsec": "0"}

// unknownMethodHint: x.M(...) where x's type (a standard one, or a map)
// has no M: the methods that take the arguments given first, with their
// signatures; an index for Get/Set on a map.
func (c *checker) unknownMethodHint(pos token.Pos, parents map[ast.Node]ast.Node) string {
	sel, ok := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.SelectorExpr); return ok }).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	t := c.info.Types[sel.X].Type
	if t == nil {
		return ""
	}
	call, _ := parents[sel].(*ast.CallExpr)
	if call != nil && call.Fun != sel {
		call = nil
	}
	xs := c.text(sel.X)
	if mt, ok := t.Underlying().(*types.Map); ok && call != nil {
		lower := strings.ToLower(sel.Sel.Name)
		switch {
		case len(call.Args) == 1 && c.argFits(call.Args[0], mt.Key()) && (strings.HasPrefix(lower, "get") || lower == "at" || lower == "lookup" || lower == "load" || lower == "value"):
			return fmt.Sprintf("a map has no methods: index it, %s[%s] (or v, ok := %s[%s] to know whether it is there)", xs, c.text(call.Args[0]), xs, c.text(call.Args[0]))
		case len(call.Args) == 1 && c.argFits(call.Args[0], mt.Key()) && (strings.HasPrefix(lower, "has") || strings.HasPrefix(lower, "contains") || lower == "exists"):
			return fmt.Sprintf("a map has no methods: _, ok := %s[%s] tells whether the key is there", xs, c.text(call.Args[0]))
		case len(call.Args) == 2 && c.argFits(call.Args[0], mt.Key()) && (strings.HasPrefix(lower, "set") || lower == "put" || lower == "store" || lower == "add"):
			return fmt.Sprintf("a map has no methods: assign, %s[%s] = %s", xs, c.text(call.Args[0]), c.text(call.Args[1]))
		case len(call.Args) == 1 && c.argFits(call.Args[0], mt.Key()) && (lower == "add" || lower == "insert" || lower == "put" || lower == "set"):
			v := c.zeroValue(mt.Elem())
			if types.Identical(mt.Elem().Underlying(), types.Typ[types.Bool]) {
				v = "true"
			} else if st, ok := mt.Elem().Underlying().(*types.Struct); ok && st.NumFields() == 0 {
				v = "struct{}{}"
			}
			return fmt.Sprintf("a map has no methods: add the key by assigning, %s[%s] = %s", xs, c.text(call.Args[0]), v)
		case len(call.Args) == 1 && c.argFits(call.Args[0], mt.Key()) && (strings.HasPrefix(lower, "delete") || strings.HasPrefix(lower, "remove")):
			return fmt.Sprintf("a map has no methods: delete(%s, %s)", xs, c.text(call.Args[0]))
		}
		return ""
	}
	named, ok := types.Unalias(deref(t)).(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg() == c.pkg || strings.HasPrefix(named.Obj().Pkg().Path(), treePrefix) || call == nil {
		return ""
	}
	ms := types.NewMethodSet(types.NewPointer(named))
	var fitting []string
	for i := 0; i < ms.Len(); i++ {
		fn, ok := ms.At(i).Obj().(*types.Func)
		if !ok || !fn.Exported() {
			continue
		}
		sig := fn.Type().(*types.Signature)
		if sig.Params().Len() != len(call.Args) && !(sig.Variadic() && len(call.Args) >= sig.Params().Len()-1) {
			continue
		}
		args := make([]string, len(call.Args))
		for i, a := range call.Args {
			args[i] = c.text(a)
		}
		if c.checkCall(xs+"."+fn.Name()+"("+strings.Join(args, ", ")+")", call.Pos()) != nil {
			fitting = append(fitting, fn.Name()+strings.TrimPrefix(c.sigString(sig), "func"))
		}
	}
	if len(fitting) == 0 || len(fitting) > 8 {
		return ""
	}
	nm := c.typeString(named)
	if len(call.Args) == 0 && nm == "time.Duration" {
		switch strings.ToLower(strings.TrimSuffix(sel.Sel.Name, "s")) {
		case "day":
			return fmt.Sprintf("time.Duration counts up to hours: days are %s.Hours() / 24", xs)
		case "week":
			return fmt.Sprintf("time.Duration counts up to hours: weeks are %s.Hours() / (24 * 7)", xs)
		}
	}
	// Those named like the one called first.
	fitting = closest(sel.Sel.Name, fitting)
	first := strings.SplitN(fitting[0], "(", 2)[0]
	h := fmt.Sprintf("%s has no %s; the methods of %s that take these arguments: %s\nwrite %s.%s(%s)", nm, sel.Sel.Name, nm, strings.Join(fitting, ", "), xs, first, strings.Join(c.shortArgs(call.Args), ", "))
	if f := fieldsHint(t, c.qualifier, sel.Sel.Name); f != "" {
		h += "\n" + f
	}
	return h
}

// argFits reports whether the argument x can be passed as a t.
func (c *checker) argFits(x ast.Expr, t types.Type) bool {
	tv, ok := c.info.Types[x]
	if !ok || tv.Type == nil {
		return false
	}
	return fits(tv.Type, t) || types.AssignableTo(types.Default(tv.Type), t)
}

// ptrMethodHint: a pointer method called on a value that has no address
// (a map element, a call's result).
func (c *checker) ptrMethodHint(pos token.Pos, m []string) string {
	sel, ok := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.SelectorExpr); return ok }).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	x := ast.Unparen(sel.X)
	xs, t := c.text(x), c.typeString(c.info.Types[x].Type)
	switch x := x.(type) {
	case *ast.IndexExpr:
		if mt, ok := c.info.Types[x.X].Type.Underlying().(*types.Map); ok {
			return fmt.Sprintf("%s is a map element, which has no address, and %s has a pointer receiver: make the map hold pointers, map[%s]*%s, or copy it out and back: v := %s; v.%s(...); %s = v",
				xs, m[1], c.typeString(mt.Key()), t, xs, m[1], xs)
		}
	case *ast.CallExpr:
		return fmt.Sprintf("%s returns a %s value, which has no address, and %s has a pointer receiver: assign it first, v := %s; v.%s(...), or make %s return a *%s",
			xs, t, m[1], xs, m[1], c.text(x.Fun), t)
	case *ast.CompositeLit:
		return fmt.Sprintf("%s has a pointer receiver: take the literal's address, (&%s).%s(...), or assign it to a variable first", m[1], xs, m[1])
	}
	return fmt.Sprintf("%s has a pointer receiver: call it on a variable or a pointer (v := %s; v.%s(...))", m[1], xs, m[1])
}

// oneRangeVarHint: two variables ranging over a channel or an iterator
// of one value.
func (c *checker) oneRangeVarHint(pos token.Pos) string {
	rs, ok := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.RangeStmt); return ok }).(*ast.RangeStmt)
	if !ok || rs.Value == nil {
		return ""
	}
	v, xs := c.text(rs.Value), c.text(rs.X)
	t := c.info.Types[rs.X].Type
	if t == nil {
		return ""
	}
	switch t.Underlying().(type) {
	case *types.Chan:
		return fmt.Sprintf("a channel gives one value per receive, with no index: write for %s := range %s (count in a variable of your own if you need one)", v, xs)
	case *types.Signature:
		h := fmt.Sprintf("%s yields one value at a time: write for %s := range %s", xs, v, xs)
		if call, ok := rs.X.(*ast.CallExpr); ok && len(call.Args) == 1 {
			if at := c.info.Types[call.Args[0]].Type; at != nil {
				switch at.Underlying().(type) {
				case *types.Map:
					h += fmt.Sprintf("; for keys and values together range over the map itself, for k, v := range %s", c.text(call.Args[0]))
				case *types.Slice:
					h += fmt.Sprintf("; for index and value range over the slice itself, for i, v := range %s", c.text(call.Args[0]))
				}
			}
		}
		return h + "; for a slice of them, slices.Collect(" + xs + ") (import \"slices\")"
	}
	return ""
}

// rangePointerHint: range over a pointer to a slice or map.
func (c *checker) rangePointerHint(x ast.Expr) string {
	t := c.info.Types[x].Type
	if t == nil {
		return ""
	}
	p, ok := t.Underlying().(*types.Pointer)
	if !ok {
		return ""
	}
	switch p.Elem().Underlying().(type) {
	case *types.Slice, *types.Map, *types.Basic:
		return fmt.Sprintf("%s is a pointer (%s): range over what it points to, range *%s", c.text(x), c.typeString(t), c.text(x))
	}
	return ""
}

// floatConvertHint: a fraction converted to an integer type; to a
// Duration, the same time in a smaller unit.
func (c *checker) floatConvertHint(pos token.Pos, m []string) string {
	units := []string{"Nanosecond", "Microsecond", "Millisecond", "Second", "Minute", "Hour"}
	factor := []float64{1, 1000, 1000, 1000, 60, 60}
	if m[2] == "time.Duration" {
		if b, ok := c.enclosing(pos, func(n ast.Node) bool { b, ok := n.(*ast.BinaryExpr); return ok && b.Op == token.MUL }).(*ast.BinaryExpr); ok {
			for _, side := range []ast.Expr{b.X, b.Y} {
				sel, ok := side.(*ast.SelectorExpr)
				if !ok {
					continue
				}
				for i, u := range units {
					if sel.Sel.Name == u && i > 0 {
						if v, err := parseFloatConst(m[1]); err == nil {
							smaller := v * factor[i]
							return fmt.Sprintf("a Duration is a whole number of nanoseconds: write the same time in a smaller unit, %s * time.%s, or convert after multiplying, time.Duration(%s * float64(time.%s))",
								trimFloat(smaller), units[i-1], m[1], u)
						}
					}
				}
			}
		}
		return fmt.Sprintf("a Duration is a whole number of nanoseconds: write time.Duration(%s * float64(time.Second)), or the time in a smaller unit (time.Millisecond)", m[1])
	}
	return fmt.Sprintf("%s is not a whole number: write a whole one, or round a variable, %s(math.Round(x))", m[1], m[2])
}

func parseFloatConst(s string) (float64, error) {
	v := constant.MakeFromLiteral(s, token.FLOAT, 0)
	if v.Kind() == constant.Unknown {
		return 0, fmt.Errorf("not a literal")
	}
	f, _ := constant.Float64Val(v)
	return f, nil
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.6f", f), "0"), ".")
}

// selectCaseHint: a select case without <-.
func (c *checker) selectCaseHint(pos token.Pos) string {
	cc, ok := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.CommClause); return ok }).(*ast.CommClause)
	if !ok || cc.Comm == nil {
		return "a select case receives (case v := <-ch:) or sends (case ch <- v:)"
	}
	if es, ok := cc.Comm.(*ast.ExprStmt); ok {
		if t := c.info.Types[es.X].Type; t != nil {
			if _, isChan := t.Underlying().(*types.Chan); isChan {
				return fmt.Sprintf("a select case receives with <-: write case <-%s:", c.text(es.X))
			}
		}
		return fmt.Sprintf("a select case receives with <-: write case <-%s:", c.text(es.X))
	}
	if a, ok := cc.Comm.(*ast.AssignStmt); ok && len(a.Rhs) == 1 {
		var lhs []string
		for _, l := range a.Lhs {
			lhs = append(lhs, c.text(l))
		}
		return fmt.Sprintf("a select case receives with <-: write case %s %s <-%s:", strings.Join(lhs, ", "), a.Tok, c.text(a.Rhs[0]))
	}
	return "a select case receives (case v := <-ch:) or sends (case ch <- v:)"
}

// missingReturnHint: a function with results that can reach its end.
func (c *checker) missingReturnHint(pos token.Pos) string {
	sig := c.enclosingSignature(pos - 1)
	if sig == nil || sig.Results().Len() == 0 {
		return ""
	}
	var zeros []string
	for i := 0; i < sig.Results().Len(); i++ {
		zeros = append(zeros, c.zeroValue(sig.Results().At(i).Type()))
	}
	ret := "return " + strings.Join(zeros, ", ")
	h := fmt.Sprintf("the function can reach its end without returning: end it with a return, %s", ret)
	fd := c.enclosing(pos-1, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return true
		}
		return false
	})
	var body *ast.BlockStmt
	switch f := fd.(type) {
	case *ast.FuncDecl:
		body = f.Body
	case *ast.FuncLit:
		body = f.Body
	}
	if body != nil && len(body.List) > 0 {
		switch s := body.List[len(body.List)-1].(type) {
		case *ast.SwitchStmt, *ast.TypeSwitchStmt:
			h += " (a switch without a default: case can match nothing; or add a default: case that returns)"
		case *ast.IfStmt:
			if s.Else == nil {
				h += " (an if without else can be skipped)"
			}
		case *ast.ForStmt:
			h += " (the loop can end)"
		}
	}
	return h
}

// stdArgHint: an argument of the wrong type to a standard function, where
// the usual fix is not a conversion.
func (c *checker) stdArgHint(x ast.Expr, parents map[ast.Node]ast.Node) string {
	from := c.info.Types[x].Type
	to := c.targetType(x, parents)
	if from == nil || to == nil {
		return ""
	}
	xs := c.text(x)
	call, _ := parents[x].(*ast.CallExpr)
	if h := c.pointerArgHint(x, from, to, parents); h != "" {
		return h
	}
	// A string constant where a named integer type with constants is
	// wanted: the constant of that name (time.March for "March").
	if tv := c.info.Types[x]; tv.Value != nil && tv.Value.Kind() == constant.String {
		if named, ok := types.Unalias(to).(*types.Named); ok && isInteger(named) && named.Obj().Pkg() != nil {
			sv := constant.StringVal(tv.Value)
			if isDuration(named) {
				if d, err := time.ParseDuration(sv); err == nil {
					return fmt.Sprintf("a time.Duration is a number of nanoseconds, not a string: write %s (or parse a string variable, d, err := time.ParseDuration(s))", durationExpr(d))
				}
			}
			if consts := c.constsOfType(named); len(consts) > 0 {
				near := closest(sv, consts)
				if alike(sv, near[0]) || strings.Contains(strings.ToLower(near[0]), strings.ToLower(sv)) {
					return fmt.Sprintf("a %s is a number with named constants: write %s, not a string", c.typeString(named), c.qualifiedName(named.Obj().Pkg(), near[0]))
				}
			}
		}
	}
	// A slice of another element type spread into ...any.
	if call != nil && call.Ellipsis.IsValid() && len(call.Args) > 0 && call.Args[len(call.Args)-1] == x {
		if fs, ok := from.Underlying().(*types.Slice); ok {
			elem := to
			if ts, ok := to.Underlying().(*types.Slice); ok {
				elem = ts.Elem()
			}
			if isEmptyInterface(elem) && !isEmptyInterface(fs.Elem()) {
				return fmt.Sprintf("...any takes a []any, and a %s is not one: copy it, vals := make([]any, len(%s)); for i, v := range %s { vals[i] = v }; then %s(..., vals...); or pass the elements, %s[0], %s[1]", c.typeString(from), xs, xs, c.text(call.Fun), xs, xs)
			}
		}
	}
	// A slice for a variadic parameter of its element type.
	if call != nil && len(call.Args) > 0 && call.Args[len(call.Args)-1] == x && !call.Ellipsis.IsValid() {
		if sig, ok := c.info.Types[call.Fun].Type.(*types.Signature); ok && sig.Variadic() && len(call.Args) == sig.Params().Len() {
			if sl, ok := from.Underlying().(*types.Slice); ok && types.AssignableTo(sl.Elem(), to) {
				return fmt.Sprintf("%s takes its %ss one by one: spread the slice, %s(%s...)", c.text(call.Fun), c.typeString(to), c.text(call.Fun), strings.Join(c.shortArgs(call.Args), ", "))
			}
		}
	}
	// A number constant for a bool.
	if tv := c.info.Types[x]; tv.Value != nil && tv.Value.Kind() == constant.Int && isBool(to) {
		v := "true"
		if constant.Sign(tv.Value) == 0 {
			v = "false"
		}
		return fmt.Sprintf("a bool is true or false, not a number: write %s", v)
	}
	// A value whose method gives what is wanted (sb.String()).
	if h := c.convertMethodHint(x, from, to); h != "" {
		return h
	}
	// Several strings given to a strings predicate that takes one.
	if sl, ok := from.Underlying().(*types.Slice); ok && isString(sl.Elem()) && isString(to) && call != nil && len(call.Args) == 2 && call.Args[1] == x {
		if fn := c.calleeFunc(call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "strings" {
			sig := fn.Type().(*types.Signature)
			if sig.Results().Len() == 1 && isBool(sig.Results().At(0).Type()) && len(call.Args) == 2 {
				inner := fn.Name()
				if inner == "ContainsAny" {
					inner = "Contains"
				}
				args := c.shortArgs(call.Args)
				for i, a := range call.Args {
					if a == x {
						args[i] = "w"
					}
				}
				return fmt.Sprintf("%s tests one string; to test each of several, slices.ContainsFunc(%s, func(w string) bool { return strings.%s(%s) })%s", c.text(call.Fun), xs, inner, strings.Join(args, ", "), c.importNote("slices"))
			}
		}
	}
	// A one-character string where a rune or byte is wanted.
	if tv := c.info.Types[x]; tv.Value != nil && tv.Value.Kind() == constant.String {
		if b, ok := types.Unalias(to).(*types.Basic); ok && (b.Kind() == types.Int32 || b.Kind() == types.Uint8) {
			if sv := constant.StringVal(tv.Value); utf8.RuneCountInString(sv) == 1 {
				return fmt.Sprintf("it wants a %s, one character: write it in single quotes, %s", b.Name(), strconv.QuoteRune([]rune(sv)[0]))
			}
		}
	}
	// A bool expression where a func returning bool is wanted: wrap it.
	if ft, ok := to.Underlying().(*types.Signature); ok && ft.Results().Len() == 1 && types.Identical(ft.Results().At(0).Type().Underlying(), types.Typ[types.Bool]) && isBool(from) {
		var params []string
		undef := c.undefinedIn(x)
		for i := 0; i < ft.Params().Len(); i++ {
			name := ft.Params().At(i).Name()
			if i < len(undef) {
				name = undef[i]
			} else if name == "" || name == "_" {
				name = string(rune('i' + i))
			}
			params = append(params, name+" "+c.typeString(ft.Params().At(i).Type()))
		}
		return fmt.Sprintf("it wants a function, which it calls for each value: write func(%s) bool { return %s }", strings.Join(params, ", "), xs)
	}
	// A string for an int parameter: a number, not a message.
	if tv := c.info.Types[x]; call != nil && tv.Value != nil && tv.Value.Kind() == constant.String && isInteger(to) {
		if fn := c.calleeFunc(call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == treePrefix+"mcp" && fn.Name() == "Exit" {
			return fmt.Sprintf("mcp.Exit takes the exit status, a number: print the message first, fmt.Println(%s), then mcp.Exit(1)", xs)
		}
	}
	if call != nil && isInteger(to) && !isNumeric(from) {
		if fn := c.calleeFunc(call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == treePrefix+"mcp" && fn.Name() == "Exit" {
			return fmt.Sprintf("mcp.Exit takes the exit status, a number: print %s first, fmt.Println(%s), then mcp.Exit(1)", xs, xs)
		}
	}
	// An int constant for an indent string: that many spaces.
	if tv := c.info.Types[x]; call != nil && tv.Value != nil && tv.Value.Kind() == constant.Int && isString(to) {
		if p := c.paramFor(call, x); p != nil && strings.Contains(strings.ToLower(p.Name()), "indent") {
			if n, ok := constant.Int64Val(tv.Value); ok && n > 0 && n <= 16 {
				return fmt.Sprintf("%s is a string, not a width: write %q", p.Name(), strings.Repeat(" ", int(n)))
			}
		}
	}
	// A rune or byte where a string is wanted.
	if b, ok := from.(*types.Basic); ok && isString(to) && c.info.Types[x].Value == nil && (b.Kind() == types.Int32 || b.Kind() == types.Uint8) {
		what := "rune"
		if b.Kind() == types.Uint8 {
			what = "byte"
		}
		// Another function of the package that takes the rune as given
		// (strings.ContainsRune for strings.Contains).
		if call != nil && b.Kind() == types.Int32 {
			if h := c.otherCallHint(call); h != "" {
				return fmt.Sprintf("%s is a rune (one character): %s; or make it a string, string(%s)", xs, h, xs)
			}
		}
		if id, ok := x.(*ast.Ident); ok {
			if rs := c.rangeOfValue(id); rs != nil && isString(c.info.Types[rs.X].Type) {
				rx := c.text(rs.X)
				return fmt.Sprintf("ranging over a string gives its characters (runes), so %s is a rune: for its lines write for _, %s := range strings.Split(%s, \"\\n\"), or for words strings.Fields(%s); for one character, string(%s)", xs, xs, rx, rx, xs)
			}
		}
		return fmt.Sprintf("%s is a %s (one character): string(%s) makes it a string; the value of a digit is int(%s - '0')", xs, what, xs, xs)
	}
	// time.Time (or a pointer to one) where a string is wanted.
	if isTimeTime(deref(from)) && isString(deref(to)) {
		if call != nil && len(call.Args) == 1 && call.Args[0] != x {
			return ""
		}
		if inner, ok := x.(*ast.CallExpr); ok && len(inner.Args) == 1 && isTimeTime(c.info.Types[inner.Args[0]].Type) {
			a := c.text(inner.Args[0])
			return fmt.Sprintf("a time.Time is not a string: format it, %s(%s.Format(time.RFC3339))", c.text(inner.Fun), a)
		}
		return fmt.Sprintf("a time.Time is not a string: format it, %s.Format(time.RFC3339) (or another layout)", xs)
	}
	// A string where a time.Time is wanted: parse it first.
	if isString(from) && isTimeTime(deref(to)) {
		layout, what := `"2006-01-02"`, " (the layout of its text, written as the reference time)"
		if tv := c.info.Types[x]; tv.Value != nil && tv.Value.Kind() == constant.String {
			if l := layoutOf(constant.StringVal(tv.Value)); l != "" {
				layout, what = l, ""
			}
		}
		return fmt.Sprintf("a string is not a time.Time: parse it first, t, err := time.Parse(%s, %s)%s, check err, then pass t", layout, xs, what)
	}
	if h := c.intoNarrowerHint(x, parents); h != "" {
		return h
	}
	if call == nil {
		return ""
	}
	fn := c.calleeFunc(call)
	if fn == nil || fn.Pkg() == nil || strings.HasPrefix(fn.Pkg().Path(), treePrefix) || fn.Pkg() == c.pkg {
		return ""
	}
	sig := fn.Type().(*types.Signature)
	// A number for a duration string.
	if fn.FullName() == "time.ParseDuration" && isNumeric(from) {
		return fmt.Sprintf("a duration string has a unit: \"%ss\", \"%sm\", \"1h30m\"; for a number of seconds, skip the parsing: time.Duration(%s) * time.Second", xs, xs, xs)
	}
	// A slice where an interface is wanted that a named slice type of
	// the package implements (sort.IntSlice for sort.Interface).
	if iface, ok := to.Underlying().(*types.Interface); ok && iface.NumMethods() > 0 {
		if named, ok := types.Unalias(to).(*types.Named); ok && named.Obj().Pkg() != nil {
			scope := named.Obj().Pkg().Scope()
			for _, n := range scope.Names() {
				tn, ok := scope.Lookup(n).(*types.TypeName)
				if !ok || !tn.Exported() || !types.Identical(tn.Type().Underlying(), from.Underlying()) || !types.Implements(tn.Type(), iface) {
					continue
				}
				q := c.qualifier(named.Obj().Pkg()) + "."
				h := fmt.Sprintf("a %s is not a %s; %s%s is, with the same elements: write %s(%s%s(%s))", c.typeString(from), c.typeString(to), q, n, c.text(call.Fun), q, n, xs)
				if named.Obj().Pkg().Path() == "sort" {
					h += "; or, without sort's interfaces, slices.Sort(" + xs + ") and slices.Reverse(" + xs + ") (import \"slices\")"
				}
				return h
			}
		}
	}
	// A float given to a function that formats an int (its first
	// parameter).
	if isNumeric(from) && !isInteger(from) && isInteger(to) && sig.Results().Len() == 1 && isString(sig.Results().At(0).Type()) && len(call.Args) > 0 && call.Args[0] == x {
		return fmt.Sprintf("%s formats an integer; for a %s write strconv.FormatFloat(%s, 'f', -1, 64) or fmt.Sprint(%s)", c.text(call.Fun), c.typeString(from), xs, xs)
	}
	// sort's functions for one element type given a slice of another.
	if fn.Pkg().Path() == "sort" && sig.Recv() == nil && len(call.Args) == 1 {
		if s, ok := from.Underlying().(*types.Slice); ok {
			if b, ok := s.Elem().Underlying().(*types.Basic); ok && b.Info()&types.IsOrdered != 0 {
				return fmt.Sprintf("%s sorts a %s only; slices.Sort(%s) sorts a slice of any ordered type%s", c.text(call.Fun), c.typeString(sig.Params().At(0).Type()), xs, c.importNote("slices"))
			}
		}
	}
	if h := c.otherCallHint(call); h != "" {
		return h
	}
	if h := c.missingArgHint(call, fn); h != "" {
		return h
	}
	if isByteSlice(to) && isString(from) {
		if h := c.argPackageHint(x, from, parents); h != "" {
			return h
		}
		return fmt.Sprintf("%s takes a []byte: convert the string, []byte(%s)", c.text(call.Fun), xs)
	}
	return ""
}

// paramFor is the parameter of call's function that the argument x is
// passed to.
func (c *checker) paramFor(call *ast.CallExpr, x ast.Expr) *types.Var {
	sig, ok := c.info.Types[call.Fun].Type.(*types.Signature)
	if !ok {
		return nil
	}
	for i, a := range call.Args {
		if a == x {
			if i >= sig.Params().Len() {
				if sig.Variadic() {
					return sig.Params().At(sig.Params().Len() - 1)
				}
				return nil
			}
			return sig.Params().At(i)
		}
	}
	return nil
}

// constsOfType lists the exported constants of a named type's package
// that have that type.
func (c *checker) constsOfType(named *types.Named) []string {
	scope := named.Obj().Pkg().Scope()
	var consts []string
	for _, n := range scope.Names() {
		if k, ok := scope.Lookup(n).(*types.Const); ok && k.Exported() && types.Identical(k.Type(), named) {
			consts = append(consts, n)
		}
	}
	return consts
}

// qualifiedName is pkg.name as the snippet writes it.
func (c *checker) qualifiedName(pkg *types.Package, name string) string {
	if q := c.qualifier(pkg); q != "" {
		return q + "." + name
	}
	return name
}

// pointerArgHint: a value where a pointer is wanted, or a pointer to
// another type, outside the generated API's structs (where an optional
// field wants mcp.Ptr).
func (c *checker) pointerArgHint(x ast.Expr, from, to types.Type, parents map[ast.Node]ast.Node) string {
	pt, ok := to.Underlying().(*types.Pointer)
	if !ok {
		return ""
	}
	if kv, ok := parents[x].(*ast.KeyValueExpr); ok {
		if lit, ok := parents[kv].(*ast.CompositeLit); ok {
			if n, ok := types.Unalias(deref(c.info.Types[lit].Type)).(*types.Named); ok && n.Obj().Pkg() != nil && strings.HasPrefix(n.Obj().Pkg().Path(), treePrefix) {
				return ""
			}
		}
	}
	if lit, ok := parents[x].(*ast.CompositeLit); ok {
		if n, ok := types.Unalias(deref(c.info.Types[lit].Type)).(*types.Named); ok && n.Obj().Pkg() != nil && strings.HasPrefix(n.Obj().Pkg().Path(), treePrefix) {
			return ""
		}
	}
	xs := c.text(x)
	// &v of another number type: declare v of the wanted one.
	if u, ok := ast.Unparen(x).(*ast.UnaryExpr); ok && u.Op == token.AND {
		if fp, ok := from.Underlying().(*types.Pointer); ok && isNumeric(fp.Elem()) && isNumeric(pt.Elem()) {
			v := c.text(u.X)
			h := fmt.Sprintf("it wants a *%s: declare %s as one, var %s %s", c.typeString(pt.Elem()), v, v, c.typeString(pt.Elem()))
			if p := pt.Elem(); p != nil {
				if b, ok := p.Underlying().(*types.Basic); ok && (b.Kind() == types.Int64 || b.Kind() == types.Int32 || b.Kind() == types.Uint64 || b.Kind() == types.Uint32) {
					if call, ok := parents[x].(*ast.CallExpr); ok {
						if fn := c.calleeFunc(call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "sync/atomic" {
							h += fmt.Sprintf(", or use the type atomic.%s (var %s atomic.%s; %s.Add(1))", strings.ToUpper(b.Name()[:1])+b.Name()[1:], v, strings.ToUpper(b.Name()[:1])+b.Name()[1:], v)
						}
					}
				}
			}
			return h
		}
	}
	if !types.Identical(from, pt.Elem()) {
		return ""
	}
	if a, ok := parents[x].(*ast.AssignStmt); ok && len(a.Lhs) == 1 && a.Tok == token.ASSIGN {
		l := c.text(a.Lhs[0])
		return fmt.Sprintf("%s is a %s: to change what it points to write *%s = %s; to point it at a new value, %s = &%s", l, c.typeString(to), l, xs, l, xs)
	}
	if _, ok := ast.Unparen(x).(*ast.CompositeLit); ok {
		return fmt.Sprintf("it wants a %s: take the literal's address, &%s", c.typeString(to), xs)
	}
	switch ast.Unparen(x).(type) {
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr:
		return fmt.Sprintf("it wants a %s: pass the address, &%s", c.typeString(to), xs)
	}
	return ""
}

// uncomparableHint: == on structs with a slice or map field: compare
// the fields, the slices with slices.Equal.
func (c *checker) uncomparableHint(pos token.Pos) string {
	b, ok := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.BinaryExpr); return ok }).(*ast.BinaryExpr)
	if !ok {
		return ""
	}
	st, ok := c.info.Types[b.X].Type.Underlying().(*types.Struct)
	if !ok {
		return ""
	}
	x, y := c.text(b.X), c.text(b.Y)
	var parts []string
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		switch f.Type().Underlying().(type) {
		case *types.Slice:
			parts = append(parts, fmt.Sprintf("slices.Equal(%s.%s, %s.%s)", x, f.Name(), y, f.Name()))
		case *types.Map:
			parts = append(parts, fmt.Sprintf("maps.Equal(%s.%s, %s.%s)", x, f.Name(), y, f.Name()))
		default:
			if types.Comparable(f.Type()) {
				parts = append(parts, fmt.Sprintf("%s.%s == %s.%s", x, f.Name(), y, f.Name()))
			}
		}
	}
	return "structs with slices or maps cannot be compared with ==: compare the fields, " + strings.Join(parts, " && ") + c.importNote("slices")
}

// missingMethodHint: a type that lacks a method of an interface: the
// method to declare, with the interface's signature.
func (c *checker) missingMethodHint(pos token.Pos, m []string) string {
	var iface *types.Interface
	var typ types.Type
	ast.Inspect(c.file, func(n ast.Node) bool {
		x, ok := n.(ast.Expr)
		if !ok || typ != nil || x.Pos() > pos || x.End() < pos {
			return typ == nil
		}
		if tv, ok := c.info.Types[x]; ok && tv.Type != nil && !tv.IsType() && strings.TrimPrefix(c.typeString(deref(tv.Type)), "*") == strings.TrimPrefix(m[1], "*") {
			typ = tv.Type
		}
		return true
	})
	for _, obj := range []types.Object{c.pkg.Scope().Lookup(m[2])} {
		if tn, ok := obj.(*types.TypeName); ok {
			iface, _ = tn.Type().Underlying().(*types.Interface)
		}
	}
	if iface == nil {
		if pkg, name, ok := strings.Cut(m[2], "."); ok {
			for _, im := range c.pkg.Imports() {
				if im.Name() == pkg {
					if tn, ok := im.Scope().Lookup(name).(*types.TypeName); ok {
						iface, _ = tn.Type().Underlying().(*types.Interface)
					}
				}
			}
		}
	}
	if iface == nil {
		return ""
	}
	for i := 0; i < iface.NumMethods(); i++ {
		if fn := iface.Method(i); fn.Name() == m[3] {
			recv := strings.ToLower(m[1][:1])
			tn := strings.TrimPrefix(m[1], "*")
			return fmt.Sprintf("%s lacks %s: declare it, func (%s %s) %s%s { ... }", tn, m[3], recv, m[1], m[3], strings.TrimPrefix(c.sigString(fn.Type().(*types.Signature)), "func"))
		}
	}
	return ""
}

// missingArgHint: an argument of the wrong type where the call checks
// with one more argument put before it (slices.Insert without the
// index): the call with that parameter named.
func (c *checker) missingArgHint(call *ast.CallExpr, fn *types.Func) string {
	sig := fn.Type().(*types.Signature)
	if call.Ellipsis.IsValid() {
		return ""
	}
	args := make([]string, len(call.Args))
	for i, a := range call.Args {
		args[i] = c.text(a)
	}
	short := c.shortArgs(call.Args)
	for i := 0; i <= len(args) && i < sig.Params().Len(); i++ {
		p := sig.Params().At(i)
		if sig.Variadic() && i == sig.Params().Len()-1 {
			break
		}
		try := append(append(append([]string(nil), args[:i]...), c.zeroValue(p.Type())), args[i:]...)
		if c.checkCall(c.text(call.Fun)+"("+strings.Join(try, ", ")+")", call.Pos()) != nil {
			named := append(append(append([]string(nil), short[:i]...), c.placeholder(p)), short[i:]...)
			return fmt.Sprintf("the argument %s is missing: write %s(%s)\nfunc %s.%s%s", p.Name(), c.text(call.Fun), strings.Join(named, ", "), fn.Pkg().Name(), fn.Name(), strings.TrimPrefix(c.sigString(sig), "func"))
		}
	}
	return ""
}

// rangeOfValue is the range statement that declares id as its value.
func (c *checker) rangeOfValue(id *ast.Ident) *ast.RangeStmt {
	obj := c.info.Uses[id]
	if obj == nil {
		return nil
	}
	var found *ast.RangeStmt
	ast.Inspect(c.file, func(n ast.Node) bool {
		rs, ok := n.(*ast.RangeStmt)
		if !ok || found != nil {
			return found == nil
		}
		if v, ok := rs.Value.(*ast.Ident); ok && c.info.Defs[v] == obj {
			found = rs
		}
		return found == nil
	})
	return found
}

// opMethodHint: an operator on a struct type that has a method for it
// (end.Sub(start) for end - start on time.Time).
func (c *checker) opMethodHint(pos token.Pos, m []string) string {
	b, ok := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.BinaryExpr); return ok }).(*ast.BinaryExpr)
	if !ok {
		return ""
	}
	t := c.info.Types[b.X].Type
	if t == nil {
		return ""
	}
	byOp := map[string][]string{
		"-": {"Sub", "Minus"}, "+": {"Add", "Plus"}, "*": {"Mul"}, "/": {"Div", "Quo"},
		"<": {"Before", "Less", "Compare"}, ">": {"After", "Compare"}, "<=": {"Compare"}, ">=": {"Compare"},
	}
	ms := types.NewMethodSet(types.NewPointer(t))
	for _, name := range byOp[m[1]] {
		sel := ms.Lookup(nil, name)
		if sel == nil {
			continue
		}
		fn := sel.Obj().(*types.Func)
		sig := fn.Type().(*types.Signature)
		if sig.Params().Len() != 1 || !c.argFits(b.Y, sig.Params().At(0).Type()) {
			continue
		}
		call := fmt.Sprintf("%s.%s(%s)", c.text(b.X), name, c.text(b.Y))
		if name == "Compare" {
			call = fmt.Sprintf("%s.Compare(%s) %s 0", c.text(b.X), c.text(b.Y), m[1])
		}
		return fmt.Sprintf("%s has no operator %s; its method does it: write %s (%s%s)", c.typeString(t), m[1], call, name, strings.TrimPrefix(c.sigString(sig), "func"))
	}
	return ""
}

// layoutOf names the time layout that parses s when s has the shape of a
// common one (a date, a date and time, RFC 3339), or "".
func layoutOf(s string) string {
	shape := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '9'
		}
		return r
	}, s)
	switch {
	case shape == "9999-99-99":
		return "time.DateOnly"
	case shape == "9999-99-99 99:99:99":
		return "time.DateTime"
	case strings.HasPrefix(shape, "9999-99-99T99:99:99") &&
		(strings.HasSuffix(shape, "Z") || strings.HasSuffix(shape, "+99:99") || strings.HasSuffix(shape, "-99:99")):
		return "time.RFC3339"
	}
	return ""
}

func isTimeTime(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Time"
}

// stdMismatchHint: the two sides of an operation of types that do not
// mix, where the fix is not a conversion: a named number type compared
// with the name of one of its constants, a field compared with the whole
// struct, a value added to a slice with +=.
func (c *checker) stdMismatchHint(pos token.Pos) string {
	if a, ok := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.AssignStmt); return ok }).(*ast.AssignStmt); ok && a.Tok == token.ADD_ASSIGN && len(a.Lhs) == 1 && len(a.Rhs) == 1 {
		if lt, rt := c.info.Types[a.Lhs[0]].Type, c.info.Types[a.Rhs[0]].Type; lt != nil && rt != nil && isNumeric(lt) {
			switch rt.Underlying().(type) {
			case *types.Slice, *types.Map:
				return fmt.Sprintf("%s is a collection, not a number: to count its elements add len(%s)", c.text(a.Rhs[0]), c.text(a.Rhs[0]))
			}
		}
		if lt := c.info.Types[a.Lhs[0]].Type; lt != nil {
			if s, ok := lt.Underlying().(*types.Slice); ok && c.argFits(a.Rhs[0], s.Elem()) {
				l := c.text(a.Lhs[0])
				return fmt.Sprintf("+= does not add to a slice: append, %s = append(%s, %s)", l, l, c.text(a.Rhs[0]))
			}
		}
	}
	b, ok := c.enclosing(pos, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok {
			return false
		}
		xt, yt := c.info.Types[b.X].Type, c.info.Types[b.Y].Type
		return xt != nil && yt != nil && !types.Identical(xt, yt) && !fits(xt, yt) && !fits(yt, xt)
	}).(*ast.BinaryExpr)
	if !ok {
		b, ok = c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.BinaryExpr); return ok }).(*ast.BinaryExpr)
	}
	if !ok {
		return ""
	}
	// A loop's counter against a bound of another number type: convert
	// the bound.
	if fs, ok := c.enclosing(pos, func(n ast.Node) bool { f, ok := n.(*ast.ForStmt); return ok && f.Cond == b }).(*ast.ForStmt); ok {
		if init, ok := fs.Init.(*ast.AssignStmt); ok && init.Tok == token.DEFINE {
			for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
				id, ok := p[0].(*ast.Ident)
				if !ok {
					continue
				}
				for _, l := range init.Lhs {
					if lid, ok := l.(*ast.Ident); ok && c.info.Defs[lid] != nil && c.info.Defs[lid] == c.info.Uses[id] {
						lt, bt := c.info.Types[p[0]].Type, c.info.Types[p[1]].Type
						if lt != nil && bt != nil && isNumeric(lt) && isNumeric(bt) {
							return fmt.Sprintf("the counter %s is %s %s: convert the bound, %s %s %s(%s)", id.Name, article(c.typeString(lt)), c.typeString(lt), id.Name, b.Op, c.typeString(lt), c.text(p[1]))
						}
					}
				}
			}
		}
	}
	for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		tv, ov := c.info.Types[p[0]], c.info.Types[p[1]]
		if tv.Type == nil || ov.Type == nil {
			continue
		}
		// A number ordered against a string: their lengths.
		if isInteger(tv.Type) && isString(ov.Type) && ov.Value == nil && (b.Op == token.LSS || b.Op == token.GTR || b.Op == token.LEQ || b.Op == token.GEQ) {
			return fmt.Sprintf("%s is a string: to compare lengths write len(%s)", c.text(p[1]), c.text(p[1]))
		}
		// A slice added to a string: its length, or its strings joined.
		if _, ok := tv.Type.Underlying().(*types.Slice); ok && isString(ov.Type) && b.Op == token.ADD && !isByteSlice(tv.Type) {
			xs := c.text(p[0])
			h := fmt.Sprintf("a slice is not text: for its length write strconv.Itoa(len(%s)), for its elements fmt.Sprint(%s)", xs, xs)
			if sl := tv.Type.Underlying().(*types.Slice); isString(sl.Elem()) {
				h += fmt.Sprintf(" or strings.Join(%s, \", \")", xs)
			}
			return h
		}
		// A bool compared with 1 or 0.
		if isBool(tv.Type) && ov.Value != nil && ov.Value.Kind() == constant.Int && (b.Op == token.EQL || b.Op == token.NEQ) {
			x := c.text(p[0])
			truth := constant.Sign(ov.Value) != 0
			if b.Op == token.NEQ {
				truth = !truth
			}
			if truth {
				return fmt.Sprintf("a bool is not a number: use it as the condition, if %s { (or %s == true)", x, x)
			}
			return fmt.Sprintf("a bool is not a number: negate it, if !%s { (or %s == false)", x, x)
		}
		// A byte or rune compared with a string of one character.
		if bt, ok := types.Unalias(tv.Type).(*types.Basic); ok && tv.Value == nil && (bt.Kind() == types.Uint8 || bt.Kind() == types.Int32) && ov.Value != nil && ov.Value.Kind() == constant.String {
			sv := constant.StringVal(ov.Value)
			if utf8.RuneCountInString(sv) == 1 {
				return fmt.Sprintf("%s is a %s (one character): compare it with a character in single quotes, %s %s %s", c.text(p[0]), bt.Name(), c.text(p[0]), b.Op, strconv.QuoteRune([]rune(sv)[0]))
			}
			return fmt.Sprintf("%s is one character: compare the string itself, or a part of it, strings.HasPrefix(s[i:], %s)", c.text(p[0]), c.text(p[1]))
		}
		// A named integer type (time.Duration) with a float variable.
		if named, ok := types.Unalias(tv.Type).(*types.Named); ok && isInteger(named) && ov.Value == nil && isNumeric(ov.Type) && !isInteger(ov.Type) && (b.Op == token.MUL || b.Op == token.QUO) {
			nt := c.typeString(named)
			return fmt.Sprintf("%s is an integer type: do the arithmetic in float64 and convert the result, %s(%s %s float64(%s))", nt, nt, c.text(p[1]), b.Op, c.text(p[0]))
		}
		// A named integer type compared with a string: its constants.
		if named, ok := types.Unalias(tv.Type).(*types.Named); ok && isInteger(named) && ov.Value != nil && ov.Value.Kind() == constant.String && named.Obj().Pkg() != nil {
			want := constant.StringVal(ov.Value)
			scope := named.Obj().Pkg().Scope()
			var consts []string
			for _, n := range scope.Names() {
				if k, ok := scope.Lookup(n).(*types.Const); ok && k.Exported() && types.Identical(k.Type(), named) {
					consts = append(consts, n)
				}
			}
			if len(consts) > 0 {
				near := closest(want, consts)
				q := c.qualifier(named.Obj().Pkg())
				if q != "" {
					q += "."
				}
				if len(near) > 3 {
					near = near[:3]
				}
				for i := range near {
					near[i] = q + near[i]
				}
				return fmt.Sprintf("%s is a %s, a number with named constants: compare with the constant, %s %s %s (its constants: %s, ...), or with its String(), %s.String() %s %s",
					c.text(p[0]), c.typeString(named), c.text(p[0]), b.Op, near[0], strings.Join(near, ", "), c.text(p[0]), b.Op, c.text(p[1]))
			}
		}
		// A struct compared with (or added to) a value of one of its
		// fields' types: that field, the one named like the other side
		// first.
		if st, ok := deref(ov.Type).Underlying().(*types.Struct); ok {
			want := ""
			if sel, ok := p[0].(*ast.SelectorExpr); ok {
				want = sel.Sel.Name
			}
			var match []string
			for i := 0; i < st.NumFields(); i++ {
				f := st.Field(i)
				if types.Identical(f.Type(), types.Default(tv.Type)) && (f.Exported() || f.Pkg() == c.pkg) {
					if f.Name() == want {
						match = append([]string{f.Name()}, match...)
					} else {
						match = append(match, f.Name())
					}
				}
			}
			if len(match) > 0 {
				o := c.text(p[1])
				return fmt.Sprintf("%s is a whole %s: use its field, %s.%s", o, c.typeString(ov.Type), o, match[0])
			}
		}
	}
	return ""
}

// moreResultsHint: more variables than a function returns, where a
// function of the same package takes the same arguments and returns as
// many (strings.Cut for strings.Split into two variables).
func (c *checker) moreResultsHint(pos token.Pos, m []string) string {
	a, ok := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.AssignStmt); return ok }).(*ast.AssignStmt)
	if !ok || len(a.Rhs) != 1 {
		return ""
	}
	call, ok := a.Rhs[0].(*ast.CallExpr)
	if !ok {
		return ""
	}
	fn := c.calleeFunc(call)
	if fn == nil || fn.Pkg() == nil || strings.HasPrefix(fn.Pkg().Path(), treePrefix) || fn.Pkg() == c.pkg || len(a.Lhs) < 2 {
		return ""
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if x, ok := sel.X.(*ast.Ident); !ok {
		return ""
	} else if _, ok := c.info.Uses[x].(*types.PkgName); !ok {
		return ""
	}
	args := make([]string, len(call.Args))
	for i, x := range call.Args {
		args[i] = c.text(x)
	}
	var best *types.Func
	scope := fn.Pkg().Scope()
	for _, n := range scope.Names() {
		other, ok := scope.Lookup(n).(*types.Func)
		if !ok || !other.Exported() || other == fn {
			continue
		}
		sig := other.Type().(*types.Signature)
		if sig.Results().Len() < len(a.Lhs) || sig.Results().Len() > len(a.Lhs)+1 {
			continue
		}
		if c.checkCall(c.text(sel.X)+"."+n+"("+strings.Join(args, ", ")+")", call.Pos()) == nil {
			continue
		}
		if best == nil || distance(strings.ToLower(fn.Name()), strings.ToLower(n)) < distance(strings.ToLower(fn.Name()), strings.ToLower(best.Name())) {
			best = other
		}
	}
	if best == nil {
		return ""
	}
	sig := best.Type().(*types.Signature)
	names := c.resultNames(sig.Results())
	return fmt.Sprintf("%s returns one value; %s.%s takes the same arguments and returns %d: write %s %s %s.%s(%s) (func %s.%s%s)",
		m[2], c.text(sel.X), best.Name(), sig.Results().Len(), strings.Join(names, ", "), a.Tok, c.text(sel.X), best.Name(), strings.Join(args, ", "),
		fn.Pkg().Name(), best.Name(), strings.TrimPrefix(c.sigString(sig), "func"))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// insteadOfMember says what a snippet writes for a member of a package
// it may not import, at the line that uses it.
var insteadOfMember = map[string]string{
	"os.Exit":     "end the snippet with mcp.Exit(code) (import \"mcpfs/mcp\"), which sets mcpfs run's exit status",
	"os.Stdout":   `write to os.Stdout (import "os"): fmt.Fprintln(os.Stdout, ...), json.NewEncoder(os.Stdout); or print with fmt.Println (JSON: b, err := json.Marshal(v), then fmt.Println(string(b)))`,
	"os.Stderr":   `write to os.Stderr (import "os"): fmt.Fprintln(os.Stderr, ...)`,
	"os.Args":     "a snippet has no arguments: write the values in the snippet",
	"log.Fatal":   "print the error with fmt.Println(err), then end with mcp.Exit(1) (import \"mcpfs/mcp\")",
	"log.Fatalf":  "print with fmt.Printf(...), then end with mcp.Exit(1) (import \"mcpfs/mcp\")",
	"log.Fatalln": "print the error with fmt.Println(err), then end with mcp.Exit(1) (import \"mcpfs/mcp\")",
	"log.Println": "print with fmt.Println",
	"log.Printf":  "print with fmt.Printf",
	"log.Print":   "print with fmt.Print",
	"log.Panic":   "print with fmt.Println, then panic(...) or mcp.Exit(1)",
}

// refusedUses reports each use of a refused import's members that a
// snippet has another way to write, at its own line.
func (c *checker) refusedUses(im *ast.ImportSpec, p string) {
	name := path.Base(p)
	if im.Name != nil {
		name = im.Name.Name
	}
	ast.Inspect(c.file, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == name {
			if h, ok := insteadOfMember[p+"."+sel.Sel.Name]; ok {
				c.errorf(sel.Pos(), h, "%s.%s is not available in snippets", name, sel.Sel.Name)
			}
		}
		return true
	})
}

// otherPackageMember: pkg.Name that pkg lacks but another allowed
// package declares (slices.Reverse for strings.Reverse), and the standard
// output a snippet prints to with fmt.
func (c *checker) otherPackageMember(pkg *types.Package, name string) string {
	if name == "Stdout" || name == "Stderr" {
		return insteadOfMember["os."+name]
	}
	// A method of one of the package's variables (base64.StdEncoding's
	// Encode and EncodeToString for base64.Encode).
	var vars, methods []string
	names := pkg.Scope().Names()
	sort.SliceStable(names, func(i, j int) bool { return len(names[i]) < len(names[j]) })
	for _, n := range names {
		v, ok := pkg.Scope().Lookup(n).(*types.Var)
		if !ok || !v.Exported() {
			continue
		}
		ms := types.NewMethodSet(v.Type())
		if _, isPtr := v.Type().(*types.Pointer); !isPtr {
			ms = types.NewMethodSet(types.NewPointer(v.Type()))
		}
		found := false
		for i := 0; i < ms.Len(); i++ {
			m := ms.At(i).Obj()
			if m.Exported() && strings.HasPrefix(m.Name(), name) {
				found = true
				if len(vars) == 0 {
					methods = append(methods, pkg.Name()+"."+n+"."+m.Name()+strings.TrimPrefix(c.sigString(m.Type().(*types.Signature)), "func"))
				}
			}
		}
		if found {
			vars = append(vars, pkg.Name()+"."+n)
		}
	}
	if len(methods) > 0 && len(methods) <= 4 {
		h := fmt.Sprintf("%s has no function %s; %s has the method: %s", pkg.Name(), name, vars[0], strings.Join(methods, ", "))
		if len(vars) > 1 {
			h += " (so do " + strings.Join(vars[1:], ", ") + ")"
		}
		return h
	}
	var in []string
	for _, p := range c.allowed {
		if p == pkg.Path() {
			continue
		}
		other, err := c.cache.Import(p)
		if err != nil {
			continue
		}
		if fn, ok := other.Scope().Lookup(name).(*types.Func); ok && fn.Exported() {
			in = append(in, other.Name()+"."+name+strings.TrimPrefix(c.sigString(fn.Type().(*types.Signature)), "func")+c.importNote(p))
		}
	}
	if len(in) == 0 || len(in) > 3 {
		return ""
	}
	return fmt.Sprintf("%s has no %s; %s", pkg.Name(), name, strings.Join(in, "; "))
}

// memberSig is pkg.name with its signature, for a function.
func (c *checker) memberSig(pkg *types.Package, name string) string {
	s := pkg.Name() + "." + name
	if fn, ok := pkg.Scope().Lookup(name).(*types.Func); ok {
		s += strings.TrimPrefix(c.sigString(fn.Type().(*types.Signature)), "func")
	}
	return s
}

// intoNarrowerHint: a call's result of one numeric type assigned, among
// other results, to a variable of another (ParseInt's int64 to an int):
// the function of the same package that returns the variable's type from
// the first arguments, or the conversion after the call.
func (c *checker) intoNarrowerHint(x ast.Expr, parents map[ast.Node]ast.Node) string {
	a, ok := parents[x].(*ast.AssignStmt)
	if !ok || len(a.Rhs) != 1 || len(a.Lhs) < 2 {
		return ""
	}
	call, ok := x.(*ast.CallExpr)
	if !ok {
		return ""
	}
	fn := c.calleeFunc(call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg() == c.pkg {
		return ""
	}
	tup, _ := c.info.Types[call].Type.(*types.Tuple)
	if tup == nil || tup.Len() != len(a.Lhs) {
		return ""
	}
	from, to := tup.At(0).Type(), c.info.Types[a.Lhs[0]].Type
	if to == nil || !isNumeric(from) || !isNumeric(to) {
		return ""
	}
	lhs := c.text(a.Lhs[0])
	h := fmt.Sprintf("%s returns %s %s: receive it in a variable of that type and convert, v, err := %s, then %s = %s(v)", c.text(call.Fun), article(c.typeString(from)), c.typeString(from), c.text(call), lhs, c.typeString(to))
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
		scope := fn.Pkg().Scope()
		for _, n := range scope.Names() {
			other, ok := scope.Lookup(n).(*types.Func)
			if !ok || other == fn || !other.Exported() {
				continue
			}
			sig := other.Type().(*types.Signature)
			if sig.Results().Len() != tup.Len() || !types.Identical(sig.Results().At(0).Type(), to) || sig.Params().Len() > len(call.Args) || sig.Params().Len() == 0 {
				continue
			}
			args := make([]string, sig.Params().Len())
			for i := range args {
				args[i] = c.text(call.Args[i])
			}
			cand := c.text(sel.X) + "." + n + "(" + strings.Join(args, ", ") + ")"
			if c.checkCall(cand, call.Pos()) != nil {
				return fmt.Sprintf("%s returns %s %s; %s.%s returns %s %s: write %s %s %s\nor convert: v, err := %s, then %s = %s(v)",
					c.text(call.Fun), article(c.typeString(from)), c.typeString(from), c.text(sel.X), n, article(c.typeString(to)), c.typeString(to), strings.Join(c.lhsTexts(a), ", "), a.Tok, cand, c.text(call), lhs, c.typeString(to))
			}
		}
	}
	return h
}

func (c *checker) lhsTexts(a *ast.AssignStmt) []string {
	var out []string
	for _, l := range a.Lhs {
		out = append(out, c.text(l))
	}
	return out
}

// cleanupUnusedHint: an unused variable holding a func() returned with
// something else (context.WithTimeout's cancel): call it when done.
func (c *checker) cleanupUnusedHint(pos token.Pos, name string) string {
	a, ok := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.AssignStmt); return ok }).(*ast.AssignStmt)
	if !ok || len(a.Lhs) < 2 || len(a.Rhs) != 1 {
		return ""
	}
	for _, l := range a.Lhs {
		id, ok := l.(*ast.Ident)
		if !ok || id.Name != name {
			continue
		}
		obj := c.info.Defs[id]
		if obj == nil {
			return ""
		}
		if sig, ok := obj.Type().Underlying().(*types.Signature); ok && sig.Params().Len() == 0 && sig.Results().Len() == 0 {
			return fmt.Sprintf("%s releases what %s holds: call it when done, right after the error check, defer %s()", name, c.text(a.Rhs[0]), name)
		}
	}
	return ""
}

// shadowedHint: a variable declared by := in an inner block, never used,
// while one of the same name is declared outside: the = meant.
func (c *checker) shadowedHint(pos token.Pos, name string) string {
	a, ok := c.enclosing(pos, func(n ast.Node) bool { a, ok := n.(*ast.AssignStmt); return ok && a.Tok == token.DEFINE }).(*ast.AssignStmt)
	if !ok {
		return ""
	}
	var id *ast.Ident
	for _, l := range a.Lhs {
		if i, ok := l.(*ast.Ident); ok && i.Name == name && i.Pos() == pos {
			id = i
		}
	}
	if id == nil {
		return ""
	}
	obj := c.info.Defs[id]
	if obj == nil || obj.Parent() == nil || obj.Parent().Parent() == nil {
		return ""
	}
	_, outer := obj.Parent().Parent().LookupParent(name, id.Pos())
	if outer == nil || outer.Parent() == types.Universe || outer.Pkg() != c.pkg {
		return ""
	}
	if _, ok := outer.(*types.Var); !ok {
		return ""
	}
	var rhs []string
	for _, r := range a.Rhs {
		rhs = append(rhs, c.text(r))
	}
	return fmt.Sprintf("this := declares a new %s inside the block, which hides the %s declared at line %d: to set that one, assign with = instead of :=, %s = %s",
		name, name, c.fset.Position(outer.Pos()).Line, strings.Join(c.lhsTexts(a), ", "), strings.Join(rhs, ", "))
}

var reTopLevelDefine = lazyRE(`^(\w+(?:\s*,\s*\w+)*)\s*:=\s*(.+)$`)

// topLevelDefineHint: x := v outside a function.
func topLevelDefineHint(line string) string {
	m := reTopLevelDefine.FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	return fmt.Sprintf(":= declares only inside a function; outside one write var %s = %s", m[1], m[2])
}

// mapForSlicesHint: a function of package slices given a map: the map's
// own way to do it (an index for Contains), or its keys.
func (c *checker) mapForSlicesHint(call *ast.CallExpr) string {
	fn := c.calleeFunc(call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "slices" || len(call.Args) == 0 {
		return ""
	}
	mt, ok := underlying(c.info.Types[call.Args[0]].Type).(*types.Map)
	if !ok {
		return ""
	}
	m := c.text(call.Args[0])
	switch {
	case strings.HasPrefix(fn.Name(), "Contains") && len(call.Args) == 2:
		k := c.text(call.Args[1])
		h := fmt.Sprintf("a map is not a slice: look the key up, _, ok := %s[%s] (ok tells whether it is there)", m, k)
		if types.Identical(mt.Elem(), types.Typ[types.Bool]) {
			h += fmt.Sprintf(", or, for a map of bools, %s[%s]", m, k)
		}
		return h + fmt.Sprintf("; for a value, slices.Contains(slices.Collect(maps.Values(%s)), v)", m)
	case strings.HasPrefix(fn.Name(), "Sort"):
		return fmt.Sprintf("a map has no order: sort its keys, for _, k := range slices.Sorted(maps.Keys(%s)) { ... %s[k] ... }%s", m, m, c.importNote("maps"))
	}
	return fmt.Sprintf("a map is not a slice: its keys are slices.Collect(maps.Keys(%s)), its values slices.Collect(maps.Values(%s))%s", m, m, c.importNote("maps"))
}

// callAt is the call whose closing parenthesis is at pos (where go/types
// reports a wrong argument count), or the innermost call around pos.
func (c *checker) callAt(pos token.Pos) *ast.CallExpr {
	var found *ast.CallExpr
	ast.Inspect(c.file, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && call.Rparen == pos {
			found = call
		}
		return found == nil
	})
	if found != nil {
		return found
	}
	call, _ := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.CallExpr); return ok }).(*ast.CallExpr)
	return call
}

// funcLitArgsHint: a function literal called without the arguments its
// parameters want (go func(n int) { ... }()): the variables of the
// enclosing loop that fit, passed at the call.
func (c *checker) funcLitArgsHint(call *ast.CallExpr) string {
	lit, ok := call.Fun.(*ast.FuncLit)
	if !ok {
		return ""
	}
	sig, ok := c.info.Types[lit].Type.(*types.Signature)
	if !ok || sig.Params().Len() <= len(call.Args) {
		return ""
	}
	// The variables of the loops around the call.
	var loopVars []types.Object
	ast.Inspect(c.file, func(n ast.Node) bool {
		if n == nil || call.Pos() < n.Pos() || call.Pos() > n.End() {
			return false
		}
		switch l := n.(type) {
		case *ast.ForStmt:
			if a, ok := l.Init.(*ast.AssignStmt); ok {
				for _, x := range a.Lhs {
					if id, ok := x.(*ast.Ident); ok && c.info.Defs[id] != nil {
						loopVars = append(loopVars, c.info.Defs[id])
					}
				}
			}
		case *ast.RangeStmt:
			for _, x := range []ast.Expr{l.Value, l.Key} {
				if id, ok := x.(*ast.Ident); ok && c.info.Defs[id] != nil {
					loopVars = append(loopVars, c.info.Defs[id])
				}
			}
		}
		return true
	})
	args := c.shortArgs(call.Args)
	for i := len(call.Args); i < sig.Params().Len(); i++ {
		p := sig.Params().At(i)
		arg := p.Name()
		for _, v := range loopVars {
			if types.AssignableTo(v.Type(), p.Type()) {
				arg = v.Name()
				break
			}
		}
		args = append(args, arg)
	}
	return fmt.Sprintf("the literal takes (%s): pass the values where it is called, }(%s)", strings.TrimSuffix(strings.TrimPrefix(c.sigString(sig), "func("), ")"), strings.Join(args, ", "))
}

// calledNotPassedHint: a function called where a function value is
// wanted (once.Do(setup())): pass it without ().
func (c *checker) calledNotPassedHint(pos token.Pos, parents map[ast.Node]ast.Node) string {
	call, ok := c.enclosing(pos, func(n ast.Node) bool { call, ok := n.(*ast.CallExpr); return ok && call.Pos() == pos }).(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return ""
	}
	outer, ok := parents[call].(*ast.CallExpr)
	if !ok {
		return ""
	}
	ft := c.targetType(call, parents)
	if ft == nil {
		return ""
	}
	if _, isFunc := ft.Underlying().(*types.Signature); !isFunc {
		return ""
	}
	if t := c.info.Types[call.Fun].Type; t != nil && types.AssignableTo(t, ft) {
		return fmt.Sprintf("%s wants the function itself, which it calls: pass it without (), %s(%s)", c.text(outer.Fun), c.text(outer.Fun), c.text(call.Fun))
	}
	return ""
}

// undefinedHint: a name never declared: a built-in type misspelt
// (float for float64), or a counter used before it is declared.
func (c *checker) undefinedHint(pos token.Pos, name string, parents map[ast.Node]ast.Node) string {
	id, ok := c.enclosing(pos, func(n ast.Node) bool { id, ok := n.(*ast.Ident); return ok && id.Pos() == pos }).(*ast.Ident)
	if !ok {
		return ""
	}
	if inTypePosition(id, parents) || isTypeSpot(id, parents) {
		var near []string
		for _, n := range types.Universe.Names() {
			if _, ok := types.Universe.Lookup(n).(*types.TypeName); ok && token.IsExported(n) == token.IsExported(name) && (strings.HasPrefix(n, strings.ToLower(name)) || distance(strings.ToLower(name), n) <= 2) && n != "any" && n != "comparable" {
				near = append(near, n)
			}
		}
		if len(near) > 0 && len(near) <= 4 {
			return fmt.Sprintf("%s is not a Go type: write %s", name, strings.Join(near, " or "))
		}
	}
	switch p := parents[id].(type) {
	case *ast.IncDecStmt:
		return fmt.Sprintf("declare %s before it is counted (before the loop), %s := 0", name, name)
	case *ast.AssignStmt:
		if p.Tok != token.DEFINE && p.Tok != token.ASSIGN && len(p.Lhs) == 1 && p.Lhs[0] == id {
			if t := c.info.Types[p.Rhs[0]].Type; t != nil {
				return fmt.Sprintf("declare %s before it is added to, var %s %s (or %s := %s)", name, name, c.typeString(types.Default(t)), name, c.zeroValue(types.Default(t)))
			}
		}
	}
	return ""
}

// isTypeSpot reports whether id stands where a type goes in a
// declaration (const x float = 1, var x T, a parameter or field).
func isTypeSpot(id *ast.Ident, parents map[ast.Node]ast.Node) bool {
	switch p := parents[id].(type) {
	case *ast.ValueSpec:
		return p.Type == id
	case *ast.Field:
		return p.Type == id
	case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.StarExpr, *ast.Ellipsis:
		return true
	}
	return false
}

// undefinedIn lists the names in x that are declared nowhere (the
// parameters a predicate written as a bare condition would have).
func (c *checker) undefinedIn(x ast.Expr) []string {
	var out []string
	ast.Inspect(x, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && c.info.Uses[id] == nil && c.info.Defs[id] == nil && !slices.Contains(out, id.Name) {
			if _, ok := c.info.Types[id]; !ok {
				out = append(out, id.Name)
			}
		}
		return true
	})
	return out
}

func isBool(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}

// boolForCompareHint: a comparison (a.X < b.X) returned where a
// comparison function's int is wanted: cmp.Compare.
func (c *checker) boolForCompareHint(x ast.Expr, parents map[ast.Node]ast.Node) string {
	if _, ok := parents[x].(*ast.ReturnStmt); !ok {
		return ""
	}
	b, ok := ast.Unparen(x).(*ast.BinaryExpr)
	if !ok {
		return ""
	}
	switch b.Op {
	case token.LSS, token.GTR, token.LEQ, token.GEQ:
	default:
		return ""
	}
	sig := c.enclosingSignature(x.Pos())
	if sig == nil || sig.Results().Len() != 1 || !isInteger(sig.Results().At(0).Type()) {
		return ""
	}
	l, r := c.text(b.X), c.text(b.Y)
	if b.Op == token.GTR || b.Op == token.GEQ {
		l, r = r, l
	}
	return fmt.Sprintf("the comparison returns an int (negative, zero or positive), not a bool: return cmp.Compare(%s, %s)%s", l, r, c.importNote("cmp"))
}

// convertMethodHint: a value whose method without arguments returns the
// wanted type (sb.String() for a strings.Builder where a string goes).
func (c *checker) convertMethodHint(x ast.Expr, from, to types.Type) string {
	ms := types.NewMethodSet(types.NewPointer(deref(from)))
	var ways []string
	for i := 0; i < ms.Len(); i++ {
		fn, ok := ms.At(i).Obj().(*types.Func)
		if !ok || !fn.Exported() {
			continue
		}
		sig := fn.Type().(*types.Signature)
		if sig.Params().Len() == 0 && sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), to) {
			ways = append(ways, c.text(x)+"."+fn.Name()+"()")
		}
	}
	if len(ways) == 0 || len(ways) > 3 {
		return ""
	}
	return fmt.Sprintf("%s %s is not %s %s: write %s", article(c.typeString(from)), c.typeString(from), article(c.typeString(to)), c.typeString(to), strings.Join(ways, ", or "))
}

// typeForErrorHint: an error type used as a value in a comparison with
// an error (err == mcp.ToolError): the As function of its package, or
// errors.As.
func (c *checker) typeForErrorHint(pos token.Pos) string {
	b, ok := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.BinaryExpr); return ok }).(*ast.BinaryExpr)
	if !ok || (b.Op != token.EQL && b.Op != token.NEQ) {
		return ""
	}
	errT := types.Universe.Lookup("error").Type()
	for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		tv := c.info.Types[p[0]]
		if !tv.IsType() {
			continue
		}
		if ot := c.info.Types[p[1]].Type; ot == nil || !types.Identical(ot, errT) {
			continue
		}
		named, ok := types.Unalias(deref(tv.Type)).(*types.Named)
		if !ok || named.Obj().Pkg() == nil {
			continue
		}
		e, ts := c.text(p[1]), c.typeString(tv.Type)
		if as, ok := named.Obj().Pkg().Scope().Lookup("As" + named.Obj().Name()).(*types.Func); ok {
			q := c.qualifiedName(named.Obj().Pkg(), as.Name())
			return fmt.Sprintf("a type is not a value to compare with: to find a %s in %s write v, ok := %s(%s) (func %s%s)", ts, e, q, e, q, strings.TrimPrefix(c.sigString(as.Type().(*types.Signature)), "func"))
		}
		ptr := "*"
		if types.Implements(named, errT.Underlying().(*types.Interface)) {
			ptr = ""
		}
		return fmt.Sprintf("a type is not a value to compare with: to find a %s in %s write var target %s%s; if errors.As(%s, &target) { ... }", ts, e, ptr, ts, e)
	}
	return ""
}

var (
	reForIn       = lazyRE(`^for\s+(\w+)(?:\s*,\s*(\w+))?\s+in\s+(.+?)\s*\{?$`)
	reFuncResults = lazyRE(`^(func\s.*\))\s+([^(){}]+,[^(){}]+?)\s*\{$`)
	reGenMethod   = lazyRE(`^func\s*\((\w+)\s+\*?(\w+)\[([^\]]+)\]\)\s*(\w+)\[([^\]]+)\]\((.*)\)\s*(.*?)\s*\{$`)
	reImportComma = lazyRE(`^import\s+("[^"]+"(?:\s*,\s*"[^"]+")+)\s*$`)
)

// otherLanguageHint: syntax as other languages write it (for x in xs,
// an if without braces, else on its own line, a struct literal with =,
// results without parentheses, imports with commas, a method with type
// parameters, ... in a struct literal).
func otherLanguageHint(lines []string, e *scanner.Error, raw, line string) string {
	col := e.Pos.Column - 1 // in raw
	switch {
	case reForIn.MatchString(line):
		m := reForIn.FindStringSubmatch(line)
		if m[2] != "" {
			return fmt.Sprintf("Go ranges with range, not in: for %s, %s := range %s {", m[1], m[2], m[3])
		}
		return fmt.Sprintf("Go ranges with range, not in: for _, %s := range %s { (or for %s := range %s for the index or key)", m[1], m[3], m[1], m[3])
	case strings.Contains(e.Msg, "found 'else'"):
		return "else goes on the line of the closing brace: } else {"
	case (strings.HasPrefix(line, "if ") || strings.HasPrefix(line, "for ")) && !strings.Contains(line, "{") && strings.HasPrefix(e.Msg, "expected ';', found ") && col > 0 && col <= len(raw):
		head, stmt := strings.TrimSpace(raw[:col]), strings.TrimSpace(raw[col:])
		return fmt.Sprintf("Go needs braces around the body, even for one statement: %s { %s }", head, stmt)
	case strings.Contains(e.Msg, "expected '==', found '='") && strings.Contains(line, "{"):
		// Key = value inside a literal: the key is before the =.
		if col > 0 && col <= len(raw) {
			before := strings.TrimRight(raw[:col], " ")
			i := strings.LastIndexAny(before, "{, ")
			key := before[i+1:]
			rest := strings.TrimLeft(raw[col+1:], " ")
			if j := strings.IndexAny(rest, ",}"); j >= 0 {
				rest = rest[:j]
			}
			return fmt.Sprintf("a struct literal names its fields with a colon: %s: %s", key, strings.TrimSpace(rest))
		}
	case reFuncResults.MatchString(line) && strings.HasPrefix(e.Msg, "expected ';', found ','"):
		m := reFuncResults.FindStringSubmatch(line)
		return fmt.Sprintf("several results go in parentheses: %s (%s) {", m[1], strings.TrimSpace(m[2]))
	case reImportComma.MatchString(line):
		var paths []string
		for _, p := range strings.Split(reImportComma.FindStringSubmatch(line)[1], ",") {
			paths = append(paths, strings.TrimSpace(p))
		}
		return fmt.Sprintf("several imports go in parentheses, one a line: import ( %s ), or one import line each: import %s", strings.Join(paths, "; "), strings.Join(paths, "; import "))
	case strings.Contains(e.Msg, "method must have no type parameters"):
		if m := reGenMethod.FindStringSubmatch(line); m != nil {
			name := strings.ToLower(m[4][:1]) + m[4][1:] + strings.ToUpper(m[2][:1]) + m[2][1:]
			return fmt.Sprintf("methods cannot have type parameters of their own: write a function with all of them, func %s[%s, %s](%s %s[%s], %s) %s", name, m[3], m[5], m[1], m[2], firstWord(m[3]), m[6], m[7])
		}
		return "methods cannot have type parameters of their own: write a function that takes the receiver as its first argument"
	case strings.Contains(e.Msg, "missing ','") && col >= 0 && col+3 <= len(raw) && raw[col:col+3] == "...":
		before := strings.TrimSpace(raw[:col])
		i := strings.LastIndexAny(before, "{,(")
		return fmt.Sprintf("... spreads a slice only into a call's last argument; a field takes the slice itself: %s", strings.TrimSpace(before[i+1:]))
	}
	return ""
}

// firstWord is the type parameter list's names without constraints:
// "T any" -> "T", "K comparable, V any" -> "K, V".
func firstWord(params string) string {
	var names []string
	for _, p := range strings.Split(params, ",") {
		if f := strings.Fields(p); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return strings.Join(names, ", ")
}

// afterBlockHeader reports whether the line before n opens a block of an
// if, for or switch (where a syntax error in the header makes the parser
// see a composite literal).
func afterBlockHeader(lines []string, n int) bool {
	for i := n - 2; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		return strings.HasSuffix(l, "{") && (strings.HasPrefix(l, "for ") || strings.HasPrefix(l, "if ") || strings.HasPrefix(l, "switch "))
	}
	return false
}

var (
	reIncomparable = lazyRE(`^invalid operation: (.+) [!=]= (.+) \(incomparable types in type set\)$`)
	reOverflowByte = lazyRE(`^'(.+)' \(untyped rune constant \d+\) overflows byte$`)
	reFuncMismatch = lazyRE(`^in call to ([\w.]+), type (func\(.*\) \S+) of (.+) does not match inferred type (func\(.*\) \S+) for `)
)

func isDuration(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration"
}

// durationExpr writes d as Go code: 30 * time.Second, 1500 * time.Millisecond.
func durationExpr(d time.Duration) string {
	units := []struct {
		d    time.Duration
		name string
	}{{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"}, {time.Millisecond, "Millisecond"}, {time.Microsecond, "Microsecond"}}
	for _, u := range units {
		if d%u.d == 0 {
			if d == u.d {
				return "time." + u.name
			}
			return fmt.Sprintf("%d * time.%s", d/u.d, u.name)
		}
	}
	return fmt.Sprintf("time.Duration(%d)", int64(d))
}

// wrapFuncHint: a function with more parameters than the function value
// wanted (strings.HasPrefix for a func(string) bool): a literal that
// fixes the others.
func (c *checker) wrapFuncHint(pos token.Pos, m []string) string {
	call, ok := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.CallExpr); return ok }).(*ast.CallExpr)
	if !ok {
		return ""
	}
	var arg ast.Expr
	for _, a := range call.Args {
		if c.text(a) == m[3] || "("+c.text(a)+" literal)" == m[3] {
			arg = a
		}
	}
	if arg == nil {
		return ""
	}
	given, ok := c.info.Types[arg].Type.(*types.Signature)
	if !ok {
		return ""
	}
	x, err := parser.ParseExpr(m[4])
	if err != nil {
		return ""
	}
	ft, ok := x.(*ast.FuncType)
	if !ok || ft.Params == nil {
		return ""
	}
	var want []string
	for _, f := range ft.Params.List {
		n := len(f.Names)
		if n == 0 {
			n = 1
		}
		for i := 0; i < n; i++ {
			want = append(want, types.ExprString(f.Type))
		}
	}
	if given.Params().Len() <= len(want) {
		return ""
	}
	var params, args []string
	for i := 0; i < given.Params().Len(); i++ {
		name := given.Params().At(i).Name()
		if name == "" || name == "_" {
			name = fmt.Sprintf("a%d", i)
		}
		if i < len(want) {
			params = append(params, name+" "+want[i])
		}
		args = append(args, name)
	}
	res := ""
	if ft.Results != nil && len(ft.Results.List) > 0 {
		res = " " + types.ExprString(ft.Results.List[0].Type)
	}
	return fmt.Sprintf("%s takes %d arguments and %s wants a function of %d: wrap it, func(%s)%s { return %s(%s) } (with %s set to what you mean)",
		m[3], given.Params().Len(), m[1], len(want), strings.Join(params, ", "), res, m[3], strings.Join(args, ", "), strings.Join(args[len(want):], ", "))
}

// otherLanguageNames are names other languages give to what Go's
// standard library calls otherwise.
var otherLanguageNames = map[string]string{
	"time.ISO8601":         "time.RFC3339 (ISO 8601); dates alone are time.DateOnly",
	"time.ISO8601Date":     "time.DateOnly",
	"strings.StartsWith":   "strings.HasPrefix",
	"strings.EndsWith":     "strings.HasSuffix",
	"strings.Includes":     "strings.Contains",
	"strings.IndexOf":      "strings.Index",
	"strings.Strip":        "strings.TrimSpace",
	"strings.Substring":    "a slice expression, s[i:j]",
	"strings.Reverse":      "slices.Reverse on []rune(s), then string(r)",
	"strconv.ParseInteger": "strconv.Atoi",
	"strconv.ToString":     "strconv.Itoa, or fmt.Sprint",
	"math.Round2":          "math.Round(x*100) / 100",
	"slices.Filter":        "slices.DeleteFunc (it removes what the function reports true for)",
	"slices.Map":           "a for range loop that appends to a new slice",
	"errors.Wrap":          `fmt.Errorf("...: %w", err)`,
}

// repairHint is the last resort for a type error no rule explained: it
// tries mechanical edits of the expression at fault (a field or method of
// it, len, a dereference or address, the first element, a call, a
// conversion, a slice of one) and names those that type-check where the
// expression stands, each checked with go/types.
func (c *checker) repairHint(te types.Error, at []ast.Node, parents map[ast.Node]ast.Node) string {
	switch {
	case reCannotUse.MatchString(te.Msg):
		x := outerExpr(at)
		if x == nil {
			return ""
		}
		to := c.targetType(x, parents)
		if to == nil {
			return ""
		}
		fits := c.repairs(x, func(cand string) bool {
			t := c.checkCall(cand, x.Pos())
			return t != nil && types.AssignableTo(t, to)
		})
		if len(fits) > 0 {
			return fmt.Sprintf("it wants %s %s: write %s", article(c.typeString(to)), c.typeString(to), strings.Join(fits, ", or "))
		}
	case reMismatch.MatchString(te.Msg):
		b, ok := c.enclosing(te.Pos, func(n ast.Node) bool {
			b, ok := n.(*ast.BinaryExpr)
			if !ok {
				return false
			}
			xt, yt := c.info.Types[b.X].Type, c.info.Types[b.Y].Type
			return xt != nil && yt != nil && !types.Identical(xt, yt)
		}).(*ast.BinaryExpr)
		if !ok {
			return ""
		}
		for _, side := range []int{1, 0} {
			e, other := b.X, b.Y
			if side == 1 {
				e, other = b.Y, b.X
			}
			fits := c.repairs(e, func(cand string) bool {
				src := cand + " " + b.Op.String() + " " + c.text(other)
				if side == 1 {
					src = c.text(other) + " " + b.Op.String() + " " + cand
				}
				return c.checkCall(src, b.Pos()) != nil
			})
			if len(fits) > 0 {
				return fmt.Sprintf("%s is %s %s: write %s", c.text(e), article(c.typeString(c.info.Types[e].Type)), c.typeString(c.info.Types[e].Type), strings.Join(fits, ", or "))
			}
		}
	}
	return ""
}

// repairs lists edits of x (as source text) that ok accepts, at most
// three, the likeliest first.
func (c *checker) repairs(x ast.Expr, ok func(string) bool) []string {
	t := c.info.Types[x].Type
	if t == nil {
		return nil
	}
	xs := c.text(x)
	if _, simple := ast.Unparen(x).(*ast.BinaryExpr); simple {
		xs = "(" + xs + ")"
	}
	var cands []string
	if st, isStruct := deref(t).Underlying().(*types.Struct); isStruct {
		for i := 0; i < st.NumFields(); i++ {
			if f := st.Field(i); f.Exported() || f.Pkg() == c.pkg {
				cands = append(cands, xs+"."+f.Name())
			}
		}
	}
	ms := types.NewMethodSet(types.NewPointer(deref(t)))
	for i := 0; i < ms.Len(); i++ {
		if fn, isFn := ms.At(i).Obj().(*types.Func); isFn && fn.Exported() && fn.Type().(*types.Signature).Params().Len() == 0 {
			cands = append(cands, xs+"."+fn.Name()+"()")
		}
	}
	switch t.Underlying().(type) {
	case *types.Slice, *types.Map, *types.Chan:
		cands = append(cands, "len("+xs+")")
	case *types.Basic:
		if isString(t) {
			cands = append(cands, "len("+xs+")")
		}
	}
	cands = append(cands, "*"+xs, xs+"()", xs+"[0]", "&"+xs)
	if isInteger(t) {
		cands = append(cands, "strconv.Itoa("+xs+")")
	} else {
		cands = append(cands, "string("+xs+")")
	}
	if _, isFunc := t.Underlying().(*types.Signature); !isFunc {
		cands = append(cands, "fmt.Sprint("+xs+")")
	}
	for _, conv := range []string{"int", "int64", "float64", "time.Duration"} {
		cands = append(cands, conv+"("+xs+")")
	}
	var out []string
	for _, cand := range cands {
		if len(out) == 3 {
			break
		}
		if ok(cand) {
			out = append(out, cand)
		}
	}
	return out
}

var (
	reBuiltinValue  = lazyRE(`^(\w+) \(built-in\) must be called$`)
	reBadLabel      = lazyRE(`^invalid (break|continue) label (\w+)$`)
	reUnusedLabel   = lazyRE(`^label (\w+) declared and not used$`)
	reIndexFunc     = lazyRE(`^cannot index (.+) \((?:variable|value) of type (func\(\) .+)\)$`)
	reIndexStruct   = lazyRE(`^cannot index (.+) \((?:variable|value) of struct type .+\)$`)
	reTooManyReturn = lazyRE(`^too many return values`)
)

var goKeywords = map[string]bool{
	"break": true, "case": true, "chan": true, "const": true, "continue": true, "default": true,
	"defer": true, "else": true, "fallthrough": true, "for": true, "func": true, "go": true, "goto": true,
	"if": true, "import": true, "interface": true, "map": true, "package": true, "range": true,
	"return": true, "select": true, "struct": true, "switch": true, "type": true, "var": true,
}

// keywordNameHint: a keyword used as a variable's name (type := ...).
func keywordNameHint(line string) string {
	f := strings.Fields(line)
	if len(f) < 2 || !goKeywords[f[0]] || (f[1] != ":=" && f[1] != "=" && !strings.HasPrefix(f[1], ":=")) {
		return ""
	}
	alt := map[string]string{"type": "kind", "func": "fn", "range": "span", "map": "m", "chan": "ch", "var": "v", "default": "def", "select": "sel", "case": "c", "interface": "iface", "struct": "st", "package": "pkg", "import": "imp", "go": "g"}[f[0]]
	if alt == "" {
		alt = f[0] + "_"
	}
	return fmt.Sprintf("%s is a Go keyword and cannot name a variable: call it %s (or typ), %s", f[0], alt, strings.Replace(line, f[0], alt, 1))
}

// stdHint2 holds the rules of the set20 round; stdHint calls it first.
func (c *checker) stdHint2(te types.Error, at []ast.Node, parents map[ast.Node]ast.Node) string {
	if h := c.stdHint3(te, at, parents); h != "" {
		return h
	}
	msg := te.Msg
	switch {
	case reBuiltinValue.MatchString(msg):
		name := reBuiltinValue.FindStringSubmatch(msg)[1]
		arg := "s"
		// The value another built-in call of the statement is about.
		if st := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(ast.Stmt); return ok }); st != nil {
			ast.Inspect(st, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok && len(call.Args) == 1 {
					if id, ok := call.Fun.(*ast.Ident); ok && (id.Name == "len" || id.Name == "cap") {
						arg = c.text(call.Args[0])
					}
				}
				return true
			})
		}
		return fmt.Sprintf("%s is a built-in function: call it, %s(%s)", name, name, arg)
	case reBadLabel.MatchString(msg):
		m := reBadLabel.FindStringSubmatch(msg)
		return fmt.Sprintf("no enclosing loop is labelled %s: put the label on the line before the loop to %s, %s: for ... {", m[2], m[1], m[2])
	case reUnusedLabel.MatchString(msg):
		m := reUnusedLabel.FindStringSubmatch(msg)
		return fmt.Sprintf("delete the label %s:, or use it, break %s or continue %s inside the loop", m[1], m[1], m[1])
	case reIndexFunc.MatchString(msg):
		m := reIndexFunc.FindStringSubmatch(msg)
		return fmt.Sprintf("%s is a method or function: call it first, %s()[...]", m[1], m[1])
	case reIndexStruct.MatchString(msg):
		if ix, ok := c.enclosing(te.Pos, func(n ast.Node) bool {
			ix, ok := n.(*ast.IndexExpr)
			if !ok || ix.X.Pos() != te.Pos {
				return false
			}
			_, isStruct := deref(c.info.Types[ix.X].Type).Underlying().(*types.Struct)
			return isStruct
		}).(*ast.IndexExpr); ok {
			return c.indexStructHint(ix)
		}
	case reTooManyReturn.MatchString(msg):
		return c.missingResultTypeHint(te.Pos)
	case reMismatch.MatchString(msg):
		return c.typeSwitchUseHint(te.Pos)
	case reCannotUse.MatchString(msg):
		if x := outerExpr(at); x != nil {
			return c.constToStringLitHint(x, parents)
		}
	}
	return ""
}

// missingResultTypeHint: return with values in a function (or literal)
// that declares no result.
func (c *checker) missingResultTypeHint(pos token.Pos) string {
	r, ok := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.ReturnStmt); return ok }).(*ast.ReturnStmt)
	if !ok || len(r.Results) == 0 {
		return ""
	}
	sig := c.enclosingSignature(pos)
	if sig == nil || sig.Results().Len() != 0 {
		return ""
	}
	var res []string
	for _, x := range r.Results {
		t := c.info.Types[x].Type
		if t == nil {
			return ""
		}
		res = append(res, c.typeString(types.Default(t)))
	}
	rs := strings.Join(res, ", ")
	if len(res) > 1 {
		rs = "(" + rs + ")"
	}
	fn := c.enclosing(pos, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return true
		}
		return false
	})
	switch f := fn.(type) {
	case *ast.FuncDecl:
		if f.Name.Name == "main" {
			return ""
		}
		return fmt.Sprintf("%s declares no result: add its type, func %s%s %s {", f.Name.Name, f.Name.Name, strings.TrimPrefix(c.sigString(sig), "func"), rs)
	case *ast.FuncLit:
		return fmt.Sprintf("the function literal declares no result: add its type, %s %s {", c.sigString(sig), rs)
	}
	return ""
}

// typeSwitchUseHint: the subject of a type switch without a variable
// used as the case's type.
func (c *checker) typeSwitchUseHint(pos token.Pos) string {
	ts, ok := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.TypeSwitchStmt); return ok }).(*ast.TypeSwitchStmt)
	if !ok {
		return ""
	}
	es, ok := ts.Assign.(*ast.ExprStmt)
	if !ok {
		return ""
	}
	ta, ok := es.X.(*ast.TypeAssertExpr)
	if !ok {
		return ""
	}
	subj := c.text(ta.X)
	return fmt.Sprintf("%s keeps its interface type inside the cases: bind it, switch v := %s.(type) { case int: ... v ... }", subj, subj)
}

// constToStringLitHint: a bool or number constant where a string is
// wanted: the constant written as a string.
func (c *checker) constToStringLitHint(x ast.Expr, parents map[ast.Node]ast.Node) string {
	tv := c.info.Types[x]
	to := c.targetType(x, parents)
	if tv.Value == nil || to == nil || !isString(to) {
		return ""
	}
	if tv.Value.Kind() == constant.Bool {
		return fmt.Sprintf("it wants a string: write %q (for a bool variable, strconv.FormatBool(v))", tv.Value.ExactString())
	}
	return ""
}

var (
	reSendNonChan = lazyRE(`^invalid operation: cannot send to non-channel`)
	reXorFloat    = lazyRE(`^invalid operation: operator \^ not defined on `)
	reErrConvPlus = lazyRE(`^cannot convert .* to type interface\{Error\(\) string\}$`)
	reValueCount  = lazyRE(`^assignment mismatch: (\d+) variables? but (\d+) values?$`)
	reParamList   = lazyRE(`^(func\s*(?:\([^)]*\)\s*)?\w+)\((.*?)\)(.*)$`)
)

// stdHint3 holds the rules of the set21 round; stdHint2 calls it first.
func (c *checker) stdHint3(te types.Error, at []ast.Node, parents map[ast.Node]ast.Node) string {
	if h := c.stdHint4(te, at, parents); h != "" {
		return h
	}
	msg := te.Msg
	switch {
	case reSendNonChan.MatchString(msg):
		if st, ok := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.SendStmt); return ok }).(*ast.SendStmt); ok {
			if t := c.info.Types[st.Value].Type; t != nil {
				if _, isChan := t.Underlying().(*types.Chan); isChan {
					return fmt.Sprintf("the arrow points into the channel for a send; to receive write %s = <-%s (or %s := <-%s)", c.text(st.Chan), c.text(st.Value), c.text(st.Chan), c.text(st.Value))
				}
			}
		}
	case reXorFloat.MatchString(msg):
		if b, ok := c.enclosing(te.Pos, func(n ast.Node) bool { b, ok := n.(*ast.BinaryExpr); return ok && b.Op == token.XOR }).(*ast.BinaryExpr); ok {
			base, pre := b.X, ""
			if inner, ok := ast.Unparen(b.X).(*ast.BinaryExpr); ok && (inner.Op == token.MUL || inner.Op == token.QUO) {
				base, pre = inner.Y, c.text(inner.X)+" "+inner.Op.String()+" "
			}
			bs, e := c.text(base), c.text(b.Y)
			h := fmt.Sprintf("^ is bitwise XOR in Go, not a power: write %smath.Pow(%s, %s)", pre, bs, e)
			if e == "2" {
				h += fmt.Sprintf(", or %s%s * %s", pre, bs, bs)
			}
			return h
		}
	case reErrConvPlus.MatchString(msg):
		if b, ok := c.enclosing(te.Pos, func(n ast.Node) bool { b, ok := n.(*ast.BinaryExpr); return ok && b.Op == token.ADD }).(*ast.BinaryExpr); ok {
			for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
				if t := c.info.Types[p[0]].Type; t != nil && types.Identical(t, types.Universe.Lookup("error").Type()) {
					return fmt.Sprintf("an error is not a string: its text is %s.Error() (or build the message with fmt.Sprintf(\"...: %%v\", %s))", c.text(p[0]), c.text(p[0]))
				}
			}
		}
	case reValueCount.MatchString(msg):
		m := reValueCount.FindStringSubmatch(msg)
		return c.valueCountHint(te.Pos, m)
	case reCannotRange.MatchString(msg):
		if x := outerExpr(at); x != nil {
			return c.rangeScannerHint(x)
		}
	case strings.HasPrefix(msg, "not enough arguments in call to "):
		if call := c.callAt(te.Pos); call != nil {
			return c.methodOnTypeHint(call)
		}
	case reCannotUse.MatchString(msg):
		if x := outerExpr(at); x != nil {
			return c.errorForStringHint(x, parents)
		}
	}
	return ""
}

// valueCountHint: more variables than values (a number written with a
// thousands comma, or one value for two variables).
func (c *checker) valueCountHint(pos token.Pos, m []string) string {
	n := c.enclosingAssign(pos)
	var lhs []string
	var rhs []ast.Expr
	kw := ":="
	switch s := n.(type) {
	case *ast.AssignStmt:
		for _, l := range s.Lhs {
			lhs = append(lhs, c.text(l))
		}
		rhs, kw = s.Rhs, s.Tok.String()
	case *ast.ValueSpec:
		for _, l := range s.Names {
			lhs = append(lhs, l.Name)
		}
		rhs, kw = s.Values, "var"
	default:
		return ""
	}
	// 1,000: a number with a thousands separator.
	if len(lhs) == 1 && len(rhs) >= 2 {
		digits := ""
		for i, r := range rhs {
			bl, ok := r.(*ast.BasicLit)
			if !ok || bl.Kind != token.INT || (i > 0 && len(bl.Value) != 3) {
				digits = ""
				break
			}
			digits += bl.Value
		}
		if digits != "" {
			return fmt.Sprintf("Go numbers have no thousands comma: write %s (or with underscores, %s)", digits, underscored(digits))
		}
	}
	if len(rhs) == 1 && len(lhs) > 1 {
		if t := c.info.Types[rhs[0]].Type; t != nil {
			if _, isTuple := t.(*types.Tuple); !isTuple {
				vals := make([]string, len(lhs))
				for i := range vals {
					vals[i] = c.text(rhs[0])
				}
				if kw == "var" {
					return fmt.Sprintf("each variable takes its own value: var %s = %s", strings.Join(lhs, ", "), strings.Join(vals, ", "))
				}
				return fmt.Sprintf("each variable takes its own value: %s %s %s", strings.Join(lhs, ", "), kw, strings.Join(vals, ", "))
			}
		}
	}
	return ""
}

func underscored(d string) string {
	var b strings.Builder
	for i, r := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// rangeScannerHint: ranging over a reader of items (a bufio.Scanner):
// its Scan loop.
func (c *checker) rangeScannerHint(x ast.Expr) string {
	t := c.info.Types[x].Type
	if t == nil {
		return ""
	}
	ms := types.NewMethodSet(t)
	if _, isPtr := t.(*types.Pointer); !isPtr {
		ms = types.NewMethodSet(types.NewPointer(t))
	}
	var step, item string
	for i := 0; i < ms.Len(); i++ {
		fn, ok := ms.At(i).Obj().(*types.Func)
		if !ok || !fn.Exported() {
			continue
		}
		sig := fn.Type().(*types.Signature)
		if sig.Params().Len() != 0 || sig.Results().Len() != 1 {
			continue
		}
		switch r := sig.Results().At(0).Type(); {
		case isBool(r) && (fn.Name() == "Scan" || fn.Name() == "Next"):
			step = fn.Name()
		case isString(r) && item == "":
			item = fn.Name()
		}
	}
	if step == "" {
		return ""
	}
	xs := c.text(x)
	if item == "" {
		return fmt.Sprintf("%s is not a collection: loop with its %s method, for %s.%s() { ... }", xs, step, xs, step)
	}
	return fmt.Sprintf("%s is not a collection: loop with its %s method, for %s.%s() { line := %s.%s() ... }", xs, step, xs, step, xs, item)
}

// methodOnTypeHint: a method called on its type (point.String()), a
// method expression missing its receiver: call it on a value.
func (c *checker) methodOnTypeHint(call *ast.CallExpr) string {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !c.info.Types[sel.X].IsType() {
		return ""
	}
	t := c.info.Types[sel.X].Type
	recv := "v"
	// A variable of that type in scope.
	if c.pkg != nil {
		if scope := c.pkg.Scope().Innermost(call.Pos()); scope != nil {
			for s := scope; s != nil && s != types.Universe && recv == "v"; s = s.Parent() {
				for _, n := range s.Names() {
					if v, ok := s.Lookup(n).(*types.Var); ok && (types.Identical(v.Type(), t) || types.Identical(v.Type(), types.NewPointer(t))) {
						recv = n
						break
					}
				}
			}
		}
	}
	return fmt.Sprintf("%s is a type: call the method on a value of it, %s.%s(%s)", c.text(sel.X), recv, sel.Sel.Name, strings.Join(c.shortArgs(call.Args), ", "))
}

// errorForStringHint: an error where a string is wanted: its text, or
// for errors.New and a format, wrapping with %w.
func (c *checker) errorForStringHint(x ast.Expr, parents map[ast.Node]ast.Node) string {
	from, to := c.info.Types[x].Type, c.targetType(x, parents)
	if from == nil || to == nil || !isString(to) || !types.Identical(from, types.Universe.Lookup("error").Type()) {
		return ""
	}
	xs := c.text(x)
	if call, ok := parents[x].(*ast.CallExpr); ok {
		if fn := c.calleeFunc(call); fn != nil && fn.Pkg() != nil {
			switch fn.FullName() {
			case "errors.New":
				return fmt.Sprintf("%s is already an error: to add context write fmt.Errorf(\"...: %%w\", %s); its text is %s.Error()", xs, xs, xs)
			case "fmt.Errorf":
				return fmt.Sprintf("the first argument is the format: wrap the error with %%w, fmt.Errorf(\"...: %%w\", %s)", xs)
			case "fmt.Sprintf", "fmt.Printf":
				return fmt.Sprintf("the first argument is the format: fmt.%s(\"%%v\", %s)", fn.Name(), xs)
			}
		}
	}
	return fmt.Sprintf("an error is not a string: its text is %s.Error()", xs)
}

// paramTypeHint: a parameter list where a name has no type (func add(a
// int, b)): names that share a type are written before it once.
func paramTypeHint(line string) string {
	m := reParamList.FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	var names []string
	typ := ""
	for _, p := range strings.Split(m[2], ",") {
		f := strings.Fields(p)
		switch len(f) {
		case 1:
			names = append(names, f[0])
		case 2:
			names = append(names, f[0])
			if typ != "" && typ != f[1] {
				return ""
			}
			typ = f[1]
		default:
			return ""
		}
	}
	if typ == "" {
		return ""
	}
	return fmt.Sprintf("each parameter needs a type; names that share one list it once, after them: %s(%s %s)%s", m[1], strings.Join(names, ", "), typ, m[3])
}

var (
	reFuncNotUsed  = lazyRE(`^(.+) \((?:variable|value) of type func\(\)\) is not used$`)
	reSliceOrder   = lazyRE(`^invalid operation: (.+) ([<>]=?) (.+) \(operator [<>]=? not defined on (slice|map)\)$`)
	reMultiIndex   = lazyRE(`^invalid operation: more than one index$`)
	reNegIndex     = lazyRE(`^invalid argument: index (-\d+) \(constant of type int\) must not be negative$`)
	reExplicitInst = lazyRE(`^in call to (\w+)\[`)
)

// stdHint4 holds the rules of the set22 round; stdHint3 calls it first.
func (c *checker) stdHint4(te types.Error, at []ast.Node, parents map[ast.Node]ast.Node) string {
	msg := te.Msg
	switch {
	case reFuncNotUsed.MatchString(msg):
		x := reFuncNotUsed.FindStringSubmatch(msg)[1]
		return fmt.Sprintf("it is a function, which does nothing until called: %s()", x)
	case reSliceOrder.MatchString(msg):
		m := reSliceOrder.FindStringSubmatch(msg)
		return fmt.Sprintf("%ss have no order: compare their lengths, len(%s) %s len(%s)", m[4], m[1], m[2], m[3])
	case reMultiIndex.MatchString(msg):
		if ix, ok := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.IndexListExpr); return ok }).(*ast.IndexListExpr); ok {
			x := c.text(ix.X)
			var each []string
			// As the statement it stands in: linked[a] = true; linked[b] = true.
			tail := ""
			if a, ok := c.enclosing(ix.Pos(), func(n ast.Node) bool { a, ok := n.(*ast.AssignStmt); return ok && len(a.Lhs) == 1 && a.Lhs[0] == ix }).(*ast.AssignStmt); ok && len(a.Rhs) == 1 {
				tail = " " + a.Tok.String() + " " + c.text(a.Rhs[0])
			}
			for _, i := range ix.Indices {
				each = append(each, x+"["+c.text(i)+"]"+tail)
			}
			if _, isMap := underlying(c.info.Types[ix.X].Type).(*types.Map); isMap {
				return fmt.Sprintf("a map takes one key: use each, %s; or key by both at once with a struct or array key, map[[2]string]...", strings.Join(each, "; "))
			}
			return fmt.Sprintf("an index takes one value: %s", strings.Join(each, ", "))
		}
	case reNegIndex.MatchString(msg):
		if ix, ok := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.IndexExpr); return ok }).(*ast.IndexExpr); ok {
			x := c.text(ix.X)
			n := strings.TrimPrefix(reNegIndex.FindStringSubmatch(msg)[1], "-")
			return fmt.Sprintf("Go has no negative indexes: counting from the end write %s[len(%s)-%s]", x, x, n)
		}
	case reExplicitInst.MatchString(msg):
		// Explicit type arguments that do not fit: the call without them,
		// when Go infers them.
		if call, ok := c.enclosing(te.Pos, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return false
			}
			switch call.Fun.(type) {
			case *ast.IndexExpr, *ast.IndexListExpr:
				return true
			}
			return false
		}).(*ast.CallExpr); ok {
			var base ast.Expr
			switch f := call.Fun.(type) {
			case *ast.IndexExpr:
				base = f.X
			case *ast.IndexListExpr:
				base = f.X
			}
			args := make([]string, len(call.Args))
			for i, a := range call.Args {
				args[i] = c.text(a)
			}
			if c.checkCall(c.text(base)+"("+strings.Join(args, ", ")+")", call.Pos()) != nil {
				return fmt.Sprintf("the type arguments do not fit the arguments (they go in the order of its type parameters): drop them and let Go infer them, %s(%s)", c.text(base), strings.Join(c.shortArgs(call.Args), ", "))
			}
		}
	case reCannotUse.MatchString(msg):
		if x := outerExpr(at); x != nil {
			if h := c.sprintfForErrorHint(x, parents); h != "" {
				return h
			}
			return c.funcForResultHint(x, parents)
		}
	case reAssignCount.MatchString(msg):
		return c.singleResultMethodHint(te.Pos, reAssignCount.FindStringSubmatch(msg))
	}
	return ""
}

// sprintfForErrorHint: fmt.Sprintf where an error is wanted: fmt.Errorf.
func (c *checker) sprintfForErrorHint(x ast.Expr, parents map[ast.Node]ast.Node) string {
	to := c.targetType(x, parents)
	if to == nil || !types.Identical(to, types.Universe.Lookup("error").Type()) {
		return ""
	}
	call, ok := ast.Unparen(x).(*ast.CallExpr)
	if !ok {
		return ""
	}
	if fn := c.calleeFunc(call); fn != nil && fn.FullName() == "fmt.Sprintf" {
		return fmt.Sprintf("fmt.Sprintf makes a string; fmt.Errorf makes an error from the same format: fmt.Errorf(%s)", strings.Join(c.shortArgs(call.Args), ", "))
	}
	return ""
}

// funcForResultHint: a function value where its result goes (x =
// strings.TrimSpace): the call on what is assigned to.
func (c *checker) funcForResultHint(x ast.Expr, parents map[ast.Node]ast.Node) string {
	sig, ok := c.info.Types[x].Type.(*types.Signature)
	to := c.targetType(x, parents)
	if !ok || to == nil || sig.Results().Len() != 1 || !types.AssignableTo(sig.Results().At(0).Type(), to) {
		return ""
	}
	xs := c.text(x)
	if sig.Params().Len() == 0 {
		return fmt.Sprintf("it is a function: call it, %s()", xs)
	}
	if a, ok := parents[x].(*ast.AssignStmt); ok && len(a.Lhs) == 1 && sig.Params().Len() == 1 && types.AssignableTo(c.info.Types[a.Lhs[0]].Type, sig.Params().At(0).Type()) {
		l := c.text(a.Lhs[0])
		return fmt.Sprintf("it is a function: call it on the value, %s = %s(%s)", l, xs, l)
	}
	return fmt.Sprintf("it is a function: call it, %s%s", xs, strings.TrimPrefix(c.sigString(sig), "func"))
}

// singleResultMethodHint: one variable for a method's several named
// results, where the receiver has a method for each (t.Date() and
// t.Year()).
func (c *checker) singleResultMethodHint(pos token.Pos, m []string) string {
	a, ok := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.AssignStmt); return ok }).(*ast.AssignStmt)
	if !ok || len(a.Lhs) != 1 || len(a.Rhs) != 1 {
		return ""
	}
	call, ok := a.Rhs[0].(*ast.CallExpr)
	if !ok {
		return ""
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	s, ok := c.info.Selections[sel]
	if !ok {
		return ""
	}
	sig := s.Obj().Type().(*types.Signature)
	ms := types.NewMethodSet(types.NewPointer(deref(s.Recv())))
	var names, alone []string
	for i := 0; i < sig.Results().Len(); i++ {
		n := sig.Results().At(i).Name()
		if n == "" {
			return ""
		}
		names = append(names, n)
		if ms.Lookup(nil, strings.ToUpper(n[:1])+n[1:]) != nil {
			alone = append(alone, fmt.Sprintf("%s.%s()", c.text(sel.X), strings.ToUpper(n[:1])+n[1:]))
		}
	}
	if len(alone) == 0 {
		return ""
	}
	return fmt.Sprintf("%s returns %s: write %s %s %s; for one of them alone, %s", c.text(call.Fun), strings.Join(names, ", "), strings.Join(names, ", "), a.Tok, c.text(call), strings.Join(alone, ", "))
}

// compareFromLess turns the less function literal at pos into the
// comparison a *Func helper of slices wants: its one `return x < y` (or >,
// <=, >=) of ordered operands as cmp.Compare(x, y) (the operands swapped
// for > and >=), cmp.Compare of the parameters when they are ordered, or
// a sketch over a field when neither fits.
func (c *checker) compareFromLess(pos token.Pos) (expr, note string) {
	lit, _ := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.FuncLit); return ok }).(*ast.FuncLit)
	if lit == nil || lit.Type.Params == nil {
		return "cmp.Compare(a, b)", ""
	}
	var names []string
	var pt types.Type
	for _, f := range lit.Type.Params.List {
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
		pt = c.info.TypeOf(f.Type)
	}
	if len(names) != 2 {
		return "cmp.Compare(a, b)", ""
	}
	ordered := func(e ast.Expr) bool {
		b, ok := c.info.TypeOf(e).Underlying().(*types.Basic)
		return ok && b.Info()&types.IsOrdered != 0
	}
	if len(lit.Body.List) == 1 {
		if r, ok := lit.Body.List[0].(*ast.ReturnStmt); ok && len(r.Results) == 1 {
			if b, ok := ast.Unparen(r.Results[0]).(*ast.BinaryExpr); ok && ordered(b.X) && ordered(b.Y) {
				switch b.Op {
				case token.LSS, token.LEQ:
					return fmt.Sprintf("cmp.Compare(%s, %s)", c.text(b.X), c.text(b.Y)), ""
				case token.GTR, token.GEQ:
					return fmt.Sprintf("cmp.Compare(%s, %s)", c.text(b.Y), c.text(b.X)), ""
				}
			}
		}
	}
	if pt != nil {
		if b, ok := pt.Underlying().(*types.Basic); ok && b.Info()&types.IsOrdered != 0 {
			return fmt.Sprintf("cmp.Compare(%s, %s)", names[0], names[1]), ""
		}
		if st, ok := pt.Underlying().(*types.Struct); ok {
			for i := 0; i < st.NumFields(); i++ {
				if b, ok := st.Field(i).Type().Underlying().(*types.Basic); ok && b.Info()&types.IsOrdered != 0 {
					f := st.Field(i).Name()
					return fmt.Sprintf("cmp.Compare(%s.%s, %s.%s)", names[0], f, names[1], f), " with the field to order by (swap the operands for descending order)"
				}
			}
		}
	}
	return "cmp.Compare(...)", fmt.Sprintf(": -1 when %s comes first, 1 when %s does, 0 when equal", names[0], names[1])
}
