package check

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/scanner"
	"go/token"
	"go/types"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// The hints below turn go/types' errors into what to write instead, from
// the types involved: a value for an optional (pointer) field, a slice for
// one element, a conversion between numeric types, a struct literal for a
// generated function's Args, the method of a result type that gives what
// was wanted. They look at the types and the syntax only, never at names
// of particular packages or tools.

var (
	reCannotUse    = lazyRE(`^cannot use .* as .* value in `)
	reMismatch     = lazyRE(`^invalid operation: .* \(mismatched types (.+) and (.+)\)$`)
	reAssignCount  = lazyRE(`^assignment mismatch: (\d+) variables? but (.+) returns (\d+) values?$`)
	reArgCount     = lazyRE(`^(not enough|too many) arguments in call to `)
	reTooFew       = lazyRE(`^too few values in struct literal of type `)
	reCannotIndex  = lazyRE(`^(cannot index|invalid operation: cannot index) `)
	reCannotRange  = lazyRE(`^cannot range over `)
	reFuncValue    = lazyRE(`\(value of type func\(\) [^)]*\)`)
	reNoFieldOrMet = lazyRE(`^(.+)\.(\w+) undefined \(type (.+) has no field or method (\w+)`)
	reUnused       = lazyRE(`^declared and not used: (\w+)$`)
	reNoNewVars    = lazyRE(`^no new variables on left side of :=$`)
	reMultiValue   = lazyRE(`^multiple-value .* in single-value context$`)
	reIndexInt     = lazyRE(`^invalid argument: index .* must be integer$`)
	reReturnCount  = lazyRE(`^(not enough|too many) return values`)
	reMissingKey   = lazyRE(`^missing key in map literal$`)
	reErrorConvert = lazyRE(`^cannot convert .* to type (interface\{Error\(\) string\}|error)$`)
	reNonBool      = lazyRE(`^non-boolean (condition in .* statement|used as condition)`)
	reCannotAssign = lazyRE(`^cannot assign to (\w+) \(`)
	reConvertIndex = lazyRE(`^cannot convert .* \(untyped string constant\) to type int$`)
	reAppendString = lazyRE(`^invalid append: argument must be a slice; have (.+) \(variable of type (.+)\)$`)
	reBreak        = lazyRE(`^(break|continue) not in for`)
	reSliceCompare = lazyRE(`^invalid operation: (.+) == (.+) \((slice|map) can only be compared to nil\)$`)
	reLenStruct    = lazyRE(`^invalid argument: .* \(variable of struct type .*\) for built-in (len|cap)$`)
)

// typeErrorHint explains a type error from its types, or returns "".
func (c *checker) typeErrorHint(te types.Error, at []ast.Node, parents map[ast.Node]ast.Node) string {
	msg := te.Msg
	switch {
	case reCannotUse.MatchString(msg):
		if reNilAs.MatchString(msg) {
			if h := c.nilAsHint(te.Pos); h != "" {
				return h
			}
		}
		if x := outerExpr(at); x != nil {
			if h := c.unkeyedHint(x, parents); h != "" {
				return h
			}
			from := c.info.Types[x].Type
			to := c.targetType(x, parents)
			if send, ok := parents[x].(*ast.SendStmt); ok && send.Value == x && from != nil {
				if ch, ok := c.info.Types[send.Chan].Type.Underlying().(*types.Chan); ok {
					ft := c.typeString(types.Default(from))
					h := fmt.Sprintf("%s carries %s: send one, or make a channel of %s, make(chan %s)", c.text(send.Chan), c.typeString(ch.Elem()), ft, ft)
					if st, ok := deref(from).Underlying().(*types.Struct); ok {
						var fs []string
						for i := 0; i < st.NumFields(); i++ {
							if f := st.Field(i); (f.Exported() || f.Pkg() == c.pkg) && types.AssignableTo(f.Type(), ch.Elem()) {
								fs = append(fs, c.text(x)+"."+f.Name())
							}
						}
						if len(fs) > 0 && len(fs) <= 8 {
							h = fmt.Sprintf("%s carries %s: send one of its fields, %s; or make a channel of %s, make(chan %s)", c.text(send.Chan), c.typeString(ch.Elem()), strings.Join(fs, ", "), ft, ft)
						}
					}
					return h
				}
			}
			if from != nil && to != nil {
				if _, isIface := to.Underlying().(*types.Interface); isIface {
					if call, ok := parents[x].(*ast.CallExpr); ok {
						if fn := c.calleeFunc(call); fn != nil && fn.Pkg().Path() == "sort" {
							if h := c.sliceForSliceHint(x, from, types.NewSlice(types.Typ[types.String]), parents); h != "" {
								return h
							}
						}
					}
				}
				if h := c.asFuncHint(x, from, parents); h != "" {
					return h
				}
				if h := c.argPackageHint(x, from, parents); h != "" {
					return h
				}
				if h := c.alreadyHint(x, from, parents); h != "" {
					return h
				}
				if strings.Contains(msg, "has pointer receiver)") {
					switch x.(type) {
					case *ast.CompositeLit, *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr:
						return fmt.Sprintf("its methods are on the pointer: write &%s", c.text(x))
					}
				}
				if lit, ok := x.(*ast.CompositeLit); ok && len(lit.Elts) == 0 {
					return fmt.Sprintf("write an empty %s, %s{}", c.typeString(to), c.typeString(to))
				}
				if !types.Identical(from, to) && types.Identical(from.Underlying(), to.Underlying()) {
					return fmt.Sprintf("%s is a %s: convert it, %s(%s)", c.text(x), c.typeString(from), c.typeString(to), c.text(x))
				}
				if h := c.compareDiffHint(x, from, to, parents); h != "" {
					return h
				}
				if h := numericConvertHint(c, x, from, to); h != "" {
					return h
				}
				if h := c.rangeKeyHint(x, to, parents); h != "" {
					return h
				}
				if h := c.mapIndexHint(x, parents); h != "" {
					return h
				}
				if h := c.divisionHint(x, from, to); h != "" {
					return h
				}
				if h := c.readerHint(x, from, to); h != "" {
					return h
				}
				if h := c.convertElemsHint(x, from, to); h != "" {
					return h
				}
				if h := c.constToStringHint(x, from, to); h != "" {
					return h
				}
				if h := c.mapForSliceHint(x, from, to); h != "" {
					return h
				}
				if h := c.elemFuncHint(x, from, parents); h != "" {
					return h
				}
				if h := c.sliceForSliceHint(x, from, to, parents); h != "" {
					return h
				}
				if h := c.addressHint(x, from, to, parents); h != "" {
					return h
				}
				return c.convertHint(x, from, to)
			}
		}
	case reMismatch.MatchString(msg):
		if b, ok := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.BinaryExpr); return ok }).(*ast.BinaryExpr); ok && b.Op != token.EQL && b.Op != token.NEQ {
			for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
				if t := c.info.Types[p[0]].Type; t != nil && isEmptyInterface(t) {
					if ot := c.info.Types[p[1]].Type; ot != nil && !isEmptyInterface(ot) {
						return fmt.Sprintf("%s is an interface value: assert its type first, %s.(%s)", c.text(p[0]), c.text(p[0]), c.typeString(types.Default(ot)))
					}
				}
			}
		}
		if b := c.enclosing(te.Pos, func(n ast.Node) bool {
			b, ok := n.(*ast.BinaryExpr)
			if !ok {
				return false
			}
			xt, yt := c.info.Types[b.X].Type, c.info.Types[b.Y].Type
			return xt != nil && yt != nil && !types.Identical(xt, yt) && !fits(xt, yt) && !fits(yt, xt)
		}); b != nil {
			return c.binaryHint(b.(*ast.BinaryExpr))
		}
		if a, ok := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.AssignStmt); return ok }).(*ast.AssignStmt); ok && len(a.Lhs) == 1 && len(a.Rhs) == 1 {
			if h := c.methodAssignHint(a); h != "" {
				return h
			}
			lt, rt := c.info.Types[a.Lhs[0]].Type, c.info.Types[a.Rhs[0]].Type
			if q, ok := ast.Unparen(a.Rhs[0]).(*ast.BinaryExpr); ok && q.Op == token.QUO && lt != nil && rt != nil && isInteger(rt) && isNumeric(lt) && !isInteger(lt) {
				return c.divisionHint(q, rt, lt)
			}
			if lt != nil && rt != nil {
				return c.convertHint(a.Rhs[0], rt, lt)
			}
		}
	case reAssignCount.MatchString(msg):
		return c.assignCountHint(te.Pos, reAssignCount.FindStringSubmatch(msg))
	case reArgCount.MatchString(msg):
		if call := c.callAt(te.Pos); call != nil {
			h := c.argsHint(call)
			if s := c.sameResultHint(call); s != "" && !strings.Contains(h, "it takes one") {
				h += "\n" + s
			}
			if s := c.siblingArgsHint(call); s != "" {
				if strings.Contains(s, "does not format") || h == "" {
					return s
				}
				h += "; " + s
			}
			return h
		}
	case reTooFew.MatchString(msg):
		if lit := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.CompositeLit); return ok }); lit != nil {
			return c.namedFieldsHint(lit.(*ast.CompositeLit))
		}
	case reCannotIndex.MatchString(msg):
		if ix := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.IndexExpr); return ok }); ix != nil {
			return c.indexStructHint(ix.(*ast.IndexExpr))
		}
	case reCannotRange.MatchString(msg):
		if x := outerExpr(at); x != nil {
			if h := c.rangePointerHint(x); h != "" {
				return h
			}
			return c.rangeStructHint(x)
		}
	case reFuncValue.MatchString(msg):
		if x := outerExpr(at); x != nil {
			if _, ok := c.info.Types[x].Type.(*types.Signature); ok {
				return "it is a method or function: call it, " + c.text(x) + "()"
			}
		}
	case reNoFieldOrMet.MatchString(msg):
		return c.sliceFieldHint(at, parents)
	case reMultiValue.MatchString(msg):
		if call := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.CallExpr); return ok && n.Pos() == te.Pos }); call != nil {
			if tup, ok := c.info.Types[call.(*ast.CallExpr)].Type.(*types.Tuple); ok && tup.Len() > 1 {
				names := c.resultNames(tup)
				if names[0] == "out" || names[0] == "v1" {
					names[0] = "res"
				}
				for i, n := range names {
					// A name that would hide a package: its first letter.
					if _, isPkg := c.info.Uses[&ast.Ident{Name: n}]; isPkg || c.pkgNameInFile(n) {
						names[i] = n[:1]
					}
				}
				check := "check err"
				if names[len(names)-1] == "ok" {
					check = "check ok"
				}
				h := fmt.Sprintf("it returns %d values: assign them first, %s := %s, %s, then use %s", tup.Len(), strings.Join(names, ", "), c.text(call), check, names[0])
				if cond := c.enclosingCond(te.Pos); cond != nil && ast.Unparen(cond) == call && names[len(names)-1] == "ok" {
					blank := make([]string, len(names)-1)
					for i := range blank {
						blank[i] = "_"
					}
					h = fmt.Sprintf("it returns %d values, the last a bool: test that one, if %s, ok := %s; ok {", tup.Len(), strings.Join(blank, ", "), c.text(call))
				}
				if fn := c.calleeFunc(call.(*ast.CallExpr)); fn != nil && fn.Type().(*types.Signature).Recv() == nil {
					if must := fn.Pkg().Scope().Lookup("Must" + fn.Name()); must != nil {
						h = fmt.Sprintf("%s.%s returns one value and panics on a bad argument: write %s.%s(%s); or %s", fn.Pkg().Name(), must.Name(), fn.Pkg().Name(), must.Name(), c.argList(call.(*ast.CallExpr)), h)
					}
				}
				return h
			}
		}
	case reNonBool.MatchString(msg):
		if x := c.enclosingCond(te.Pos); x != nil {
			xs := c.text(x)
			switch t := c.info.Types[x].Type; {
			case t == nil:
			case types.Identical(t, types.Universe.Lookup("error").Type()):
				return fmt.Sprintf("an error is not a bool: write %s != nil", xs)
			case isString(t):
				return fmt.Sprintf(`a string is not a bool: write %s != ""`, xs)
			case isNumeric(t):
				return fmt.Sprintf("a number is not a bool: write %s != 0", xs)
			default:
				if _, ok := t.Underlying().(*types.Pointer); ok {
					return fmt.Sprintf("write %s != nil", xs)
				}
			}
		}
	case reCannotAssign.MatchString(msg):
		name := reCannotAssign.FindStringSubmatch(msg)[1]
		if x := outerExpr(at); x != nil {
			if id, ok := x.(*ast.Ident); ok {
				if _, isConst := c.info.Uses[id].(*types.Const); isConst {
					return fmt.Sprintf("%s is a constant: declare it with var %s = ... to change it", name, name)
				}
			}
		}
	case reConvertIndex.MatchString(msg):
		if ix := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.IndexExpr); return ok }); ix != nil {
			ie := ix.(*ast.IndexExpr)
			if h := c.sliceIndexHint(ie.Pos()); h != "" {
				return h
			}
			if t := c.info.Types[ie.X].Type; t != nil {
				if _, ok := t.Underlying().(*types.Slice); ok {
					xs := c.text(ie.X)
					return fmt.Sprintf("%s is a slice, indexed by position: to find an element by a field, range over it: for _, x := range %s { if x.<Field> == %s { ... } }", xs, xs, c.text(ie.Index))
				}
			}
		}
	case reMissingKey.MatchString(msg):
		if x := outerExpr(at); x != nil {
			return fmt.Sprintf("a map literal takes key: value pairs: write %s: <value>", c.text(x))
		}
	case reErrorConvert.MatchString(msg):
		if x := outerExpr(at); x != nil {
			if b, ok := parents[x].(*ast.BinaryExpr); ok {
				other := b.X
				if other == x {
					other = b.Y
				}
				os := c.text(other)
				return fmt.Sprintf("an error is not a string: compare %s.Error() == %s, or strings.Contains(%s.Error(), %s) (after checking %s != nil)", os, c.text(x), os, c.text(x), os)
			}
		}
	case reAppendString.MatchString(msg):
		m := reAppendString.FindStringSubmatch(msg)
		v := m[1]
		if x := outerExpr(at); x != nil {
			switch t := c.info.Types[x].Type; {
			case t == nil:
			case isString(t):
				return fmt.Sprintf("%s is a string: write %s += ... (or collect the parts in a []string and strings.Join them)", v, v)
			default:
				if mt, ok := t.Underlying().(*types.Map); ok {
					key, val := "key", "value"
					if call, ok := parents[x].(*ast.CallExpr); ok && len(call.Args) == 2 {
						key = c.text(call.Args[1])
					}
					if types.Identical(mt.Elem(), types.Typ[types.Bool]) {
						val = "true"
					}
					return fmt.Sprintf("%s is a map: set an entry, %s[%s] = %s", v, v, key, val)
				}
			}
		}
	case reSliceCompare.MatchString(msg):
		m := reSliceCompare.FindStringSubmatch(msg)
		return fmt.Sprintf("compare the elements: %ss.Equal(%s, %s) (import \"%ss\")", m[3], m[1], m[2], m[3])
	case reLenStruct.MatchString(msg):
		if x := outerExpr(at); x != nil {
			h, _, _ := strings.Cut(c.rangeStructHint(x), ", or decode")
			return strings.Replace(h, ": range over ", ": take the len of ", 1)
		}
	case reNotFunc.MatchString(msg):
		m := reNotFunc.FindStringSubmatch(msg)
		if x := outerExpr(at); x != nil {
			if call, ok := x.(*ast.CallExpr); ok {
				x = call.Fun
			}
			if h := c.shadowHint(x); h != "" {
				return h
			}
			if sel, ok := x.(*ast.SelectorExpr); ok {
				if v, ok := c.info.Uses[sel.Sel].(*types.Var); ok && v.IsField() {
					return fmt.Sprintf("%s is a field (%s), not a method: write %s without the ()", m[1], m[3], m[1])
				}
			}
		}
		return fmt.Sprintf("%s is %s %s, not a function: write %s without the ()", m[1], article(m[3]), m[3], m[1])
	case reNotExpr.MatchString(msg):
		t := reNotExpr.FindStringSubmatch(msg)[1]
		switch {
		case strings.HasPrefix(t, "map["):
			return fmt.Sprintf("a type is not a value: write an empty one, %s{}, or make(%s)", t, t)
		case strings.HasPrefix(t, "[]"):
			return fmt.Sprintf("a type is not a value: write an empty one, %s{}, or make(%s, 0, n)", t, t)
		default:
			return fmt.Sprintf("a type is not a value: write a value of it, %s{...}, or declare one, var v %s", t, t)
		}
	case reMapFieldAsgn.MatchString(msg):
		m := reMapFieldAsgn.FindStringSubmatch(msg)
		return fmt.Sprintf("a struct in a map cannot be changed in place: copy it out, change it, store it back (v := %s[%s]; v.%s = ...; %s[%s] = v), or make the map hold pointers (map[K]*T)", m[1], m[2], m[3], m[1], m[2])
	case reNotConstant.MatchString(msg):
		if vs, ok := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.ValueSpec); return ok }).(*ast.ValueSpec); ok && len(vs.Names) > 0 {
			return fmt.Sprintf("only numbers, strings and bools can be constants: declare it with var %s = %s", vs.Names[0].Name, reNotConstant.FindStringSubmatch(msg)[1])
		}
	case reNotUsed.MatchString(msg):
		if x := outerExpr(at); x != nil {
			if sig, ok := c.info.Types[x].Type.(*types.Signature); ok && sig.Params().Len() == 0 {
				return fmt.Sprintf("it is a function, which does nothing until called: %s()", c.text(x))
			}
			if call, ok := ast.Unparen(x).(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "append" && len(call.Args) > 0 {
					return fmt.Sprintf("append returns the longer slice: assign it, %s = %s", c.text(call.Args[0]), c.text(call))
				}
				if len(call.Args) > 0 && isString(c.info.Types[call].Type) {
					if id, ok := call.Args[0].(*ast.Ident); ok {
						return fmt.Sprintf("it returns a new string and changes nothing: assign it, %s = %s", id.Name, c.text(call))
					}
				}
				return fmt.Sprintf("assign its result: v := %s", c.text(call))
			}
		}
	case reNoValue.MatchString(msg):
		if call, ok := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.CallExpr); return ok }).(*ast.CallExpr); ok && len(call.Args) > 0 {
			return fmt.Sprintf("%s returns nothing: it changes %s in place; call it on its own line, then use %s", c.text(call.Fun), c.text(call.Args[0]), c.text(call.Args[0]))
		}
		return "it returns nothing: call it on its own line"
	case reNonLocalMethod.MatchString(msg):
		if fd, ok := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.FuncDecl); return ok }).(*ast.FuncDecl); ok && fd.Recv != nil && len(fd.Recv.List) == 1 {
			t := reNonLocalMethod.FindStringSubmatch(msg)[1]
			name := strings.ToLower(fd.Name.Name[:1]) + fd.Name.Name[1:]
			recv := "v"
			if len(fd.Recv.List[0].Names) > 0 {
				recv = fd.Recv.List[0].Names[0].Name
			}
			return fmt.Sprintf("methods can only be declared on the snippet's own types: write a function, func %s(%s %s) ..., called as %s(x), or declare a type of your own, type myT %s", name, recv, t, name, t)
		}
	case reStringAssign.MatchString(msg):
		m := reStringAssign.FindStringSubmatch(msg)
		if ix, ok := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.IndexExpr); return ok }).(*ast.IndexExpr); ok {
			if t := c.info.Types[ix.X].Type; t != nil && isString(t) {
				return fmt.Sprintf("strings cannot be changed in place: convert, b := []byte(%s) (or []rune for non-ASCII), set b[%s], then %s = string(b)", m[1], m[2], m[1])
			}
		}
		if h := c.mapArrayAssignHint(te.Pos); h != "" {
			return h
		}
	case reNilAs.MatchString(msg):
		return c.nilAsHint(te.Pos)
	case reCaseMismatch.MatchString(msg):
		return c.caseHint(reCaseMismatch.FindStringSubmatch(msg))
	case reAddrConst.MatchString(msg):
		v := reAddrConst.FindStringSubmatch(msg)[1]
		return fmt.Sprintf("a constant has no address: write mcp.Ptr(%s)%s", v, c.mcpImport())
	case reNotIface.MatchString(msg):
		return c.assertHint(te.Pos)
	case reNonVariadic.MatchString(msg):
		if call := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.CallExpr); return ok }); call != nil {
			ce := call.(*ast.CallExpr)
			return fmt.Sprintf("%s takes the slice itself: write %s(%s) without the ...", c.text(ce.Fun), c.text(ce.Fun), c.argList(ce))
		}
	case reTruncated.MatchString(msg):
		return c.truncatedHint(te.Pos)
	case reNotSatisfy.MatchString(msg):
		return c.orderedHint(te.Pos)
	case reBreak.MatchString(msg):
		return "it is not inside a loop: to leave the function, return"
	case reReturnCount.MatchString(msg):
		if r := c.enclosing(te.Pos, func(n ast.Node) bool { _, ok := n.(*ast.ReturnStmt); return ok }); r != nil {
			return c.returnHint(r.(*ast.ReturnStmt))
		}
	case reIndexInt.MatchString(msg):
		if h := c.sliceIndexHint(te.Pos); h != "" {
			return h
		}
		if x := outerExpr(at); x != nil {
			return fmt.Sprintf("convert it: int(%s)", c.text(x))
		}
	case reNoNewVars.MatchString(msg):
		return "they are all declared already: assign with = instead of :="
	case reUnused.MatchString(msg):
		return c.unusedHint(te.Pos, parents, reUnused.FindStringSubmatch(msg)[1])
	}
	return ""
}

// outerExpr is the outermost expression among the nodes at a position.
func outerExpr(at []ast.Node) ast.Expr {
	for _, n := range at {
		if x, ok := n.(ast.Expr); ok {
			if _, isKV := x.(*ast.KeyValueExpr); !isKV {
				return x
			}
		}
	}
	return nil
}

// enclosing returns the innermost node of the snippet that contains pos
// and satisfies ok.
func (c *checker) enclosing(pos token.Pos, ok func(ast.Node) bool) ast.Node {
	var found ast.Node
	ast.Inspect(c.file, func(n ast.Node) bool {
		if n == nil || pos < n.Pos() || pos > n.End() {
			return false
		}
		if ok(n) {
			found = n
		}
		return true
	})
	return found
}

// enclosingSignature is the signature of the innermost function (declared
// or literal) around pos, nil outside one or when it is not typed.
func (c *checker) enclosingSignature(pos token.Pos) *types.Signature {
	fn := c.enclosing(pos, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return true
		}
		return false
	})
	switch f := fn.(type) {
	case *ast.FuncDecl:
		if obj, ok := c.info.Defs[f.Name].(*types.Func); ok {
			return obj.Type().(*types.Signature)
		}
	case *ast.FuncLit:
		sig, _ := c.info.Types[f].Type.(*types.Signature)
		return sig
	}
	return nil
}

// text is the snippet's source of n.
func (c *checker) text(n ast.Node) string {
	tf := c.fset.File(n.Pos())
	if tf == nil {
		return ""
	}
	start, end := tf.Offset(n.Pos()), tf.Offset(n.End())
	if start < 0 || end > len(c.src) || start > end {
		return ""
	}
	return string(c.src[start:end])
}

func (c *checker) typeString(t types.Type) string { return types.TypeString(t, c.qualifier) }

// targetType is the type x should have had where it stands: a field of a
// struct literal, an argument, the right of an assignment, a return value.
func (c *checker) targetType(x ast.Expr, parents map[ast.Node]ast.Node) types.Type {
	switch p := parents[x].(type) {
	case *ast.KeyValueExpr:
		lit, ok := parents[p].(*ast.CompositeLit)
		if !ok {
			return nil
		}
		if mt, ok := deref(c.info.Types[lit].Type).Underlying().(*types.Map); ok {
			if p.Value == x {
				return mt.Elem()
			}
			return mt.Key()
		}
		key, ok := p.Key.(*ast.Ident)
		if !ok {
			return nil
		}
		if st, ok := deref(c.info.Types[lit].Type).Underlying().(*types.Struct); ok {
			for i := 0; i < st.NumFields(); i++ {
				if st.Field(i).Name() == key.Name {
					return st.Field(i).Type()
				}
			}
		}
	case *ast.CallExpr:
		sig, ok := c.info.Types[p.Fun].Type.(*types.Signature)
		if !ok {
			if tv, ok := c.info.Types[p.Fun]; ok && tv.IsType() {
				return tv.Type
			}
			return nil
		}
		for i, a := range p.Args {
			if a != x {
				continue
			}
			switch {
			case sig.Variadic() && i >= sig.Params().Len()-1:
				if s, ok := sig.Params().At(sig.Params().Len() - 1).Type().(*types.Slice); ok {
					return s.Elem()
				}
			case i < sig.Params().Len():
				return sig.Params().At(i).Type()
			}
		}
	case *ast.AssignStmt:
		for i, r := range p.Rhs {
			if r == x && i < len(p.Lhs) {
				return c.info.Types[p.Lhs[i]].Type
			}
		}
	case *ast.ValueSpec:
		if p.Type != nil {
			return c.info.Types[p.Type].Type
		}
	case *ast.IndexExpr:
		if t := c.info.Types[p.X].Type; t != nil && p.Index == x {
			if mt, ok := t.Underlying().(*types.Map); ok {
				return mt.Key()
			}
		}
	case *ast.ReturnStmt:
		sig := c.enclosingSignature(x.Pos())
		for i, r := range p.Results {
			if r == x && sig != nil && i < sig.Results().Len() {
				return sig.Results().At(i).Type()
			}
		}
	case *ast.CompositeLit:
		t := c.info.Types[p].Type
		if t == nil {
			return nil
		}
		switch u := t.Underlying().(type) {
		case *types.Slice:
			return u.Elem()
		case *types.Map:
			return u.Elem()
		}
	}
	return nil
}

func deref(t types.Type) types.Type {
	if t == nil {
		return types.Typ[types.Invalid]
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

func isNumeric(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsNumeric != 0
}

func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

func isString(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

func isUntyped(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsUntyped != 0
}

// fits reports whether a value of type from (untyped constants by their
// kind) can stand where a to is wanted.
func fits(from, to types.Type) bool {
	if types.AssignableTo(from, to) {
		return true
	}
	if isUntyped(from) {
		switch {
		case isNumeric(from) && isNumeric(to):
			return true
		case isString(from) && isString(to):
			return true
		}
	}
	return false
}

// mcpImport is what to add for mcp.Ptr when the snippet lacks the import.
func (c *checker) mcpImport() string {
	for _, im := range c.file.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == treePrefix+"mcp" {
			return ""
		}
	}
	return ` (and import "mcpfs/mcp")`
}

// convertHint says how to write x, of type from, where a to is wanted.
func (c *checker) convertHint(x ast.Expr, from, to types.Type) string {
	xs := c.text(x)
	toS := c.typeString(to)
	if sig, ok := from.(*types.Signature); ok && sig.Params().Len() == 0 && sig.Results().Len() == 1 && types.AssignableTo(sig.Results().At(0).Type(), to) {
		return "it is a method or function: call it, " + xs + "()"
	}
	if tp, ok := to.Underlying().(*types.Pointer); ok {
		elem := tp.Elem()
		inner, innerT := xs, from
		if tv := c.info.Types[x]; tv.Value != nil && isString(from) && isNumeric(elem) {
			// A number in quotes: "10" for a *float64.
			if n, err := strconv.ParseFloat(strings.Trim(tv.Value.ExactString(), `"`), 64); err == nil {
				inner, innerT = strconv.FormatFloat(n, 'f', -1, 64), types.Typ[types.UntypedInt]
				if n != float64(int64(n)) {
					innerT = types.Typ[types.UntypedFloat]
				}
			}
		}
		if fp, ok := from.Underlying().(*types.Pointer); ok {
			// A pointer of another type: mcp.Int(5) or &n for a *float64.
			if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
				inner, innerT = c.text(u.X), c.info.Types[u.X].Type
			} else if call, ok := x.(*ast.CallExpr); ok && len(call.Args) == 1 {
				inner, innerT = c.text(call.Args[0]), c.info.Types[call.Args[0]].Type
				// A converted constant, mcp.Ptr(int64(5)): the constant.
				if conv, ok := call.Args[0].(*ast.CallExpr); ok && len(conv.Args) == 1 && c.info.Types[conv.Fun].IsType() && c.info.Types[conv.Args[0]].Value != nil {
					inner = c.text(conv.Args[0])
				}
				if tv := c.info.Types[call.Args[0]]; tv.Value != nil && isNumeric(tv.Type) {
					innerT = types.Typ[types.UntypedInt] // a constant: mcp.Int(5)
					if tv.Value.Kind() == constant.Float {
						innerT = types.Typ[types.UntypedFloat]
					}
				}
			} else {
				inner, innerT = "*"+xs, fp.Elem()
			}
		}
		if innerT != nil && (fits(innerT, elem) || isNumeric(innerT) && isNumeric(elem)) {
			if b, ok := elem.Underlying().(*types.Basic); ok && b.Info()&types.IsFloat != 0 && innerT != nil && isInteger(innerT) {
				if isUntyped(innerT) {
					return fmt.Sprintf("optional fields are pointers: write mcp.Ptr(%s.0) (a %s; mcp.Ptr(%s) is a *int) or mcp.Float(%s)%s", inner, toS, inner, inner, c.mcpImport())
				}
				return fmt.Sprintf("optional fields are pointers: write mcp.Float(float64(%s))%s", inner, c.mcpImport())
			}
			if !types.Identical(innerT, elem) && !isUntyped(innerT) {
				return fmt.Sprintf("optional fields are pointers: write mcp.Ptr(%s(%s))%s", c.typeString(elem), inner, c.mcpImport())
			}
			if isInteger(elem) && isUntyped(innerT) && !isInteger(innerT) {
				if f, err := strconv.ParseFloat(inner, 64); err == nil {
					return fmt.Sprintf("the field is a %s: write mcp.Ptr(%d)%s", toS, int64(f), c.mcpImport())
				}
			}
			return fmt.Sprintf("optional fields are pointers: write mcp.Ptr(%s)%s", inner, c.mcpImport())
		}
	}
	if fp, ok := from.Underlying().(*types.Pointer); ok && fits(fp.Elem(), to) {
		if call, ok := x.(*ast.CallExpr); ok && len(call.Args) == 1 {
			if at := c.info.Types[call.Args[0]].Type; at != nil && fits(at, to) {
				v := c.text(call.Args[0])
				if kv, ok := c.enclosing(x.Pos(), func(n ast.Node) bool { kv, ok := n.(*ast.KeyValueExpr); return ok && kv.Value == x }).(*ast.KeyValueExpr); ok {
					v = c.text(kv.Key) + ": " + v
				}
				return fmt.Sprintf("a required field is a plain %s, not a pointer: write %s%s", toS, v, c.lastUseNote(call.Fun))
			}
		}
		if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
			return fmt.Sprintf("drop the &: pass the %s value itself, %s", toS, c.text(u.X))
		}
		return fmt.Sprintf("%s is a pointer: write *%s (after checking %s != nil)", xs, xs, xs)
	}
	if isByteSlice(to) && isString(from) {
		return fmt.Sprintf("convert it: []byte(%s), or use the strings package's function", xs)
	}
	if isString(to) && isByteSlice(from) {
		return fmt.Sprintf("convert it: string(%s)", xs)
	}
	if _, ok := to.Underlying().(*types.Map); ok {
		return fmt.Sprintf("a %s is a map: write %s{key: value, ...}", toS, toS)
	}
	if ts, ok := to.Underlying().(*types.Slice); ok && fits(from, ts.Elem()) {
		return fmt.Sprintf("a %s holds several: write %s{%s}", toS, toS, xs)
	}
	if named, ok := to.(*types.Named); ok {
		if h := c.enumPointerHint(x, from, named); h != "" {
			return h
		}
	}
	if named, ok := to.(*types.Named); ok && isString(to) && isString(from) && !isUntyped(from) {
		consts := constantsOf(named)
		h := fmt.Sprintf("convert it: %s(%s)", toS, xs)
		if len(consts) > 0 {
			h += ", or use one of its constants: " + strings.Join(c.qualified(named, consts), ", ")
		}
		return h
	}
	if isString(to) && !isString(from) && isNumeric(from) {
		if isInteger(from) {
			return fmt.Sprintf("a number is not a string: write strconv.Itoa(%s)%s or fmt.Sprint(%s)", xs, c.importNote("strconv"), xs)
		}
		return fmt.Sprintf("a number is not a string: write fmt.Sprint(%s) or strconv.FormatFloat(%s, 'f', -1, 64)", xs, xs)
	}
	if isNumeric(to) && isNumeric(from) && !isUntyped(from) {
		return fmt.Sprintf("convert it: %s(%s)", toS, xs)
	}
	if isNumeric(to) && isString(from) {
		if isUntyped(from) {
			return fmt.Sprintf("it wants %s %s: write the number without the quotes (strconv.Atoi converts a string variable)", article(toS), toS)
		}
		return fmt.Sprintf("the field is a %s: parse the string first (strconv.ParseFloat / strconv.Atoi)", toS)
	}
	if fs, ok := from.(*types.Signature); ok {
		if ts, ok := to.Underlying().(*types.Signature); ok && !types.Identical(fs, ts) {
			return fmt.Sprintf("it wants a %s", c.sigString(ts))
		}
	}
	if isString(from) && types.Identical(to, types.Universe.Lookup("error").Type()) {
		return fmt.Sprintf("a string is not an error: compare the message, strings.Contains(err.Error(), %s), or make an error, errors.New(%s)", xs, xs)
	}
	if h := c.constructorHint(from, to); h != "" {
		return h
	}
	if _, ok := to.Underlying().(*types.Struct); ok && types.ConvertibleTo(from, to) {
		return fmt.Sprintf("the two types have the same fields: convert it, %s(%s)", toS, xs)
	}
	if h := c.methodHint(xs, from, to); h != "" {
		return h
	}
	if sl, ok := from.Underlying().(*types.Slice); ok && fits(sl.Elem(), to) {
		if call, ok := c.enclosing(x.Pos(), func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			return ok && slices.Contains(call.Args, x)
		}).(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "append" && call.Ellipsis == token.NoPos {
				return fmt.Sprintf("to append all its elements, spread it: %s...", xs)
			}
		}
	}
	if h := c.slicesHint(x, from); h != "" {
		return h
	}
	if s, ok := from.Underlying().(*types.Slice); ok && isString(s.Elem()) && isString(to) {
		sep := `", "`
		if kv, ok := c.enclosing(x.Pos(), func(n ast.Node) bool { kv, ok := n.(*ast.KeyValueExpr); return ok && kv.Value == x }).(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && textField(id.Name) {
				sep = `"\n"`
			}
		}
		return fmt.Sprintf("a %s is several strings: write strings.Join(%s, %s) (or pick one, %s[0])", c.typeString(from), xs, sep, xs)
	}
	if h := c.siblingHint(x, from); h != "" {
		return h
	}
	if ts, ok := to.Underlying().(*types.Slice); ok {
		if est, ok := ts.Elem().Underlying().(*types.Struct); ok {
			return fmt.Sprintf("a %s is a list of structs: write %s{%s, ...}", toS, toS, strings.TrimPrefix(c.exampleLiteral(ts.Elem(), est, nil, false), c.typeString(ts.Elem())))
		}
	}
	if st, ok := to.Underlying().(*types.Struct); ok {
		if _, isNamed := to.(*types.Named); isNamed {
			fit := isUntyped(from)
			if req := requiredFields(st); len(req) > 0 && types.AssignableTo(from, req[0].Type()) {
				fit = true // the value is the first field's: Relations: rels
			}
			return fmt.Sprintf("pass a %s: write %s", toS, c.exampleLiteral(to, st, []string{xs}, fit))
		}
	}
	return ""
}

// methodHint names the methods of from that give a to: a result type's
// Text() for a string, Decode(&v) for JSON.
func (c *checker) methodHint(xs string, from, to types.Type) string {
	ms := types.NewMethodSet(from)
	var ways []string
	for i := 0; i < ms.Len(); i++ {
		fn, ok := ms.At(i).Obj().(*types.Func)
		if !ok || !fn.Exported() {
			continue
		}
		sig := fn.Type().(*types.Signature)
		if sig.Results().Len() == 0 {
			continue
		}
		res := sig.Results().At(0).Type()
		switch {
		case sig.Params().Len() == 0 && sig.Results().Len() == 1 && types.AssignableTo(res, to):
			ways = append(ways, fmt.Sprintf("%s.%s()", xs, fn.Name()))
		case sig.Params().Len() == 0 && sig.Results().Len() == 1 && isString(res) && isByteSlice(to):
			ways = append(ways, fmt.Sprintf("[]byte(%s.%s())", xs, fn.Name()))
		case sig.Params().Len() == 0 && sig.Results().Len() == 1 && isString(res) && isNumeric(to):
			ways = append(ways, fmt.Sprintf("strconv.Atoi(%s.%s())", xs, fn.Name()))
		case sig.Params().Len() == 1 && isEmptyInterface(sig.Params().At(0).Type()) && sig.Results().Len() == 1:
			ways = append(ways, fmt.Sprintf("%s.%s(&v) to decode it into v directly", xs, fn.Name()))
		}
	}
	if st, ok := deref(from).Underlying().(*types.Struct); ok && len(ways) == 0 {
		for i := 0; i < st.NumFields(); i++ {
			if f := st.Field(i); f.Exported() && types.AssignableTo(f.Type(), to) {
				ways = append(ways, xs+"."+f.Name())
			}
		}
		if len(ways) > 0 {
			return fmt.Sprintf("%s %s is not %s %s: use one of its fields, %s", article(c.typeString(from)), c.typeString(from), article(c.typeString(to)), c.typeString(to), strings.Join(ways, ", "))
		}
	}
	if len(ways) == 0 {
		return ""
	}
	return fmt.Sprintf("%s %s is not %s %s: write %s", article(c.typeString(from)), c.typeString(from), article(c.typeString(to)), c.typeString(to), strings.Join(ways, ", or "))
}

func isByteSlice(t types.Type) bool {
	s, ok := t.Underlying().(*types.Slice)
	if !ok {
		return false
	}
	b, ok := s.Elem().Underlying().(*types.Basic)
	return ok && b.Kind() == types.Byte
}

func isEmptyInterface(t types.Type) bool {
	i, ok := t.Underlying().(*types.Interface)
	return ok && i.Empty()
}

// constantsOf returns the names of the constants of type named declared
// in its package.
func constantsOf(named *types.Named) []string {
	pkg := named.Obj().Pkg()
	if pkg == nil {
		return nil
	}
	var out []string
	for _, n := range pkg.Scope().Names() {
		if k, ok := pkg.Scope().Lookup(n).(*types.Const); ok && k.Exported() && types.Identical(k.Type(), named) {
			out = append(out, n)
		}
	}
	return out
}

// qualified writes names of named's package as the snippet would.
func (c *checker) qualified(named *types.Named, names []string) []string {
	q := c.qualifier(named.Obj().Pkg())
	out := make([]string, len(names))
	for i, n := range names {
		if q != "" {
			n = q + "." + n
		}
		out[i] = n
	}
	return out
}

// requiredFields returns the fields of st that a call must set: exported,
// without omitempty in their json tag.
func requiredFields(st *types.Struct) []*types.Var {
	var out []*types.Var
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Exported() {
			continue
		}
		tag := reflect.StructTag(st.Tag(i)).Get("json")
		if strings.Contains(tag, ",omitempty") || tag == "-" {
			continue
		}
		out = append(out, f)
	}
	return out
}

// exampleLiteral writes a literal of the struct type t (underlying st):
// its required fields, the values given put into them in order (as far
// as their types allow), "..." for the others.
func (c *checker) exampleLiteral(t types.Type, st *types.Struct, values []string, valuesFit bool) string {
	req := requiredFields(st)
	var parts []string
	for i, f := range req {
		v := "..."
		if valuesFit && i < len(values) {
			v = values[i]
		}
		parts = append(parts, f.Name()+": "+v)
	}
	lit := c.typeString(t) + "{" + strings.Join(parts, ", ") + "}"
	if len(req) < st.NumFields() {
		lit += " (" + fieldsHint(t, c.qualifier, "") + ")"
	}
	return lit
}

// unkeyedHint: an unkeyed struct literal, whose values went into the
// wrong fields: name them.
func (c *checker) unkeyedHint(x ast.Expr, parents map[ast.Node]ast.Node) string {
	lit, ok := parents[x].(*ast.CompositeLit)
	if !ok {
		return ""
	}
	st, ok := c.info.Types[lit].Type.Underlying().(*types.Struct)
	if !ok {
		return ""
	}
	// Naming the fields helps only when the value fits another field it
	// was meant for; a value that fits none needs converting instead.
	if from := c.info.Types[x].Type; from != nil {
		fits := false
		for i := 0; i < st.NumFields(); i++ {
			if i < len(lit.Elts) && lit.Elts[i] == x {
				continue
			}
			if types.AssignableTo(from, st.Field(i).Type()) {
				fits = true
				break
			}
		}
		if !fits {
			for i, e := range lit.Elts {
				if e == x && i < st.NumFields() {
					return numericConvertHint(c, x, from, st.Field(i).Type())
				}
			}
			return ""
		}
	}
	return c.namedFieldsHint(lit)
}

// namedFieldsHint rewrites an unkeyed struct literal with field names.
func (c *checker) namedFieldsHint(lit *ast.CompositeLit) string {
	t := c.info.Types[lit].Type
	if t == nil {
		return ""
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return ""
	}
	var values []string
	for _, e := range lit.Elts {
		if _, kv := e.(*ast.KeyValueExpr); kv {
			return ""
		}
		values = append(values, c.text(e))
	}
	return "name the fields: " + c.exampleLiteral(t, st, values, true)
}

// binaryHint says how to make the operands of b agree.
func (c *checker) binaryHint(b *ast.BinaryExpr) string {
	xt, yt := c.info.Types[b.X].Type, c.info.Types[b.Y].Type
	if xt == nil || yt == nil {
		return ""
	}
	xs, ys := c.text(b.X), c.text(b.Y)
	if h := c.nilCompareHint(b); h != "" {
		return h
	}
	if h := c.receiverCompareHint(b); h != "" {
		return h
	}
	// A non-bool operand of && or ||.
	if b.Op == token.LAND || b.Op == token.LOR {
		for _, x := range []ast.Expr{b.X, b.Y} {
			if t := c.info.Types[x].Type; t != nil && t.Underlying() != types.Typ[types.Bool] && t.Underlying() != types.Typ[types.UntypedBool] {
				if h := c.condHint(x); h != "" {
					return h
				}
			}
		}
	}
	// A func value (a method not called) used as a value.
	for _, x := range []ast.Expr{b.X, b.Y} {
		if h := c.funcValueHint(x); h != "" {
			return h
		}
	}
	// A number against a slice, map or string: its length.
	for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		if t := c.info.Types[p[0]].Type; t != nil && isNumeric(t) {
			switch c.info.Types[p[1]].Type.Underlying().(type) {
			case *types.Slice, *types.Map, *types.Chan:
				return fmt.Sprintf("%s is a %s: compare with its length, len(%s)", c.text(p[1]), c.typeString(c.info.Types[p[1]].Type), c.text(p[1]))
			}
		}
	}
	// []byte with a string.
	for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		if t := c.info.Types[p[0]].Type; t != nil && isByteSlice(t) && isString(c.info.Types[p[1]].Type) {
			return fmt.Sprintf("%s is a []byte: convert it, string(%s)", c.text(p[0]), c.text(p[0]))
		}
	}
	// A nil comparison of a struct value.
	for _, p := range [][2]types.Type{{xt, yt}, {yt, xt}} {
		if b, ok := p[1].(*types.Basic); ok && b.Kind() == types.UntypedNil {
			if _, ok := p[0].Underlying().(*types.Struct); ok {
				return fmt.Sprintf("a %s is a struct value, never nil: check the error the call returned instead (if err != nil)", c.typeString(p[0]))
			}
		}
	}
	// A pointer against a value.
	if p, ok := xt.Underlying().(*types.Pointer); ok && fits(yt, p.Elem()) {
		return fmt.Sprintf("%s is a pointer: write *%s (after checking %s != nil)", xs, xs, xs)
	}
	if p, ok := yt.Underlying().(*types.Pointer); ok && fits(xt, p.Elem()) {
		return fmt.Sprintf("%s is a pointer: write *%s (after checking %s != nil)", ys, ys, ys)
	}
	// A bool compared with "true".
	for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		if t := c.info.Types[p[0]].Type; t != nil && t.Underlying() == types.Typ[types.Bool] && isString(c.info.Types[p[1]].Type) {
			return fmt.Sprintf("%s is a bool: write %s or !%s", c.text(p[0]), c.text(p[0]), c.text(p[0]))
		}
	}
	// A string compared with a bool: the text "true", or the string parsed.
	for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		tv := c.info.Types[p[1]]
		if t := c.info.Types[p[0]].Type; t != nil && isString(t) && tv.Value != nil && tv.Value.Kind() == constant.Bool && (b.Op == token.EQL || b.Op == token.NEQ) {
			return fmt.Sprintf("%s is a string: compare it with the text, %s %s %q, or parse it, strconv.ParseBool(%s)%s", c.text(p[0]), c.text(p[0]), b.Op, tv.Value.ExactString(), c.text(p[0]), c.importNote("strconv"))
		}
	}
	for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		if n, ok := types.Unalias(c.info.Types[p[0]].Type).(*types.Named); ok && (b.Op == token.EQL || b.Op == token.NEQ) && isString(n) && !types.Identical(xt, yt) {
			if consts := constantsOf(n); len(consts) > 0 && len(consts) <= 12 {
				return fmt.Sprintf("%s is a %s: compare it with one of its constants, %s", c.text(p[0]), c.typeString(n), strings.Join(c.qualified(n, consts), ", "))
			}
		}
	}
	for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		if sl, ok := c.info.Types[p[0]].Type.Underlying().(*types.Slice); ok && isString(sl.Elem()) && isString(c.info.Types[p[1]].Type) {
			return fmt.Sprintf("%s is several strings: write strings.Join(%s, \", \")", c.text(p[0]), c.text(p[0]))
		}
	}
	for _, p := range [][2]types.Type{{xt, yt}, {yt, xt}} {
		if p[0] == types.Universe.Lookup("rune").Type() && isString(p[1]) {
			return "ranging over a string gives runes: compare with a rune literal ('a'), or split the string first (strings.Split(s, \"\\n\"), strings.Fields(s))"
		}
	}
	for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		tv := c.info.Types[p[1]]
		if t := c.info.Types[p[0]].Type; t != nil && isString(t) && tv.Value != nil && isNumeric(tv.Type) {
			if b.Op == token.ADD {
				h := fmt.Sprintf("a string and a number do not add: write the number as text, \"%s\"", tv.Value.ExactString())
				if inner, ok := ast.Unparen(b.X).(*ast.BinaryExpr); ok && p[0] == b.X {
					if call, ok := ast.Unparen(inner.Y).(*ast.CallExpr); ok && len(call.Args) == 1 && isString(c.info.Types[call].Type) && isNumeric(c.info.Types[call.Args[0]].Type) {
						h += fmt.Sprintf(", or add before converting, %s(%s + %s)", c.text(call.Fun), c.text(call.Args[0]), c.text(p[1]))
					}
				}
				return h
			}
			parse := fmt.Sprintf("n, err := strconv.Atoi(%s)", c.text(p[0]))
			if b, ok := tv.Type.Underlying().(*types.Basic); ok && b.Info()&types.IsFloat != 0 {
				parse = fmt.Sprintf("n, err := strconv.ParseFloat(%s, 64)", c.text(p[0]))
			}
			if b.Op != token.EQL && b.Op != token.NEQ {
				// Strings order as text ("9" > "17"): only a number compares.
				return fmt.Sprintf("%s is a string, and strings order as text (\"9\" > \"17\"): convert it first, %s, then compare n %s %s", c.text(p[0]), parse, b.Op, c.text(p[1]))
			}
			return fmt.Sprintf("%s is a string: compare it with a string, %q, or convert it first, %s", c.text(p[0]), tv.Value.ExactString(), parse)
		}
	}
	for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		tv := c.info.Types[p[1]]
		if t := c.info.Types[p[0]].Type; t != nil && isInteger(t) && tv.Value != nil && tv.Value.Kind() == constant.Bool && (b.Op == token.EQL || b.Op == token.NEQ) {
			h := fmt.Sprintf("%s is an int, not a bool: compare it with a number, %s == 0", c.text(p[0]), c.text(p[0]))
			if call, ok := ast.Unparen(p[0]).(*ast.CallExpr); ok && len(call.Args) == 2 {
				if fn := c.calleeFunc(call); fn != nil && strings.HasPrefix(fn.Name(), "Compare") {
					h = fmt.Sprintf("%s returns -1, 0 or +1 (0 when equal): write %s == 0, or simply %s == %s", c.text(call.Fun), c.text(call), c.text(call.Args[0]), c.text(call.Args[1]))
				}
			}
			return h
		}
	}
	switch {
	case isString(xt) && isNumeric(yt):
		return fmt.Sprintf("a number is not a string: write strconv.Itoa(%s)%s or fmt.Sprint(%s)", ys, c.importNote("strconv"), ys)
	case isNumeric(xt) && isString(yt):
		return fmt.Sprintf("a number is not a string: write strconv.Itoa(%s)%s or fmt.Sprint(%s)", xs, c.importNote("strconv"), xs)
	case isNumeric(xt) && isNumeric(yt):
		// Convert the plain one to the named one (time.Duration), else
		// the integer to the float.
		_, xNamed := xt.(*types.Named)
		_, yNamed := yt.(*types.Named)
		switch {
		case yNamed && !xNamed, !xNamed && !yNamed && isInteger(xt) && !isInteger(yt):
			return fmt.Sprintf("convert one side: %s(%s)", c.typeString(yt), xs)
		default:
			return fmt.Sprintf("convert one side: %s(%s)", c.typeString(xt), ys)
		}
	}
	return ""
}

// enclosingAssign is the assignment or var declaration around pos, or nil.
func (c *checker) enclosingAssign(pos token.Pos) ast.Node {
	return c.enclosing(pos, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.AssignStmt, *ast.ValueSpec:
			return true
		}
		return false
	})
}

// assignCountHint: one variable for a call that also returns an error.
func (c *checker) assignCountHint(pos token.Pos, m []string) string {
	n := c.enclosingAssign(pos)
	var lhs []string
	var rhs ast.Expr
	tok := "="
	switch s := n.(type) {
	case *ast.AssignStmt:
		for _, l := range s.Lhs {
			lhs = append(lhs, c.text(l))
		}
		if len(s.Rhs) == 1 {
			rhs = s.Rhs[0]
		}
		tok = s.Tok.String()
	case *ast.ValueSpec:
		for _, l := range s.Names {
			lhs = append(lhs, l.Name)
		}
		if len(s.Values) == 1 {
			rhs = s.Values[0]
		}
	}
	if rhs == nil {
		return ""
	}
	tup, ok := c.info.Types[rhs].Type.(*types.Tuple)
	if !ok {
		if t := c.info.Types[rhs].Type; t != nil && len(lhs) > 1 {
			name := lhs[len(lhs)-1]
			if types.Identical(t, types.Universe.Lookup("error").Type()) {
				name = "err"
			}
			return fmt.Sprintf("%s returns one value (%s): write %s %s %s", m[2], c.typeString(t), name, tok, c.text(rhs))
		}
		return ""
	}
	if tup.Len() <= len(lhs) {
		return ""
	}
	var names []string
	names = append(names, lhs...)
	cleanup := ""
	for i := len(lhs); i < tup.Len(); i++ {
		switch sig, isFunc := tup.At(i).Type().Underlying().(*types.Signature); {
		case types.Identical(tup.At(i).Type(), types.Universe.Lookup("error").Type()):
			names = append(names, "err")
		case types.Identical(tup.At(i).Type(), types.Typ[types.Bool]):
			names = append(names, "ok")
		case isFunc && sig.Params().Len() == 0 && sig.Results().Len() == 0:
			// A func() returned beside the value releases it: cancel.
			n := tup.At(i).Name()
			if n == "" || n == "_" {
				n = "cancel"
			}
			names = append(names, n)
			cleanup = n
		default:
			names = append(names, "_")
		}
	}
	if call, ok := rhs.(*ast.CallExpr); ok {
		if fn, ok := c.info.Uses[calleeIdent(call.Fun)].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "fmt" && strings.HasPrefix(fn.Name(), "Print") {
			sname := "S" + strings.ToLower(fn.Name()[:1]) + fn.Name()[1:]
			return fmt.Sprintf("fmt.%s prints; fmt.%s returns the string: %s %s fmt.%s(...)", fn.Name(), sname, strings.Join(lhs, ", "), tok, sname)
		}
	}
	rs := c.text(rhs)
	if call, ok := rhs.(*ast.CallExpr); ok {
		if f := c.filledCall(call); f != "" {
			rs = f // the call also leaves out arguments: one fix for both
		}
	}
	h := fmt.Sprintf("%s returns %d values: write %s %s %s", m[2], tup.Len(), strings.Join(names, ", "), tok, rs)
	if cleanup != "" {
		h += fmt.Sprintf(", then defer %s()", cleanup)
	}
	switch names[len(names)-1] {
	case "err":
		h += ", then check err"
	case "ok":
		h += ", then check ok"
	}
	return h
}

// argsHint: a generated function takes one Args struct.
func (c *checker) argsHint(call *ast.CallExpr) string {
	sig, ok := c.info.Types[call.Fun].Type.(*types.Signature)
	if !ok {
		return ""
	}
	var st *types.Struct
	if sig.Params().Len() == 1 {
		st, _ = sig.Params().At(0).Type().Underlying().(*types.Struct)
	}
	if st == nil {
		// Any other function: its parameters, with their names.
		params := make([]string, sig.Params().Len())
		for i := range params {
			p := sig.Params().At(i)
			ts := c.typeString(p.Type())
			if sig.Variadic() && i == len(params)-1 {
				ts = "..." + strings.TrimPrefix(ts, "[]")
			}
			params[i] = strings.TrimSpace(p.Name() + " " + ts)
		}
		h := fmt.Sprintf("%s takes (%s)", c.text(call.Fun), strings.Join(params, ", "))
		if s := c.stdArgCountHint(call); s != "" {
			h += "\n" + s
		}
		return h
	}
	t := sig.Params().At(0).Type()
	var values []string
	fit := true
	req := requiredFields(st)
	for i, a := range call.Args {
		values = append(values, c.text(a))
		if at := c.info.Types[a].Type; i < len(req) && (at == nil || !fits(at, req[i].Type())) {
			fit = false
		}
	}
	return fmt.Sprintf("it takes one %s: write %s(%s)", c.typeString(t), c.text(call.Fun), c.exampleLiteral(t, st, values, fit && len(values) > 0))
}

// indexStructHint: a struct indexed like a map: name its fields.
func (c *checker) indexStructHint(ix *ast.IndexExpr) string {
	t := c.info.Types[ix.X].Type
	if t == nil {
		return ""
	}
	st, ok := deref(t).Underlying().(*types.Struct)
	if !ok {
		return ""
	}
	key := ""
	if bl, ok := ix.Index.(*ast.BasicLit); ok && bl.Kind == token.STRING {
		key, _ = strconv.Unquote(bl.Value)
	}
	var names []string
	for i := 0; i < st.NumFields(); i++ {
		if st.Field(i).Exported() {
			names = append(names, st.Field(i).Name())
		}
	}
	xs := c.text(ix.X)
	var sels []string
	for _, n := range closest(key, names) {
		if !strings.HasPrefix(n, "...") {
			sels = append(sels, xs+"."+n)
		}
	}
	return fmt.Sprintf("%s is a struct, not a map: use its fields: %s", xs, strings.Join(sels, ", "))
}

// rangeStructHint: ranging over a struct: its slice and map fields, and
// a Decode method, are what can be ranged over.
func (c *checker) rangeStructHint(x ast.Expr) string {
	t := c.info.Types[x].Type
	if t == nil {
		return ""
	}
	st, ok := deref(t).Underlying().(*types.Struct)
	if !ok {
		return ""
	}
	xs := c.text(x)
	var ways []string
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Exported() {
			continue
		}
		switch f.Type().Underlying().(type) {
		case *types.Slice, *types.Map:
			if !isByteSlice(f.Type()) {
				ways = append(ways, xs+"."+f.Name())
			}
		}
	}
	if len(ways) == 0 {
		return ""
	}
	h := fmt.Sprintf("%s is a struct: range over %s", xs, strings.Join(ways, " or "))
	ms := types.NewMethodSet(t)
	for i := 0; i < ms.Len(); i++ {
		fn, ok := ms.At(i).Obj().(*types.Func)
		if !ok || !fn.Exported() {
			continue
		}
		if sig := fn.Type().(*types.Signature); sig.Params().Len() == 1 && isEmptyInterface(sig.Params().At(0).Type()) {
			h += fmt.Sprintf(", or decode it into a slice: %s.%s(&items)", xs, fn.Name())
		}
	}
	return h
}

// sliceFieldHint: x.F where x is a slice whose elements have F.
func (c *checker) sliceFieldHint(at []ast.Node, parents map[ast.Node]ast.Node) string {
	for _, n := range at {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			if sel, ok = parents[n].(*ast.SelectorExpr); !ok || sel.Sel != n {
				continue
			}
		}
		t := c.info.Types[sel.X].Type
		if t == nil {
			continue
		}
		if isString(t) {
			xs := c.text(sel.X)
			h := fmt.Sprintf("%s is a string: split it first, strings.Split(%s, \"\\n\") or strings.Fields(%s)", xs, xs, xs)
			// The struct it came from may have the field: doc.Text.Lines → doc.Lines.
			if inner, ok := sel.X.(*ast.SelectorExpr); ok {
				if it := c.info.Types[inner.X].Type; it != nil {
					if obj, _, _ := types.LookupFieldOrMethod(it, true, nil, sel.Sel.Name); obj != nil {
						h += fmt.Sprintf(", or %s.%s", c.text(inner.X), sel.Sel.Name)
					}
				}
			}
			return h
		}
		if mt, ok := t.Underlying().(*types.Map); ok && isString(mt.Key()) {
			xs := c.text(sel.X)
			return fmt.Sprintf("%s is a map (%s): index it, %s[%q] (with the key as the data spells it)", xs, c.typeString(t), xs, sel.Sel.Name)
		}
		s, ok := t.Underlying().(*types.Slice)
		if !ok {
			continue
		}
		obj, _, _ := types.LookupFieldOrMethod(s.Elem(), true, nil, sel.Sel.Name)
		if obj == nil {
			continue
		}
		xs := c.text(sel.X)
		return fmt.Sprintf("%s is a slice (%s): index it, %s[0].%s, or range over it", xs, c.typeString(t), xs, sel.Sel.Name)
	}
	return ""
}

// unusedHint: a range key never used is written _.
func (c *checker) unusedHint(pos token.Pos, parents map[ast.Node]ast.Node, name string) string {
	if r := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.RangeStmt); return ok }); r != nil {
		rs := r.(*ast.RangeStmt)
		if id, ok := rs.Key.(*ast.Ident); ok && id.Pos() == pos && rs.Value != nil {
			return fmt.Sprintf("write _ in its place: for _, %s := range %s", c.text(rs.Value), c.text(rs.X))
		}
	}
	if h := c.shadowedHint(pos, name); h != "" {
		return h
	}
	if h := c.cleanupUnusedHint(pos, name); h != "" {
		return h
	}
	if id, ok := c.enclosing(pos, func(n ast.Node) bool { id, ok := n.(*ast.Ident); return ok && id.Pos() == pos }).(*ast.Ident); ok {
		if obj := c.info.Defs[id]; obj != nil && types.Identical(obj.Type(), types.Universe.Lookup("error").Type()) {
			return fmt.Sprintf("look at the error: if %s != nil { fmt.Println(%s); continue or return }; or, to ignore it, write _ in its place", name, name)
		}
	}
	return fmt.Sprintf("use %s, or delete it (or write _ in its place)", name)
}

// stdMemberHint lists the closest names a standard package declares.
func (c *checker) stdMemberHint(pkg *types.Package, name string) string {
	if strings.HasPrefix(pkg.Path(), treePrefix) {
		return ""
	}
	var names []string
	for _, n := range pkg.Scope().Names() {
		if token.IsExported(n) {
			names = append(names, n)
		}
	}
	other := c.otherPackageMember(pkg, name)
	if as, ok := otherLanguageNames[pkg.Path()+"."+name]; ok {
		other = fmt.Sprintf("Go calls it %s\n", as) + other
	} else if other != "" {
		other += "\n"
	}
	near := closest(name, names)
	if len(near) > 5 {
		near = near[:5]
	}
	// The closest three with their signatures, in full.
	for i := range near {
		if i < 3 {
			near[i] = c.memberSig(pkg, near[i])
		}
	}
	h := other + fmt.Sprintf("closest in %s: %s", pkg.Path(), strings.Join(near, ", "))
	if pkg.Path() == "errors" {
		h += "\n(to add context to an error, wrap it: fmt.Errorf(\"...: %w\", err))"
	}
	return h
}

// article is "a" or "an" for the type name s.
func article(s string) string {
	s = strings.TrimLeft(s, "*[]")
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:]
	}
	if s != "" && strings.ContainsRune("aeiouAEIOU", rune(s[0])) {
		return "an"
	}
	return "a"
}

// siblingHint: x is an argument of a package function that wants another
// type; name the functions of that package that take x's type there
// (sort.Ints for a []int given to sort.Strings).
func (c *checker) siblingHint(x ast.Expr, from types.Type) string {
	call, ok := c.enclosing(x.Pos(), func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		return ok && slices.Contains(call.Args, x)
	}).(*ast.CallExpr)
	if !ok {
		return ""
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	fn, ok := c.info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Type().(*types.Signature).Recv() != nil {
		return ""
	}
	pos := slices.Index(call.Args, x)
	var fits []string
	for _, n := range fn.Pkg().Scope().Names() {
		f, ok := fn.Pkg().Scope().Lookup(n).(*types.Func)
		if !ok || !f.Exported() || f == fn {
			continue
		}
		sig := f.Type().(*types.Signature)
		if sig.Params().Len() != len(call.Args) || sig.TypeParams() != nil {
			continue
		}
		if pt := sig.Params().At(pos).Type(); types.AssignableTo(from, pt) && !types.IsInterface(pt) {
			fits = append(fits, c.text(sel.X)+"."+n)
		}
	}
	if len(fits) == 0 || len(fits) > 5 {
		return ""
	}
	return fmt.Sprintf("%s takes another type there; for a %s: %s", c.text(call.Fun), c.typeString(from), strings.Join(fits, ", "))
}

// returnHint writes a return with the values the function wants: those
// given where their types fit (from the end, where the error is), zero
// values for the rest.
func (c *checker) returnHint(r *ast.ReturnStmt) string {
	sig := c.enclosingSignature(r.Pos())
	if sig == nil {
		return ""
	}
	want := sig.Results()
	vals := make([]string, want.Len())
	used := make([]bool, len(r.Results))
	// Match the given values to the wanted results, last first.
	j := len(r.Results) - 1
	for i := want.Len() - 1; i >= 0 && j >= 0; i-- {
		if t := c.info.Types[r.Results[j]].Type; t != nil && fits(t, want.At(i).Type()) {
			vals[i] = c.text(r.Results[j])
			used[j] = true
			j--
		}
	}
	for i := range vals {
		if vals[i] == "" {
			vals[i] = c.zeroValue(want.At(i).Type())
		}
	}
	if want.Len() == 0 {
		h := "the function returns nothing: write a bare return"
		for _, v := range r.Results {
			if t := c.info.Types[v].Type; t != nil && types.Identical(t, types.Universe.Lookup("error").Type()) {
				h += fmt.Sprintf(", after printing the error: fmt.Println(%s); return", c.text(v))
				break
			}
		}
		return h
	}
	return fmt.Sprintf("the function returns (%s): write return %s", c.tupleString(want), strings.Join(vals, ", "))
}

func (c *checker) tupleString(t *types.Tuple) string {
	parts := make([]string, t.Len())
	for i := range parts {
		parts[i] = c.typeString(t.At(i).Type())
	}
	return strings.Join(parts, ", ")
}

// zeroValue writes the zero value of t.
func (c *checker) zeroValue(t types.Type) string {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			return `""`
		case u.Info()&types.IsBoolean != 0:
			return "false"
		case u.Info()&types.IsNumeric != 0:
			return "0"
		}
	case *types.Struct:
		return c.typeString(t) + "{}"
	case *types.Array:
		return c.typeString(t) + "{}"
	}
	return "nil"
}

// enclosingCond returns the condition of the if, for or switch statement
// at pos.
func (c *checker) enclosingCond(pos token.Pos) ast.Expr {
	var cond ast.Expr
	ast.Inspect(c.file, func(n ast.Node) bool {
		if n == nil || pos < n.Pos() || pos > n.End() {
			return false
		}
		switch s := n.(type) {
		case *ast.IfStmt:
			cond = s.Cond
		case *ast.ForStmt:
			if s.Cond != nil {
				cond = s.Cond
			}
		}
		return true
	})
	return cond
}

// slicesHint: a function of strings or bytes given a slice: the slices
// package has one of the same name for slices (slices.Contains).
func (c *checker) slicesHint(x ast.Expr, from types.Type) string {
	if _, ok := from.Underlying().(*types.Slice); !ok {
		return ""
	}
	call, ok := c.enclosing(x.Pos(), func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		return ok && slices.Contains(call.Args, x)
	}).(*ast.CallExpr)
	if !ok {
		return ""
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	fn, ok := c.info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || (fn.Pkg().Path() != "strings" && fn.Pkg().Path() != "bytes") {
		return ""
	}
	sp, err := c.cache.Import("slices")
	if err != nil || sp.Scope().Lookup(fn.Name()) == nil {
		return ""
	}
	return fmt.Sprintf("%s works on one string; for a slice write slices.%s (import \"slices\")", c.text(call.Fun), fn.Name())
}

// sigString writes a func type with its parameter names, grouped as Go
// code writes them: func(i, j int) bool.
func (c *checker) sigString(sig *types.Signature) string {
	var parts []string
	ps := sig.Params()
	for i := 0; i < ps.Len(); i++ {
		name, t := ps.At(i).Name(), c.typeString(ps.At(i).Type())
		if fs, ok := ps.At(i).Type().(*types.Signature); ok {
			t = c.sigString(fs) // func(i, j int), as Go code writes it
		}
		if sig.Variadic() && i == ps.Len()-1 {
			if s, ok := ps.At(i).Type().(*types.Slice); ok {
				t = "..." + c.typeString(s.Elem())
			}
		}
		if i+1 < ps.Len() && name != "" && types.Identical(ps.At(i).Type(), ps.At(i+1).Type()) && !(sig.Variadic() && i+1 == ps.Len()-1) {
			parts = append(parts, name)
			continue
		}
		parts = append(parts, strings.TrimSpace(name+" "+t))
	}
	res := ""
	switch rs := sig.Results(); rs.Len() {
	case 0:
	case 1:
		res = " " + c.typeString(rs.At(0).Type())
	default:
		res = " (" + c.tupleString(rs) + ")"
	}
	return "func(" + strings.Join(parts, ", ") + ")" + res
}

// constructorHint: a value of type from where a named type of a package
// is wanted: the functions of that package that make one from it
// (time.Parse for a string where a time.Time is wanted).
func (c *checker) constructorHint(from, to types.Type) string {
	named, ok := types.Unalias(to).(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg() == c.pkg || isUntyped(from) {
		return ""
	}
	pkg := named.Obj().Pkg()
	var makers []string
	for _, n := range pkg.Scope().Names() {
		f, ok := pkg.Scope().Lookup(n).(*types.Func)
		if !ok || !f.Exported() {
			continue
		}
		sig := f.Type().(*types.Signature)
		if sig.Results().Len() == 0 || !types.Identical(sig.Results().At(0).Type(), to) {
			continue
		}
		for i := 0; i < sig.Params().Len(); i++ {
			if types.Identical(sig.Params().At(i).Type(), from) {
				makers = append(makers, c.qualifier(pkg)+"."+n+strings.TrimPrefix(c.sigString(sig), "func"))
				break
			}
		}
	}
	if len(makers) == 0 || len(makers) > 4 {
		return ""
	}
	return fmt.Sprintf("to make a %s from a %s: %s", c.typeString(to), c.typeString(from), strings.Join(makers, "; "))
}

var (
	reNotFunc    = lazyRE(`^invalid operation: cannot call (.+) \((variable|value) of (?:\w+ )?type (.+)\): .* is not a function$`)
	reTruncated  = lazyRE(`^(.+) \(untyped float constant(?: [^)]*)?\) truncated to (\w+)$`)
	reNotSatisfy = lazyRE(`^(.+) does not satisfy (cmp\.Ordered|comparable)`)
)

// noMethodsHint: a method called on a type that has none (a string, a
// slice, a map): the function of the package for that kind that is
// closest to the name, with the value as its first argument, or the
// built-in (append, len).
func (c *checker) noMethodsHint(sel *ast.SelectorExpr, parents map[ast.Node]ast.Node) string {
	t := c.info.Types[sel.X].Type
	if t == nil {
		return ""
	}
	if _, named := types.Unalias(t).(*types.Named); named && types.NewMethodSet(t).Len() > 0 {
		return ""
	}
	var pkgPath, kind string
	var callArgs []string
	if call, ok := parents[sel].(*ast.CallExpr); ok && call.Fun == sel {
		for _, a := range call.Args {
			callArgs = append(callArgs, c.text(a))
		}
	}
	if h := c.builtinMethodHint(sel, callArgs); h != "" {
		return h
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Info()&types.IsString == 0 {
			return ""
		}
		pkgPath, kind = "strings", "a string"
	case *types.Slice:
		pkgPath, kind = "slices", "a slice"
	case *types.Map:
		pkgPath, kind = "maps", "a map"
	default:
		return ""
	}
	xs := c.text(sel.X)
	call, isCall := parents[sel].(*ast.CallExpr)
	if isCall && call.Fun != sel {
		isCall = false
	}
	var args []string
	if isCall {
		for _, a := range call.Args {
			args = append(args, c.text(a))
		}
	}
	name := strings.ToLower(sel.Sel.Name)
	switch name {
	case "len", "length", "size", "count", "append", "push", "add", "pushback", "insert":
	default:
		if !isCall {
			return ""
		}
	}
	if kind == "a slice" {
		switch name {
		case "append", "push", "add", "pushback", "insert":
			if len(args) == 0 {
				args = []string{"v"}
			}
			return fmt.Sprintf("%s is a slice, which has no methods: write %s = append(%s, %s)", xs, xs, xs, strings.Join(args, ", "))
		}
	}
	switch name {
	case "len", "length", "size", "count":
		return fmt.Sprintf("%s is %s, which has no methods: write len(%s)", xs, kind, xs)
	}
	pkg, err := c.cache.Import(pkgPath)
	if err != nil {
		return ""
	}
	var funcs []string
	for _, n := range pkg.Scope().Names() {
		if _, ok := pkg.Scope().Lookup(n).(*types.Func); ok && token.IsExported(n) {
			funcs = append(funcs, n)
		}
	}
	near := closest(sel.Sel.Name, funcs)
	// A function of the same name elsewhere that takes the value first
	// (strings.Join for a []string) wins over a near name.
	if kind == "a slice" && !slices.ContainsFunc(funcs, func(f string) bool { return strings.EqualFold(f, sel.Sel.Name) }) {
		for _, other := range []string{"strings", "bytes"} {
			op, err := c.cache.Import(other)
			if err != nil {
				continue
			}
			for _, n := range op.Scope().Names() {
				fn, ok := op.Scope().Lookup(n).(*types.Func)
				if !ok || !strings.EqualFold(n, sel.Sel.Name) {
					continue
				}
				if sig := fn.Type().(*types.Signature); sig.Params().Len() > 0 && types.AssignableTo(t, sig.Params().At(0).Type()) {
					pkgPath, near = other, []string{n}
				}
			}
		}
	}
	if len(near) == 0 {
		return ""
	}
	if len(near) > 3 {
		near = near[:3]
	}
	imp := ""
	if !c.imports[pkgPath] {
		imp = fmt.Sprintf(" (import %q)", pkgPath)
	}
	first := fmt.Sprintf("%s.%s(%s)", pkgPath, near[0], strings.Join(append([]string{xs}, args...), ", "))
	others := ""
	if len(near) > 1 {
		others = ", or " + pkgPath + "." + strings.Join(near[1:], ", "+pkgPath+".")
	}
	return fmt.Sprintf("%s is %s, which has no methods: call the function of package %s, %s%s%s", xs, kind, pkgPath, first, others, imp)
}

// decodeHint: a field asked of a type that holds undecoded data (a
// method M(any) error) and has no field near the name: decode it.
func (c *checker) decodeHint(sel *ast.SelectorExpr) string {
	t := c.info.Types[sel.X].Type
	if t == nil {
		return ""
	}
	st, ok := deref(t).Underlying().(*types.Struct)
	if !ok {
		return ""
	}
	want := strings.ToLower(sel.Sel.Name)
	for i := 0; i < st.NumFields(); i++ {
		if f := strings.ToLower(st.Field(i).Name()); distance(want, f) <= 2 || strings.Contains(f, want) || strings.Contains(want, f) {
			return ""
		}
	}
	xs := c.text(sel.X)
	var decode, text string
	ms := types.NewMethodSet(t)
	for i := 0; i < ms.Len(); i++ {
		fn, ok := ms.At(i).Obj().(*types.Func)
		if !ok || !fn.Exported() {
			continue
		}
		sig := fn.Type().(*types.Signature)
		switch {
		case sig.Params().Len() == 1 && isEmptyInterface(sig.Params().At(0).Type()) && sig.Results().Len() == 1:
			decode = fn.Name()
		case sig.Params().Len() == 0 && sig.Results().Len() == 1 && isString(sig.Results().At(0).Type()):
			text = fn.Name()
		}
	}
	if decode == "" {
		return ""
	}
	h := fmt.Sprintf("%s %s holds the data undecoded, with no field %s: decode it into a struct that has the field, var v struct{ %s ... }; err = %s.%s(&v), then v.%s",
		article(c.typeString(t)), c.typeString(t), sel.Sel.Name, sel.Sel.Name, xs, decode, sel.Sel.Name)
	if text != "" {
		h += fmt.Sprintf(", or read the text, %s.%s()", xs, text)
	}
	return h
}

// definedAs returns the expression an identifier was defined with
// (x := expr), or nil.
func (c *checker) definedAs(id *ast.Ident) ast.Expr {
	obj := c.info.Uses[id]
	if obj == nil {
		return nil
	}
	var found ast.Expr
	ast.Inspect(c.file, func(n ast.Node) bool {
		a, ok := n.(*ast.AssignStmt)
		if !ok || found != nil || len(a.Lhs) != len(a.Rhs) {
			return found == nil
		}
		for i, l := range a.Lhs {
			if lid, ok := l.(*ast.Ident); ok && c.info.Defs[lid] == obj {
				found = a.Rhs[i]
			}
		}
		return found == nil
	})
	return found
}

// funcValueHint: a func value (a method not called) used as a value.
func (c *checker) funcValueHint(x ast.Expr) string {
	sig, ok := c.info.Types[x].Type.(*types.Signature)
	if !ok || sig.Params().Len() != 0 || sig.Results().Len() != 1 {
		return ""
	}
	xs := c.text(x)
	if id, ok := x.(*ast.Ident); ok {
		if def := c.definedAs(id); def != nil {
			if _, isSel := def.(*ast.SelectorExpr); isSel {
				return fmt.Sprintf("%s holds the method %s, not its result: call it where %s is set, %s := %s()", xs, c.text(def), xs, xs, c.text(def))
			}
		}
	}
	return fmt.Sprintf("%s is a function: call it, %s()", xs, xs)
}

// condHint: a non-bool operand of && or ||.
func (c *checker) condHint(x ast.Expr) string {
	t := c.info.Types[x].Type
	if t == nil {
		return ""
	}
	xs := c.text(x)
	switch {
	case types.Identical(t, types.Universe.Lookup("error").Type()):
		return fmt.Sprintf("%s is an error, not a bool: write %s != nil", xs, xs)
	case isString(t):
		return fmt.Sprintf(`%s is a string, not a bool: write %s != ""`, xs, xs)
	case isNumeric(t):
		return fmt.Sprintf("%s is a number, not a bool: write %s > 0 (or %s != 0)", xs, xs, xs)
	}
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Map, *types.Slice, *types.Interface:
		if _, ok := t.Underlying().(*types.Slice); ok {
			return fmt.Sprintf("%s is a slice, not a bool: write len(%s) > 0", xs, xs)
		}
		return fmt.Sprintf("%s is not a bool: write %s != nil", xs, xs)
	}
	return ""
}

// scopedHint: a name used where it is not declared, though the function
// declares it in an inner block (an if or for statement) that has ended.
func (c *checker) scopedHint(id *ast.Ident) string {
	for def, obj := range c.info.Defs {
		if obj == nil || def.Name != id.Name || def.Pos() >= id.Pos() {
			continue
		}
		if _, ok := obj.(*types.Var); !ok {
			continue
		}
		if obj.Parent() == nil || obj.Parent().Contains(id.Pos()) {
			continue
		}
		stmt := c.enclosing(def.Pos(), func(n ast.Node) bool {
			switch n.(type) {
			case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.BlockStmt:
				return true
			}
			return false
		})
		kind := "block"
		switch stmt.(type) {
		case *ast.IfStmt:
			kind = "if"
		case *ast.ForStmt, *ast.RangeStmt:
			kind = "for"
		case *ast.SwitchStmt, *ast.TypeSwitchStmt:
			kind = "switch"
		}
		line := c.fset.Position(def.Pos()).Line
		return fmt.Sprintf("%s is declared at line %d inside the %s statement and ends with it: declare it before the %s (var %s %s, or %s, err := ... on its own line, then if err != nil { ... })",
			id.Name, line, kind, kind, id.Name, c.typeString(obj.Type()), id.Name)
	}
	return ""
}

// nearNameHint: an undefined name close to one in scope (docStore for
// the package docstore).
func (c *checker) nearNameHint(id *ast.Ident) string {
	if c.pkg == nil {
		return ""
	}
	scope := c.pkg.Scope().Innermost(id.Pos())
	if scope == nil {
		return ""
	}
	seen := map[string]bool{}
	var names []string
	for s := scope; s != nil && s != types.Universe; s = s.Parent() {
		for _, n := range s.Names() {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	for _, imp := range c.file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		n := path.Base(p)
		if imp.Name != nil {
			n = imp.Name.Name
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	lw := strings.ToLower(id.Name)
	var near []string
	for _, n := range names {
		ln := strings.ToLower(n)
		if n == id.Name {
			continue // declared later in the scope, not a spelling
		}
		if ln == lw || distance(lw, ln) <= 1 || len(lw) > 4 && distance(lw, ln) <= 2 {
			near = append(near, n)
		}
	}
	if len(near) == 0 {
		return ""
	}
	return "did you mean " + strings.Join(near, " or ") + "? (names are case-sensitive)"
}

// sliceForSliceHint: a slice of structs (or an iterator) where a slice of
// strings or numbers is wanted.
func (c *checker) sliceForSliceHint(x ast.Expr, from, to types.Type, parents map[ast.Node]ast.Node) string {
	ts, ok := to.Underlying().(*types.Slice)
	if !ok {
		return ""
	}
	xs := c.text(x)
	if n, ok := types.Unalias(from).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "iter" {
		return fmt.Sprintf("%s is an iterator (%s), not a slice: collect it, slices.Collect(%s), or sorted, slices.Sorted(%s)%s", xs, c.typeString(from), xs, xs, c.importNote("slices"))
	}
	fs, ok := from.Underlying().(*types.Slice)
	if !ok {
		return ""
	}
	st, ok := deref(fs.Elem()).Underlying().(*types.Struct)
	if !ok {
		return ""
	}
	var fields []string
	var ordered string
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Exported() {
			continue
		}
		if types.AssignableTo(f.Type(), ts.Elem()) {
			fields = append(fields, f.Name())
		}
		if b, ok := f.Type().Underlying().(*types.Basic); ok && b.Info()&types.IsOrdered != 0 && ordered == "" {
			ordered = f.Name()
		}
	}
	if call, ok := parents[x].(*ast.CallExpr); ok {
		if fn := c.calleeFunc(call); fn != nil && (fn.Pkg().Path() == "sort" || strings.Contains(fn.Name(), "Sort")) {
			if ordered == "" {
				ordered = "<Field>"
			}
			return fmt.Sprintf("%s holds %s, not %s: sort it by a field, sort.Slice(%s, func(i, j int) bool { return %s[i].%s < %s[j].%s }), or slices.SortFunc(%s, func(a, b %s) int { return cmp.Compare(a.%s, b.%s) })",
				xs, c.typeString(fs.Elem()), c.typeString(ts.Elem()), xs, xs, ordered, xs, ordered, xs, c.typeString(fs.Elem()), ordered, ordered)
		}
	}
	if len(fields) == 0 {
		return ""
	}
	// Named as the snippet names them: the variable declared, and the
	// element by its type's last word (h for a SearchResultHit).
	out, e := "out", elemVarName(fs.Elem())
	switch p := parents[x].(type) {
	case *ast.ValueSpec:
		if len(p.Names) == 1 {
			out = p.Names[0].Name
		}
	case *ast.AssignStmt:
		if len(p.Lhs) == 1 {
			out = c.text(p.Lhs[0])
		}
	}
	return fmt.Sprintf("%s holds %s, not %s: collect one field of each first, var %s %s; for _, %s := range %s { %s = append(%s, %s.%s) } (its %s fields: %s)",
		xs, c.typeString(fs.Elem()), c.typeString(ts.Elem()), out, c.typeString(to), e, xs, out, out, e, fields[0], c.typeString(ts.Elem()), strings.Join(fields, ", "))
}

// elemVarName names a loop variable for an element of type t: the first
// letter of its type name's last word (h for SearchResultHit), or e.
func elemVarName(t types.Type) string {
	n, ok := types.Unalias(deref(t)).(*types.Named)
	if !ok {
		return "e"
	}
	words := camelWords(n.Obj().Name())
	if len(words) == 0 {
		return "e"
	}
	if v := strings.ToLower(words[len(words)-1][:1]); v != "_" {
		return v
	}
	return "e"
}

func (c *checker) importNote(p string) string {
	if c.imports[p] {
		return ""
	}
	return fmt.Sprintf(" (import %q)", p)
}

// calleeFunc is the function a call calls, if it is a declared one.
func (c *checker) calleeFunc(call *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch f := call.Fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	}
	if id == nil {
		return nil
	}
	fn, _ := c.info.Uses[id].(*types.Func)
	if fn == nil || fn.Pkg() == nil {
		return nil
	}
	return fn
}

// orderedHint: a generic function that needs ordered (or comparable)
// elements given structs: its ...Func variant, with a field to compare.
func (c *checker) orderedHint(pos token.Pos) string {
	n := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.CallExpr); return ok })
	call, ok := n.(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return ""
	}
	fn := c.calleeFunc(call)
	if fn == nil {
		return ""
	}
	variant := fn.Pkg().Scope().Lookup(fn.Name() + "Func")
	if variant == nil {
		return ""
	}
	xs := c.text(call.Args[0])
	elem := "T"
	field := "<Field>"
	if t := c.info.Types[call.Args[0]].Type; t != nil {
		if s, ok := t.Underlying().(*types.Slice); ok {
			elem = c.typeString(s.Elem())
			if st, ok := deref(s.Elem()).Underlying().(*types.Struct); ok {
				for i := 0; i < st.NumFields(); i++ {
					if b, ok := st.Field(i).Type().Underlying().(*types.Basic); ok && b.Info()&types.IsOrdered != 0 && st.Field(i).Exported() {
						field = st.Field(i).Name()
						break
					}
				}
			}
		}
	}
	return fmt.Sprintf("%s has no order of its own: use %s.%s with a comparison, %s.%s(%s, func(a, b %s) int { return cmp.Compare(a.%s, b.%s) })%s",
		elem, fn.Pkg().Name(), variant.Name(), fn.Pkg().Name(), variant.Name(), xs, elem, field, field, c.importNote("cmp"))
}

// truncatedHint: a fraction (a literal or a named constant) in arithmetic
// with integer variables. Every integer operand of the arithmetic around
// it is converted, so that price * adults * nights becomes
// price * float64(adults) * float64(nights) in one step.
func (c *checker) truncatedHint(pos token.Pos) string {
	n := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.BinaryExpr); return ok })
	b, ok := n.(*ast.BinaryExpr)
	if !ok {
		return ""
	}
	// Climb to the outermost arithmetic around the fraction.
	parents := parentsOf(c.file)
	top := ast.Expr(b)
	for {
		if pe, ok := parents[top].(*ast.BinaryExpr); ok && isArith(pe.Op) {
			top = pe
		} else if pe, ok := parents[top].(*ast.ParenExpr); ok {
			top = pe
		} else {
			break
		}
	}
	var ints []string
	var render func(e ast.Expr) string
	render = func(e ast.Expr) string {
		switch x := e.(type) {
		case *ast.BinaryExpr:
			if isArith(x.Op) {
				return render(x.X) + " " + x.Op.String() + " " + render(x.Y)
			}
		case *ast.ParenExpr:
			return "(" + render(x.X) + ")"
		}
		tv := c.info.Types[e]
		if tv.Type != nil && isInteger(tv.Type) && tv.Value == nil {
			ints = append(ints, c.text(e))
			return "float64(" + c.text(e) + ")"
		}
		return c.text(e)
	}
	fixed := render(top)
	switch len(ints) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%s is an integer: convert it, %s", ints[0], fixed)
	}
	return fmt.Sprintf("%s are integers: convert them, %s", strings.Join(ints, ", "), fixed)
}

// isArith reports whether op is +, -, * or /.
func isArith(op token.Token) bool {
	return op == token.ADD || op == token.SUB || op == token.MUL || op == token.QUO
}

// siblingArgsHint: a function of the same package, named like the one
// called, that takes the arguments as given (strings.ReplaceAll for
// strings.Replace with three), or fmt's formatting for a format string
// given to a function that does not format.
func (c *checker) siblingArgsHint(call *ast.CallExpr) string {
	fn := c.calleeFunc(call)
	if fn == nil {
		return ""
	}
	if sig := fn.Type().(*types.Signature); sig.Recv() == nil && len(call.Args) > sig.Params().Len() && len(call.Args) > 0 {
		if tv := c.info.Types[call.Args[0]]; tv.Value != nil && tv.Value.Kind() == constant.String && strings.Contains(constant.StringVal(tv.Value), "%") {
			switch {
			case sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), types.Universe.Lookup("error").Type()):
				return fmt.Sprintf("%s does not format: write fmt.Errorf(%s)", c.text(call.Fun), c.argList(call))
			case sig.Results().Len() == 1 && isString(sig.Results().At(0).Type()):
				return fmt.Sprintf("%s does not format: write fmt.Sprintf(%s)", c.text(call.Fun), c.argList(call))
			}
		}
	}
	if fn.Type().(*types.Signature).Recv() != nil {
		return ""
	}
	var found []string
	scope := fn.Pkg().Scope()
	for _, n := range scope.Names() {
		other, ok := scope.Lookup(n).(*types.Func)
		if !ok || other == fn || !other.Exported() || !strings.HasPrefix(n, fn.Name()) {
			continue
		}
		sig := other.Type().(*types.Signature)
		if sig.Params().Len() != len(call.Args) || sig.Variadic() {
			continue
		}
		fit := true
		for i, a := range call.Args {
			if t := c.info.Types[a].Type; t == nil || !fits(t, sig.Params().At(i).Type()) {
				fit = false
			}
		}
		if fit {
			found = append(found, fmt.Sprintf("%s.%s(%s)", fn.Pkg().Name(), n, c.argList(call)))
		}
	}
	if len(found) == 0 {
		return ""
	}
	return "or, with these arguments, " + strings.Join(found, ", or ")
}

func (c *checker) argList(call *ast.CallExpr) string {
	var args []string
	for _, a := range call.Args {
		args = append(args, c.text(a))
	}
	return strings.Join(args, ", ")
}

// addressHint: a value where a pointer to its type is wanted, outside a
// struct literal's field (there an optional field wants mcp.Ptr): &x.
func (c *checker) addressHint(x ast.Expr, from, to types.Type, parents map[ast.Node]ast.Node) string {
	p, ok := to.Underlying().(*types.Pointer)
	if !ok || !types.Identical(from, p.Elem()) {
		return ""
	}
	if _, inLit := parents[x].(*ast.KeyValueExpr); inLit {
		return ""
	}
	switch x.(type) {
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr:
		return fmt.Sprintf("it wants a pointer (%s): write &%s", c.typeString(to), c.text(x))
	}
	return ""
}

var (
	reNotExpr      = lazyRE(`^(.+) \(type\) is not an expression$`)
	reMapFieldAsgn = lazyRE(`^cannot assign to struct field (.+)\[(.+)\]\.(\w+) in map$`)
)

// callStmtFix explains "expression in go (defer) must be function call"
// at the go or defer keyword, where Go reports it (the parser reports the
// end of the expression), from the partial syntax tree.
func callStmtFix(f *ast.File, fset *token.FileSet, src []byte, e *scanner.Error) (token.Position, string, bool) {
	m := reCallStmt.FindStringSubmatch(e.Msg)
	if m == nil || f == nil {
		return token.Position{}, "", false
	}
	kw := m[1]
	var best *ast.BadStmt
	ast.Inspect(f, func(n ast.Node) bool {
		b, ok := n.(*ast.BadStmt)
		if !ok {
			return true
		}
		off := fset.Position(b.From).Offset
		if off < e.Pos.Offset && strings.HasPrefix(string(src[off:]), kw) && (best == nil || b.From > best.From) {
			best = b
		}
		return true
	})
	if best == nil {
		return token.Position{}, "", false
	}
	from := fset.Position(best.From)
	expr := strings.TrimSpace(string(src[from.Offset+len(kw) : min(e.Pos.Offset, len(src))]))
	var hint string
	if strings.HasPrefix(expr, "func") {
		hint = fmt.Sprintf("%s runs a call: end the function literal with (), %s func() { ... }()", kw, kw)
	} else {
		hint = fmt.Sprintf("%s runs a call: write %s %s()", kw, kw, expr)
	}
	return from, hint, true
}

var reCallStmt = lazyRE(`^expression in (go|defer) must be function call$`)

// constToStringHint: a rune or number constant where a string is wanted.
func (c *checker) constToStringHint(x ast.Expr, from, to types.Type) string {
	tv := c.info.Types[x]
	if tv.Value == nil || !isString(to) || isString(from) {
		return ""
	}
	if b, ok := from.(*types.Basic); ok && b.Kind() == types.UntypedRune {
		if r, ok := constant.Int64Val(tv.Value); ok {
			return fmt.Sprintf("%s is a rune (a character), not a string: write it in double quotes, %q", c.text(x), string(rune(r)))
		}
	}
	if isNumeric(from) {
		return fmt.Sprintf("it wants a string: write it in quotes, %q", tv.Value.ExactString())
	}
	return ""
}

// mapForSliceHint: a map where a slice is wanted: its values or keys,
// collected (sorted when the call sorts).
func (c *checker) mapForSliceHint(x ast.Expr, from, to types.Type) string {
	mt, ok := from.Underlying().(*types.Map)
	if !ok {
		return ""
	}
	st, ok := to.Underlying().(*types.Slice)
	if !ok {
		return ""
	}
	xs := c.text(x)
	var ways []string
	if types.AssignableTo(mt.Elem(), st.Elem()) {
		ways = append(ways, fmt.Sprintf("its values, slices.Sorted(maps.Values(%s))", xs))
	}
	if types.AssignableTo(mt.Key(), st.Elem()) {
		ways = append(ways, fmt.Sprintf("its keys, slices.Sorted(maps.Keys(%s))", xs))
	}
	if len(ways) == 0 {
		return ""
	}
	return fmt.Sprintf("%s is a map, not a slice: collect %s%s%s", xs, strings.Join(ways, ", or "), c.importNote("slices"), c.importNote("maps"))
}

// elemFuncHint: a value of one type given to a generic slice function for
// a slice of structs (slices.Contains(docs, "x")): its ...Func variant,
// comparing a field of that type.
func (c *checker) elemFuncHint(x ast.Expr, from types.Type, parents map[ast.Node]ast.Node) string {
	call, ok := parents[x].(*ast.CallExpr)
	if !ok || len(call.Args) < 2 || call.Args[0] == x {
		return ""
	}
	fn := c.calleeFunc(call)
	if fn == nil {
		return ""
	}
	variant := fn.Pkg().Scope().Lookup(fn.Name() + "Func")
	if variant == nil {
		return ""
	}
	at := c.info.Types[call.Args[0]].Type
	if at == nil {
		return ""
	}
	s, ok := at.Underlying().(*types.Slice)
	if !ok {
		return ""
	}
	st, ok := deref(s.Elem()).Underlying().(*types.Struct)
	if !ok {
		return ""
	}
	def := types.Default(from)
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if f.Exported() && types.AssignableTo(def, f.Type()) {
			return fmt.Sprintf("%s holds %s, not %s: compare a field, %s.%s(%s, func(e %s) bool { return e.%s == %s })",
				c.text(call.Args[0]), c.typeString(s.Elem()), c.typeString(def), fn.Pkg().Name(), variant.Name(), c.text(call.Args[0]), c.typeString(s.Elem()), f.Name(), c.text(x))
		}
	}
	return ""
}

// interfaceMemberHint: a field or method an interface does not have: its
// methods (an error's text is err.Error()).
func (c *checker) interfaceMemberHint(sel *ast.SelectorExpr) string {
	t := c.info.Types[sel.X].Type
	if t == nil {
		return ""
	}
	it, ok := t.Underlying().(*types.Interface)
	if !ok || it.NumMethods() == 0 {
		return ""
	}
	xs := c.text(sel.X)
	var ms []string
	for i := 0; i < it.NumMethods(); i++ {
		m := it.Method(i)
		ms = append(ms, xs+"."+m.Name()+"()")
	}
	h := fmt.Sprintf("%s is %s %s, an interface with no fields: its methods: %s", xs, article(c.typeString(t)), c.typeString(t), strings.Join(ms, ", "))
	if types.Identical(t, types.Universe.Lookup("error").Type()) {
		h = fmt.Sprintf("%s is an error, an interface with no fields: its text is %s.Error()", xs, xs)
		if c.imports[treePrefix+"mcp"] {
			h += fmt.Sprintf("; a tool's own error: if te, ok := mcp.AsToolError(%s); ok { ... te.%s ... }", xs, sel.Sel.Name)
		}
	}
	return h
}

// shadowHint: a call of a variable that hides a predeclared function
// (max := 0, then max(a, b)).
func (c *checker) shadowHint(x ast.Expr) string {
	id, ok := x.(*ast.Ident)
	if !ok {
		return ""
	}
	obj, ok := c.info.Uses[id].(*types.Var)
	if !ok {
		return ""
	}
	if _, ok := types.Universe.Lookup(id.Name).(*types.Builtin); !ok {
		return ""
	}
	line := c.fset.Position(obj.Pos()).Line
	return fmt.Sprintf("the variable %s declared at line %d shadows the built-in %s(): rename the variable (for example %sV) to call the built-in", id.Name, line, id.Name, id.Name)
}

// lowerStdHint: an undefined lower-case name that a standard package
// exports capitalised (contains for slices.Contains).
func (c *checker) lowerStdHint(id *ast.Ident, parents map[ast.Node]ast.Node) string {
	if token.IsExported(id.Name) || id.Name == "" {
		return ""
	}
	name := strings.ToUpper(id.Name[:1]) + id.Name[1:]
	var firstArg types.Type
	if call, ok := parents[id].(*ast.CallExpr); ok && call.Fun == id && len(call.Args) > 0 {
		firstArg = c.info.Types[call.Args[0]].Type
	}
	var in []string
	for _, p := range c.allowed {
		pkg, err := c.cache.Import(p)
		if err != nil {
			continue
		}
		fn, ok := pkg.Scope().Lookup(name).(*types.Func)
		if !ok {
			continue
		}
		sig := fn.Type().(*types.Signature)
		if firstArg != nil && sig.Params().Len() > 0 && sig.TypeParams().Len() == 0 && !fits(firstArg, sig.Params().At(0).Type()) {
			continue
		}
		if firstArg != nil && sig.TypeParams().Len() > 0 {
			if _, isSlice := firstArg.Underlying().(*types.Slice); !isSlice && pkg.Name() == "slices" {
				continue
			}
		}
		in = append(in, pkg.Name()+"."+name+c.importNote(p))
	}
	if len(in) == 0 || len(in) > 4 {
		return ""
	}
	return "no function " + id.Name + " is declared: write " + strings.Join(in, ", or ")
}

var (
	reNotConstant = lazyRE(`^(.+) \(value of type (.+)\) is not constant$`)
	reNotUsed     = lazyRE(`^(.+) \(value of type (.+)\) is not used$`)
)

// builtinMethodHint: a method named like a built-in (ch.close, m.delete)
// on a type without methods.
func (c *checker) builtinMethodHint(sel *ast.SelectorExpr, args []string) string {
	xs := c.text(sel.X)
	all := strings.Join(append([]string{xs}, args...), ", ")
	switch strings.ToLower(sel.Sel.Name) {
	case "close":
		if _, ok := c.info.Types[sel.X].Type.Underlying().(*types.Chan); ok {
			return fmt.Sprintf("%s is a channel, which has no methods: write close(%s)", xs, xs)
		}
	case "delete", "remove":
		if _, ok := c.info.Types[sel.X].Type.Underlying().(*types.Map); ok {
			return fmt.Sprintf("%s is a map, which has no methods: write delete(%s)", xs, all)
		}
	case "clear":
		return fmt.Sprintf("%s has no methods: write clear(%s)", xs, xs)
	case "copy":
		return fmt.Sprintf("%s has no methods: write copy(dst, %s)", xs, xs)
	}
	return ""
}

// readerHint: a string or []byte where an interface (io.Reader) is
// wanted: the constructor of strings or bytes that makes one.
func (c *checker) readerHint(x ast.Expr, from, to types.Type) string {
	it, ok := to.Underlying().(*types.Interface)
	if !ok || it.NumMethods() == 0 {
		return ""
	}
	pkgPath := ""
	switch {
	case isString(from):
		pkgPath = "strings"
	case isByteSlice(from):
		pkgPath = "bytes"
	default:
		return ""
	}
	pkg, err := c.cache.Import(pkgPath)
	if err != nil {
		return ""
	}
	for _, n := range pkg.Scope().Names() {
		fn, ok := pkg.Scope().Lookup(n).(*types.Func)
		if !ok || !fn.Exported() {
			continue
		}
		sig := fn.Type().(*types.Signature)
		if sig.Params().Len() != 1 || sig.Results().Len() != 1 || !types.AssignableTo(from, sig.Params().At(0).Type()) {
			continue
		}
		if types.Implements(sig.Results().At(0).Type(), it) {
			return fmt.Sprintf("%s %s is not %s %s: wrap it, %s.%s(%s)%s", article(c.typeString(from)), c.typeString(from), article(c.typeString(to)), c.typeString(to), pkgPath, n, c.text(x), c.importNote(pkgPath))
		}
	}
	return ""
}

// divisionHint: an integer quotient where a float is wanted: convert the
// operands before dividing.
func (c *checker) divisionHint(x ast.Expr, from, to types.Type) string {
	q, ok := ast.Unparen(x).(*ast.BinaryExpr)
	if !ok || q.Op != token.QUO || !isInteger(from) || !isNumeric(to) || isInteger(to) {
		return ""
	}
	ts := c.typeString(to)
	conv := func(e ast.Expr) string {
		if c.info.Types[e].Value != nil && (e == q.Y || c.info.Types[q.Y].Value == nil) {
			return c.text(e)
		}
		return ts + "(" + c.text(e) + ")"
	}
	return fmt.Sprintf("convert before dividing (an integer division drops the fraction): %s / %s", conv(q.X), conv(q.Y))
}

// convertElemsHint: a slice of one struct type where a slice of another
// with the same fields is wanted: convert each element.
func (c *checker) convertElemsHint(x ast.Expr, from, to types.Type) string {
	fs, ok := from.Underlying().(*types.Slice)
	if !ok {
		return ""
	}
	ts, ok := to.Underlying().(*types.Slice)
	if !ok || !types.ConvertibleTo(fs.Elem(), ts.Elem()) {
		return ""
	}
	if _, ok := fs.Elem().Underlying().(*types.Struct); !ok {
		return ""
	}
	et := c.typeString(ts.Elem())
	return fmt.Sprintf("the two element types have the same fields: convert each, out := make(%s, 0, len(%s)); for _, e := range %s { out = append(out, %s(e)) }", c.typeString(to), c.text(x), c.text(x), et)
}

// receiverCompareHint: a method's result compared with a value of the
// receiver's type (d.Hours() > 24*time.Hour): compare the receiver.
func (c *checker) receiverCompareHint(b *ast.BinaryExpr) string {
	for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		call, ok := ast.Unparen(p[0]).(*ast.CallExpr)
		if !ok || len(call.Args) != 0 {
			continue
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			continue
		}
		rt, ot := c.info.Types[sel.X].Type, c.info.Types[p[1]].Type
		if rt == nil || ot == nil || !types.Identical(rt, ot) {
			continue
		}
		switch b.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		default:
			// Arithmetic: the same method on the other side.
			if p[0] == b.X {
				return fmt.Sprintf("%s is a %s: apply the same method to it, %s %s %s.%s()", c.text(p[1]), c.typeString(ot), c.text(b.X), b.Op, c.text(p[1]), sel.Sel.Name)
			}
			return fmt.Sprintf("%s is a %s: apply the same method to it, %s.%s() %s %s", c.text(p[1]), c.typeString(ot), c.text(p[1]), sel.Sel.Name, b.Op, c.text(b.Y))
		}
		if p[0] == b.X {
			return fmt.Sprintf("both sides should be %s: compare %s itself, %s %s %s", c.typeString(rt), c.text(sel.X), c.text(sel.X), b.Op, c.text(p[1]))
		}
		return fmt.Sprintf("both sides should be %s: compare %s itself, %s %s %s", c.typeString(rt), c.text(sel.X), c.text(p[1]), b.Op, c.text(sel.X))
	}
	return ""
}

// nilCompareHint: a value that cannot be nil compared with nil.
func (c *checker) nilCompareHint(b *ast.BinaryExpr) string {
	for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		nt, ok := c.info.Types[p[1]].Type.(*types.Basic)
		if !ok || nt.Kind() != types.UntypedNil {
			continue
		}
		t := c.info.Types[p[0]].Type
		if t == nil {
			continue
		}
		xs := c.text(p[0])
		switch {
		case isString(t):
			return fmt.Sprintf(`a string is never nil: compare with the empty string, %s %s ""`, xs, b.Op)
		case isNumeric(t):
			if call, ok := ast.Unparen(p[0]).(*ast.CallExpr); ok {
				if fn := c.calleeFunc(call); fn != nil && strings.Contains(fn.Name(), "Index") {
					return fmt.Sprintf("%s is -1 when there is none: write %s >= 0 (found) or %s == -1 (not found)", xs, xs, xs)
				}
			}
			return fmt.Sprintf("a number is never nil: compare with 0, %s %s 0", xs, b.Op)
		case t.Underlying() == types.Typ[types.Bool]:
			return fmt.Sprintf("a bool is never nil: use it, %s", xs)
		}
	}
	return ""
}

// mapIndexHint: a map with string keys indexed by a number.
func (c *checker) mapIndexHint(x ast.Expr, parents map[ast.Node]ast.Node) string {
	ix, ok := parents[x].(*ast.IndexExpr)
	if !ok || ix.Index != x {
		return ""
	}
	xt := c.info.Types[ix.X].Type
	if xt == nil {
		return ""
	}
	mt, ok := xt.Underlying().(*types.Map)
	if !ok || !isString(mt.Key()) || !isNumeric(c.info.Types[x].Type) {
		return ""
	}
	if c.info.Types[x].Value == nil {
		// A variable: only a for loop's counter stands for a position.
		id, ok := x.(*ast.Ident)
		if !ok {
			return ""
		}
		obj := c.info.Uses[id]
		fs, ok := c.enclosing(id.Pos(), func(n ast.Node) bool { _, ok := n.(*ast.ForStmt); return ok }).(*ast.ForStmt)
		if obj == nil || !ok || fs.Init == nil {
			return ""
		}
		as, ok := fs.Init.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 {
			return ""
		}
		if lid, ok := as.Lhs[0].(*ast.Ident); !ok || c.info.Defs[lid] != obj {
			return ""
		}
		xs := c.text(ix.X)
		return fmt.Sprintf("%s is a map, with no positions: range over it, for k, v := range %s { ... } (sorted: for _, k := range slices.Sorted(maps.Keys(%s)))", xs, xs, xs)
	}
	xs := c.text(ix.X)
	return fmt.Sprintf(`%s is a map (%s), indexed by its keys, not by position: %s["<key>"]; for the n-th key, sort the keys first (keys := slices.Sorted(maps.Keys(%s)); %s[keys[%s]])`, xs, c.typeString(mt), xs, xs, xs, c.text(x))
}

var (
	reNilAs        = lazyRE(`^cannot use nil as (.+) value in `)
	reCaseMismatch = lazyRE(`^invalid case (.+) in switch on (.+) \(mismatched types (.+) and (.+)\)$`)
	reAddrConst    = lazyRE(`^invalid operation: cannot take address of (.+) \(untyped (\w+) constant\)$`)
	reNotIface     = lazyRE(`^invalid operation: (.+) \(.+ of (?:\w+ )?type (.+)\) is not an interface$`)
	reNonVariadic  = lazyRE(`^cannot use \.\.\. in call to non-variadic (.+)$`)
)

// syntaxHint explains syntax other languages have and Go has not, from
// the source line of the error.
func syntaxHint(src []byte, e *scanner.Error) string {
	lines := strings.Split(string(src), "\n")
	if e.Pos.Line < 1 || e.Pos.Line > len(lines) {
		return ""
	}
	raw := lines[e.Pos.Line-1]
	line := strings.TrimSpace(raw)
	if h := otherLanguageHint(lines, e, raw, line); h != "" {
		return h
	}
	if h := keywordNameHint(line); h != "" {
		return h
	}
	if strings.Contains(e.Msg, "missing parameter type") {
		if h := paramTypeHint(line); h != "" {
			return h
		}
	}
	if strings.Contains(e.Msg, "unknown escape sequence") {
		if i := strings.Index(line, `"`); i >= 0 {
			if j := strings.LastIndex(line, `"`); j > i {
				lit := line[i+1 : j]
				return fmt.Sprintf("in a double-quoted string a backslash starts an escape (\\n, \\t): write the string in backquotes, `%s`, or double each backslash", lit)
			}
		}
	}
	switch {
	case strings.Contains(e.Msg, "'?'"):
		return "Go has no ?: operator: declare the variable, then set it in an if ... else (v := b; if cond { v = a })"
	case strings.HasPrefix(line, "while ") || strings.HasPrefix(line, "while("):
		return "Go has no while: write for cond { ... }"
	case strings.Contains(e.Msg, "found '++'") || strings.Contains(e.Msg, "found '--'"):
		return "x++ and x-- are statements, not expressions: write n++ on its own line, then use n"
	case strings.HasPrefix(line, "do ") || line == "do {":
		return "Go has no do-while: write for { ...; if !cond { break } }"
	case strings.Contains(e.Msg, "expected boolean expression, found assignment"):
		return "= assigns; to compare write ==: " + strings.Replace(line, " = ", " == ", 1)
	case strings.HasPrefix(e.Msg, "expected declaration"):
		return topLevelDefineHint(line)
	case strings.Contains(e.Msg, "missing ',' before newline in composite literal") && !afterBlockHeader(lines, e.Pos.Line):
		return fmt.Sprintf("each element of a literal written over several lines ends with a comma, the last one too: %s,", line)
	case strings.Contains(e.Msg, "missing ',' before newline in argument list"):
		return fmt.Sprintf("each argument written over several lines ends with a comma, the last one too: %s,", line)
	}
	return ""
}

// promotedFieldHint: a field of an embedded struct named in a literal of
// the outer one (promoted fields cannot be set there).
func (c *checker) promotedFieldHint(lit *ast.CompositeLit, name string) string {
	t := c.info.Types[lit].Type
	if t == nil {
		return ""
	}
	st, ok := deref(t).Underlying().(*types.Struct)
	if !ok {
		return ""
	}
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Embedded() {
			continue
		}
		if obj, _, _ := types.LookupFieldOrMethod(f.Type(), true, nil, name); obj != nil {
			if v, ok := obj.(*types.Var); ok && v.IsField() {
				return fmt.Sprintf("%s is promoted from the embedded %s, and a literal cannot set promoted fields: name the embedded struct, %s{%s: %s{%s: ...}, ...}",
					name, c.typeString(f.Type()), c.typeString(t), f.Name(), c.typeString(f.Type()), name)
			}
		}
	}
	return ""
}

// typeMemberHint: a member selected from a type (Kind.Csv): the
// type's constants.
func (c *checker) typeMemberHint(sel *ast.SelectorExpr) string {
	tv, ok := c.info.Types[sel.X]
	if !ok || !tv.IsType() {
		return ""
	}
	named, ok := types.Unalias(tv.Type).(*types.Named)
	if !ok {
		return ""
	}
	consts := constantsOf(named)
	if len(consts) == 0 {
		return ""
	}
	near := closest(sel.Sel.Name, consts)
	return fmt.Sprintf("a type has no members: its constants are declared beside it, %s", strings.Join(c.qualified(named, near), ", "))
}

// stringMethodHint: String() asked of a type that has none.
func (c *checker) stringMethodHint(sel *ast.SelectorExpr) string {
	if sel.Sel.Name != "String" {
		return ""
	}
	t := c.info.Types[sel.X].Type
	if t == nil {
		return ""
	}
	xs := c.text(sel.X)
	if isString(t) {
		return fmt.Sprintf("%s has no String method: convert it, string(%s)", xs, xs)
	}
	ms := types.NewMethodSet(t)
	for i := 0; i < ms.Len(); i++ {
		fn, ok := ms.At(i).Obj().(*types.Func)
		if !ok || !fn.Exported() {
			continue
		}
		if sig := fn.Type().(*types.Signature); sig.Params().Len() == 0 && sig.Results().Len() == 1 && isString(sig.Results().At(0).Type()) {
			return fmt.Sprintf("%s has no String method: its text is %s.%s()", xs, xs, fn.Name())
		}
	}
	return fmt.Sprintf("%s has no String method: format it, fmt.Sprint(%s) (or fmt.Sprintf(\"%%+v\", %s) with field names)", xs, xs, xs)
}

// caseHint: a switch case of another type: the switch value's constants.
func (c *checker) caseHint(m []string) string {
	for _, n := range c.pkgNamedTypes(m[4]) {
		if consts := constantsOf(n); len(consts) > 0 && len(consts) <= 12 {
			return fmt.Sprintf("%s is a %s: its cases are %s", m[2], c.typeString(n), strings.Join(c.qualified(n, consts), ", "))
		}
	}
	return ""
}

// pkgNamedTypes finds the named types spelt s (pkg.Name) among the
// snippet's uses.
func (c *checker) pkgNamedTypes(s string) []*types.Named {
	var out []*types.Named
	seen := map[*types.Named]bool{}
	for _, tv := range c.info.Types {
		if n, ok := types.Unalias(tv.Type).(*types.Named); ok && !seen[n] && c.typeString(n) == s {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// nilAsHint: nil where a value type is wanted: its zero value.
func (c *checker) nilAsHint(pos token.Pos) string {
	n := c.enclosing(pos, func(n ast.Node) bool { id, ok := n.(*ast.Ident); return ok && id.Name == "nil" })
	id, ok := n.(*ast.Ident)
	if !ok {
		return ""
	}
	parents := map[ast.Node]ast.Node{}
	ast.Inspect(c.file, func(x ast.Node) bool {
		if r, ok := x.(*ast.ReturnStmt); ok {
			for _, e := range r.Results {
				parents[e] = r
			}
		}
		return true
	})
	t := c.targetType(id, parents)
	if t == nil {
		return ""
	}
	if _, ok := t.(*types.TypeParam); ok {
		ts := c.typeString(t)
		return fmt.Sprintf("nil is not a %s (a type parameter): return its zero value, var zero %s; return zero", ts, ts)
	}
	if r, ok := parents[id].(*ast.ReturnStmt); ok && len(r.Results) == 1 {
		h := fmt.Sprintf("nil is not %s %s: return its zero value, return %s", article(c.typeString(t)), c.typeString(t), c.zeroValue(t))
		if isInteger(t) {
			h += " (or return -1 for \"not found\", as strings.Index does)"
		}
		return h
	}
	return fmt.Sprintf("nil is not a %s: write its zero value, %s", c.typeString(t), c.zeroValue(t))
}

// assertHint: a type assertion on a value that is not an interface.
func (c *checker) assertHint(pos token.Pos) string {
	n := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.TypeAssertExpr); return ok })
	ta, ok := n.(*ast.TypeAssertExpr)
	if !ok || ta.Type == nil {
		return ""
	}
	xt, at := c.info.Types[ta.X].Type, c.info.Types[ta.Type].Type
	if id, ok := ta.Type.(*ast.Ident); ok && at == nil {
		if tn, ok := c.info.Uses[id].(*types.TypeName); ok {
			at = tn.Type()
		} else if tn, ok := types.Universe.Lookup(id.Name).(*types.TypeName); ok {
			at = tn.Type()
		}
	}
	if xt == nil || at == nil {
		return ""
	}
	xs := c.text(ta.X)
	if types.Identical(xt, at) {
		return fmt.Sprintf("%s is already a %s: drop the .(%s)", xs, c.typeString(at), c.text(ta.Type))
	}
	if types.ConvertibleTo(xt, at) {
		return fmt.Sprintf("%s is a %s, not an interface: convert it, %s(%s)", xs, c.typeString(xt), c.text(ta.Type), xs)
	}
	if isString(xt) && isNumeric(at) {
		return fmt.Sprintf("%s is a string, not an interface: parse it, n, err := strconv.Atoi(%s)", xs, xs)
	}
	return ""
}

// resultNames names the values of a call's results for an assignment:
// the declared names, else ok for a bool, err for an error, and a name
// from the type's initials.
func (c *checker) resultNames(tup *types.Tuple) []string {
	names := make([]string, tup.Len())
	for i := range names {
		v := tup.At(i)
		t := v.Type()
		switch {
		case types.Identical(t, types.Universe.Lookup("error").Type()):
			names[i] = "err"
		case t.Underlying() == types.Typ[types.Bool] && i > 0:
			names[i] = "ok"
		case v.Name() != "" && v.Name() != "_":
			names[i] = v.Name()
		default:
			if n, ok := types.Unalias(deref(t)).(*types.Named); ok {
				var b strings.Builder
				for _, r := range n.Obj().Name() {
					if r >= 'A' && r <= 'Z' {
						b.WriteRune(r + 'a' - 'A')
					}
				}
				names[i] = b.String()
			}
			if names[i] == "" {
				names[i] = "v" + strconv.Itoa(i+1)
			}
		}
	}
	return names
}

// sliceIndexHint: a slice indexed by a string: by position, or search
// it (by the string field closest to the index's name).
func (c *checker) sliceIndexHint(pos token.Pos) string {
	n := c.enclosing(pos, func(n ast.Node) bool { _, ok := n.(*ast.IndexExpr); return ok })
	ie, ok := n.(*ast.IndexExpr)
	if !ok {
		return ""
	}
	xt, it := c.info.Types[ie.X].Type, c.info.Types[ie.Index].Type
	if xt == nil || it == nil || !isString(it) {
		return ""
	}
	s, ok := xt.Underlying().(*types.Slice)
	if !ok {
		return ""
	}
	xs, is := c.text(ie.X), c.text(ie.Index)
	st, ok := deref(s.Elem()).Underlying().(*types.Struct)
	if !ok {
		return fmt.Sprintf("%s is a slice, indexed by position: %s[0] is the first; to find a value, i := slices.Index(%s, %s)", xs, xs, xs, is)
	}
	var fields []string
	for i := 0; i < st.NumFields(); i++ {
		if f := st.Field(i); f.Exported() && isString(f.Type()) {
			fields = append(fields, f.Name())
		}
	}
	if len(fields) == 0 {
		return ""
	}
	field := closest(is, fields)[0]
	return fmt.Sprintf("%s is a slice, indexed by position: to find an element by a field, range over it, for _, e := range %s { if e.%s == %s { ... } }", xs, xs, field, is)
}

var reNoValue = lazyRE(`^(.+) \(no value\) used as value$`)

// sameResultHint: functions of the callee's package that return what it
// returns and take the arguments as given (strings.Split for
// strings.Fields with a separator), when there are few.
func (c *checker) sameResultHint(call *ast.CallExpr) string {
	fn := c.calleeFunc(call)
	if fn == nil || fn.Type().(*types.Signature).Recv() != nil {
		return ""
	}
	want := fn.Type().(*types.Signature).Results()
	var found []string
	scope := fn.Pkg().Scope()
	for _, n := range scope.Names() {
		other, ok := scope.Lookup(n).(*types.Func)
		if !ok || other == fn || !other.Exported() {
			continue
		}
		sig := other.Type().(*types.Signature)
		if sig.Variadic() || sig.TypeParams().Len() > 0 || sig.Params().Len() != len(call.Args) || !types.Identical(sig.Results(), want) {
			continue
		}
		fit := true
		for i, a := range call.Args {
			if t := c.info.Types[a].Type; t == nil || !fits(t, sig.Params().At(i).Type()) {
				fit = false
			}
		}
		if fit {
			found = append(found, fmt.Sprintf("%s.%s(%s)", fn.Pkg().Name(), n, c.argList(call)))
		}
	}
	if len(found) == 0 || len(found) > 3 {
		return ""
	}
	return "functions of " + fn.Pkg().Name() + " that take these arguments: " + strings.Join(found, ", ")
}

// methodAssignHint: x += y where x is a type with a method that takes y
// (a strings.Builder's WriteString).
func (c *checker) methodAssignHint(a *ast.AssignStmt) string {
	if a.Tok != token.ADD_ASSIGN || len(a.Lhs) != 1 || len(a.Rhs) != 1 {
		return ""
	}
	lt, rt := c.info.Types[a.Lhs[0]].Type, c.info.Types[a.Rhs[0]].Type
	if lt == nil || rt == nil {
		return ""
	}
	ms := types.NewMethodSet(types.NewPointer(lt))
	for i := 0; i < ms.Len(); i++ {
		fn, ok := ms.At(i).Obj().(*types.Func)
		if !ok || !fn.Exported() {
			continue
		}
		sig := fn.Type().(*types.Signature)
		if sig.Params().Len() == 1 && !sig.Variadic() && types.Identical(types.Default(rt), sig.Params().At(0).Type()) &&
			(strings.HasPrefix(fn.Name(), "Write") || strings.HasPrefix(fn.Name(), "Add") || strings.HasPrefix(fn.Name(), "Append")) {
			return fmt.Sprintf("%s is a %s, not a %s: add to it with its method, %s.%s(%s)", c.text(a.Lhs[0]), c.typeString(lt), c.typeString(types.Default(rt)), c.text(a.Lhs[0]), fn.Name(), c.text(a.Rhs[0]))
		}
	}
	return ""
}

// rangeKeyHint: a range statement's index used where its value's type is
// wanted: the value.
func (c *checker) rangeKeyHint(x ast.Expr, to types.Type, parents map[ast.Node]ast.Node) string {
	id, ok := x.(*ast.Ident)
	if !ok {
		return ""
	}
	obj := c.info.Uses[id]
	if obj == nil {
		return ""
	}
	use := func(v string) string {
		if ix, ok := parents[x].(*ast.IndexExpr); ok && ix.Index == x {
			return fmt.Sprintf("%s[%s]", c.text(ix.X), v)
		}
		return v
	}
	var hint string
	ast.Inspect(c.file, func(n ast.Node) bool {
		rs, ok := n.(*ast.RangeStmt)
		if !ok || hint != "" {
			return hint == ""
		}
		k, ok := rs.Key.(*ast.Ident)
		if !ok || c.info.Defs[k] != obj {
			return true
		}
		if v, ok := rs.Value.(*ast.Ident); ok {
			if vt := c.info.Types[v].Type; vt == nil {
				if o := c.info.Defs[v]; o != nil && types.AssignableTo(o.Type(), to) {
					hint = fmt.Sprintf("%s is the index of the range; its value is %s: use %s", id.Name, v.Name, use(v.Name))
				}
			} else if types.AssignableTo(vt, to) {
				hint = fmt.Sprintf("%s is the index of the range; its value is %s: use %s", id.Name, v.Name, use(v.Name))
			}
		}
		return false
	})
	return hint
}

// mapArrayAssignHint: an element of an array that a map holds, assigned
// in place (m[k][i] = v, m[k][i]++): the map's value is a copy, so it is
// copied out, changed and stored back, or the map holds pointers.
func (c *checker) mapArrayAssignHint(pos token.Pos) string {
	ix, ok := c.enclosing(pos, func(n ast.Node) bool {
		ix, ok := n.(*ast.IndexExpr)
		if !ok {
			return false
		}
		inner, ok := ast.Unparen(ix.X).(*ast.IndexExpr)
		if !ok {
			return false
		}
		t := c.info.Types[inner.X].Type
		if t == nil {
			return false
		}
		mt, ok := t.Underlying().(*types.Map)
		if !ok {
			return false
		}
		_, isArray := mt.Elem().Underlying().(*types.Array)
		return isArray
	}).(*ast.IndexExpr)
	if !ok {
		return ""
	}
	inner := ast.Unparen(ix.X).(*ast.IndexExpr)
	mt := c.info.Types[inner.X].Type.Underlying().(*types.Map)
	ptrMap := types.NewMap(mt.Key(), types.NewPointer(mt.Elem()))
	return fmt.Sprintf("an array in a map cannot be changed in place: copy it out, change it, store it back (v := %s; v[%s] = ...; %s = v), or make the map hold pointers (%s, each value set to new(%s) before use)",
		c.text(inner), c.text(ix.Index), c.text(inner), c.typeString(ptrMap), c.typeString(mt.Elem()))
}

var (
	reNonLocalMethod = lazyRE(`^cannot define new methods on non-local type (.+)$`)
	reStringAssign   = lazyRE(`^cannot assign to (.+)\[(.+)\] \(neither addressable nor a map index expression\)$`)
)

// argPackageHint: a string (or []byte) given to a function of another
// package that has a function of the same name for it (bytes.Contains or
// unicode.ToUpper given a string: strings.Contains, strings.ToUpper).
func (c *checker) argPackageHint(x ast.Expr, from types.Type, parents map[ast.Node]ast.Node) string {
	call, ok := parents[x].(*ast.CallExpr)
	if !ok {
		return ""
	}
	fn := c.calleeFunc(call)
	if fn == nil || fn.Type().(*types.Signature).Recv() != nil {
		return ""
	}
	var other string
	switch {
	case isString(from):
		other = "strings"
	case isByteSlice(from):
		other = "bytes"
	default:
		return ""
	}
	if fn.Pkg().Path() == other {
		return ""
	}
	op, err := c.cache.Import(other)
	if err != nil {
		return ""
	}
	alt, ok := op.Scope().Lookup(fn.Name()).(*types.Func)
	if !ok {
		return ""
	}
	sig := alt.Type().(*types.Signature)
	if sig.Params().Len() != len(call.Args) {
		return ""
	}
	for i, a := range call.Args {
		if t := c.info.Types[a].Type; t == nil || !fits(t, sig.Params().At(i).Type()) {
			return ""
		}
	}
	return fmt.Sprintf("for %s, package %s has the same function: %s.%s(%s)%s", article(c.typeString(from))+" "+c.typeString(from), other, other, fn.Name(), c.argList(call), c.importNote(other))
}

// alreadyHint: a parse function given a value of the type it returns.
func (c *checker) alreadyHint(x ast.Expr, from types.Type, parents map[ast.Node]ast.Node) string {
	call, ok := parents[x].(*ast.CallExpr)
	if !ok {
		return ""
	}
	fn := c.calleeFunc(call)
	if fn == nil {
		return ""
	}
	res := fn.Type().(*types.Signature).Results()
	if res.Len() == 0 || !types.Identical(res.At(0).Type(), types.Default(from)) {
		return ""
	}
	return fmt.Sprintf("%s is already %s %s: use it as it is, without %s", c.text(x), article(c.typeString(from)), c.typeString(types.Default(from)), c.text(call.Fun))
}

// asFuncHint: an error type's value given to errors.Is or errors.As: the
// package's As<Type> function, if it has one.
func (c *checker) asFuncHint(x ast.Expr, from types.Type, parents map[ast.Node]ast.Node) string {
	call, ok := parents[x].(*ast.CallExpr)
	if !ok {
		return ""
	}
	fn := c.calleeFunc(call)
	if fn == nil || fn.Pkg().Path() != "errors" || len(call.Args) == 0 {
		return ""
	}
	named, ok := types.Unalias(deref(from)).(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return ""
	}
	as := named.Obj().Pkg().Scope().Lookup("As" + named.Obj().Name())
	if as == nil {
		return ""
	}
	q := c.qualifier(named.Obj().Pkg())
	return fmt.Sprintf("to ask whether %s is a %s, use %s.%s: if v, ok := %s.%s(%s); ok { ... }", c.text(call.Args[0]), c.typeString(named), q, as.Name(), q, as.Name(), c.text(call.Args[0]))
}

// textField reports whether a field's name says it holds text of lines.
func textField(name string) bool {
	switch strings.ToLower(name) {
	case "text", "content", "contents", "body", "data", "source", "markdown":
		return true
	}
	return false
}

// pkgNameInFile reports whether name is the name of a package the
// snippet imports.
func (c *checker) pkgNameInFile(name string) bool {
	for _, im := range c.file.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		n := path.Base(p)
		if im.Name != nil {
			n = im.Name.Name
		}
		if n == name {
			return true
		}
	}
	return false
}

// compareDiffHint: a float difference, return a - b, from a comparison
// function (two parameters of one type, an int result, as slices.SortFunc
// and slices.BinarySearchFunc take): converting it to int would make
// values less than 1 apart equal, so name cmp.Compare.
func (c *checker) compareDiffHint(x ast.Expr, from, to types.Type, parents map[ast.Node]ast.Node) string {
	bin, ok := ast.Unparen(x).(*ast.BinaryExpr)
	if !ok || bin.Op != token.SUB {
		return ""
	}
	fb, ok1 := from.Underlying().(*types.Basic)
	tb, ok2 := to.Underlying().(*types.Basic)
	if !ok1 || !ok2 || fb.Info()&types.IsFloat == 0 || tb.Info()&types.IsInteger == 0 {
		return ""
	}
	if _, ok := parents[x].(*ast.ReturnStmt); !ok {
		return ""
	}
	var ftype *ast.FuncType
	for n := parents[x]; n != nil && ftype == nil; n = parents[n] {
		switch f := n.(type) {
		case *ast.FuncLit:
			ftype = f.Type
		case *ast.FuncDecl:
			ftype = f.Type
		}
	}
	if ftype == nil {
		return ""
	}
	sig, ok := c.info.Types[ftype].Type.(*types.Signature)
	if !ok || sig.Params().Len() != 2 || sig.Results().Len() != 1 ||
		!types.Identical(sig.Params().At(0).Type(), sig.Params().At(1).Type()) {
		return ""
	}
	h := fmt.Sprintf("a comparison function returns the sign: return cmp.Compare(%s, %s) (-1, 0 or +1); int(%s) would make values less than 1 apart equal", c.text(bin.X), c.text(bin.Y), c.text(x))
	if !c.pkgNameInFile("cmp") {
		h += `; add import "cmp"`
	}
	return h
}

// numericConvertHint: a typed number where another number type is wanted
// (a float64 for an int field): convert it, saying what a float-to-int
// conversion drops.
func numericConvertHint(c *checker, x ast.Expr, from, to types.Type) string {
	fb, ok1 := from.Underlying().(*types.Basic)
	tb, ok2 := to.Underlying().(*types.Basic)
	if !ok1 || !ok2 || fb.Info()&types.IsUntyped != 0 || fb.Info()&types.IsNumeric == 0 || tb.Info()&types.IsNumeric == 0 {
		return ""
	}
	ft := c.typeString(from)
	article := "a"
	if strings.ContainsRune("aeiou", rune(ft[0])) {
		article = "an"
	}
	if fb.Info()&types.IsInteger != 0 && tb.Info()&types.IsFloat != 0 {
		if div := c.floatDivision(x, c.typeString(to)); div != "" {
			return fmt.Sprintf("%s is %s %s: an integer division, which drops the fraction; convert before dividing, %s", c.text(x), article, ft, div)
		}
	}
	h := fmt.Sprintf("%s is %s %s: convert it, %s(%s)", c.text(x), article, ft, c.typeString(to), c.text(x))
	if fb.Info()&types.IsFloat != 0 && tb.Info()&types.IsInteger != 0 {
		h += " (it drops the fraction; math.Round first to round)"
	}
	return h
}

// floatDivision rewrites x, an integer expression wanted as a float, so
// that its divisions divide floats: every operand that is not a constant is
// converted (float64(a) / float64(b) * 100), constants stay as written. It
// returns "" when x divides nothing or uses an operator floats lack (%, <<).
func (c *checker) floatDivision(x ast.Expr, conv string) string {
	divides, ok := false, true
	var rewrite func(e ast.Expr) string
	rewrite = func(e ast.Expr) string {
		if c.info.Types[e].Value != nil {
			return c.text(e)
		}
		switch e := e.(type) {
		case *ast.ParenExpr:
			return "(" + rewrite(e.X) + ")"
		case *ast.BinaryExpr:
			switch e.Op {
			case token.QUO:
				divides = true
			case token.ADD, token.SUB, token.MUL:
			default:
				ok = false
			}
			return rewrite(e.X) + " " + e.Op.String() + " " + rewrite(e.Y)
		}
		return conv + "(" + c.text(e) + ")"
	}
	s := rewrite(x)
	if !divides || !ok {
		return ""
	}
	return s
}

// lastUseNote: the hint removes fun (pkg.F), the snippet's only use of
// pkg: say to drop its import too, which would be the next error.
func (c *checker) lastUseNote(fun ast.Expr) string {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return ""
	}
	pn, ok := c.info.Uses[id].(*types.PkgName)
	if !ok {
		return ""
	}
	for use, obj := range c.info.Uses {
		if obj == pn && use != id {
			return ""
		}
	}
	return fmt.Sprintf(", and remove the import of %q, which nothing else uses", pn.Imported().Path())
}

// enumPointerHint: a pointer (mcp.Ptr(v), &v or a pointer variable) where a
// named type of the generated API is wanted, a field that is no pointer
// because its type has constants (an enum such as SortBy "name" | "size").
// It names the constant whose value v holds, or the constants and the
// conversion.
func (c *checker) enumPointerHint(x ast.Expr, from types.Type, named *types.Named) string {
	fp, ok := from.Underlying().(*types.Pointer)
	if !ok || !types.ConvertibleTo(fp.Elem(), named) {
		return ""
	}
	toS := c.typeString(named)
	inner := "*" + c.text(x)
	var val constant.Value
	note := ""
	switch e := x.(type) {
	case *ast.CallExpr:
		if len(e.Args) == 1 {
			inner, val, note = c.text(e.Args[0]), c.info.Types[e.Args[0]].Value, c.lastUseNote(e.Fun)
		}
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			inner = c.text(e.X)
		}
	}
	consts := constantsOf(named)
	if val != nil {
		for _, n := range consts {
			k, _ := named.Obj().Pkg().Scope().Lookup(n).(*types.Const)
			if k != nil && k.Val().Kind() == val.Kind() && constant.Compare(k.Val(), token.EQL, val) {
				return fmt.Sprintf("the field is a plain %s, not a pointer: write its constant %s%s", toS, c.qualified(named, []string{n})[0], note)
			}
		}
	}
	h := fmt.Sprintf("the field is a plain %s, not a pointer: write %s(%s)", toS, toS, inner)
	if len(consts) > 0 {
		h += ", or one of its constants: " + strings.Join(c.qualified(named, consts), ", ")
	}
	return h + note
}
