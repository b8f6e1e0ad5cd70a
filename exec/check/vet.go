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

// checkVet reports what go vet reports and a snippet's author means to
// fix, from the types: fmt's format verbs against their arguments (and a
// format string given to Println), %w given a non-error, a lock or
// WaitGroup passed by value, a struct tag that is not key:"value", and
// errors.As given a pointer it cannot set. Each message says what to
// write instead.
func (c *checker) checkVet() {
	if c.info == nil {
		return
	}
	// A check that fails on a shape of code it did not foresee reports
	// nothing rather than failing the whole check.
	defer func() { _ = recover() }()
	ast.Inspect(c.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			c.vetPrintf(n)
			c.vetUnmarshal(n)
			c.vetSortMap(n)
			c.vetTimeLayout(n)
		case *ast.FuncType:
			c.vetLockParams(n)
		case *ast.FuncDecl:
			c.vetLockRecv(n)
		case *ast.StructType:
			c.vetTags(n)
		}
		return true
	})
	c.vetRequiredNil()
	c.vetLoopBreaks()
}

// vetLoopBreaks reports a plain break that ends a case of a switch or
// select inside a loop (staticcheck's SA4011): it leaves the switch or
// select, which the case leaves anyway, and the loop goes on, while its
// author meant to leave the loop.
func (c *checker) vetLoopBreaks() {
	var visit func(n ast.Node, loop string)
	visit = func(n ast.Node, loop string) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.FuncLit:
				visit(m.Body, "")
				return false
			case *ast.ForStmt:
				if m != n {
					visit(m.Body, "for")
					return false
				}
			case *ast.RangeStmt:
				if m != n {
					visit(m.Body, "for")
					return false
				}
			case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				if loop == "" || m == n {
					return true
				}
				kind := map[bool]string{true: "select", false: "switch"}[isSelect(m)]
				var body *ast.BlockStmt
				switch m := m.(type) {
				case *ast.SwitchStmt:
					body = m.Body
				case *ast.TypeSwitchStmt:
					body = m.Body
				case *ast.SelectStmt:
					body = m.Body
				}
				for _, cl := range body.List {
					var stmts []ast.Stmt
					switch cl := cl.(type) {
					case *ast.CaseClause:
						stmts = cl.Body
					case *ast.CommClause:
						stmts = cl.Body
					}
					if len(stmts) == 0 {
						continue
					}
					if br, ok := stmts[len(stmts)-1].(*ast.BranchStmt); ok && br.Tok == token.BREAK && br.Label == nil {
						c.errorf(br.Pos(), "to leave the loop, label it and break the label: outer: for ... { ... break outer }, or return",
							"this break ends the %s, not the for loop around it (the %s's case ends there anyway)", kind, kind)
					}
				}
				visit(body, loop)
				return false
			}
			return true
		})
	}
	for _, d := range c.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			visit(fd.Body, "")
		}
	}
}

func isSelect(n ast.Node) bool {
	_, ok := n.(*ast.SelectStmt)
	return ok
}

// vetRequiredNil reports a literal of a server's argument type that leaves
// out a required slice or map field (no omitempty: the tool's schema
// requires it) where nothing can set it later: the literal is a call's
// argument or an element of another literal. encoding/json sends the nil
// field as null, which the server refuses at run time ("expected array,
// received null") without naming the line.
func (c *checker) vetRequiredNil() {
	var stack []ast.Node
	ast.Inspect(c.file, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		lit, ok := n.(*ast.CompositeLit)
		if !ok || len(stack) < 2 {
			return true
		}
		switch stack[len(stack)-2].(type) {
		case *ast.CallExpr, *ast.CompositeLit, *ast.KeyValueExpr:
		default:
			return true
		}
		named, ok := types.Unalias(c.info.TypeOf(lit)).(*types.Named)
		if !ok || named.Obj().Pkg() == nil || !strings.HasPrefix(named.Obj().Pkg().Path(), treePrefix+"servers/") {
			return true
		}
		st, ok := named.Underlying().(*types.Struct)
		if !ok {
			return true
		}
		fields := map[string]bool{}
		for i := 0; i < st.NumFields(); i++ {
			fields[st.Field(i).Name()] = true
		}
		set := map[string]bool{}
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				return true // positional: every field is given
			}
			id, ok := kv.Key.(*ast.Ident)
			if !ok || !fields[id.Name] {
				return true // a misspelt field: its own message names the right one
			}
			set[id.Name] = true
		}
		q := func(p *types.Package) string { return c.qualifier(p) }
		for _, f := range requiredFields(st) {
			if set[f.Name()] {
				continue
			}
			var empty string
			switch f.Type().Underlying().(type) {
			case *types.Slice, *types.Map:
				empty = types.TypeString(f.Type(), q) + "{}"
			default:
				continue
			}
			c.errorf(lit.Pos(), fmt.Sprintf("write %s: %s (empty) or give its values", f.Name(), empty),
				"%s leaves out %s, which the tool requires (no omitempty): a nil %s is sent as null, not the %s the server expects",
				types.TypeString(named, q), f.Name(), types.TypeString(f.Type(), q), map[bool]string{true: "array", false: "object"}[isSlice(f.Type())])
		}
		return true
	})
}

// vetFmtFuncs maps fmt's formatting functions to the index of their format.
var vetFmtFuncs = map[string]int{
	"Printf": 0, "Sprintf": 0, "Errorf": 0, "Fprintf": 1, "Appendf": 1,
}

var fmtLineFuncs = map[string]string{
	"Println": "Printf", "Print": "Printf", "Sprintln": "Sprintf", "Sprint": "Sprintf",
}

func (c *checker) vetPrintf(call *ast.CallExpr) {
	fn := c.calleeFunc(call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "fmt" || call.Ellipsis.IsValid() {
		return
	}
	c.vetFuncArgs(fn, call)
	c.vetPrintedValues(fn, call)
	if f, ok := fmtLineFuncs[fn.Name()]; ok {
		if len(call.Args) < 2 {
			return
		}
		tv := c.info.Types[call.Args[0]]
		if tv.Value == nil || tv.Value.Kind() != constant.String {
			return
		}
		s := constant.StringVal(tv.Value)
		if verbs, ok := parseVerbs(s); ok && len(verbs) > 0 && len(verbs) == len(call.Args)-1 && plainVerbs(verbs) {
			nl := ""
			if strings.HasSuffix(fn.Name(), "ln") && !strings.HasSuffix(s, "\\n") {
				nl = `\n`
			}
			args := make([]string, len(call.Args)-1)
			for i, a := range call.Args[1:] {
				args[i] = c.text(a)
			}
			c.errorf(call.Pos(), fmt.Sprintf("fmt.%s formats: write fmt.%s(%s, %s)", f, f, strconv.Quote(s)[:len(strconv.Quote(s))-1]+nl+`"`, strings.Join(args, ", ")),
				"fmt.%s does not format: %q has the directive %s", fn.Name(), s, verbs[0].text)
		}
		return
	}
	fi, ok := vetFmtFuncs[fn.Name()]
	if !ok || len(call.Args) <= fi {
		return
	}
	tv := c.info.Types[call.Args[fi]]
	if tv.Value == nil || tv.Value.Kind() != constant.String {
		return
	}
	format := constant.StringVal(tv.Value)
	if trailingPercent(format) {
		c.errorf(call.Pos(), fmt.Sprintf("a literal %% is written %%%%: %q", format+"%"),
			"fmt.%s format %q ends with a lone %%", fn.Name(), format)
		return
	}
	verbs, ok := parseVerbs(format)
	if !ok {
		return
	}
	args := call.Args[fi+1:]
	if len(verbs) != len(args) {
		what, kind := "add the missing argument", "missing argument"
		if len(verbs) < len(args) {
			what, kind = "drop the extra argument, or add its verb (%v)", "extra argument"
			if fn.Name() == "Errorf" && types.Implements(c.info.Types[args[len(args)-1]].Type, types.Universe.Lookup("error").Type().Underlying().(*types.Interface)) {
				what = "wrap the error with a %w verb for it (\"...: %w\"), or drop it"
			}
		}
		c.errorf(call.Pos(), fmt.Sprintf("each verb takes one argument, in order: %s", what),
			"fmt.%s format %q has %d verbs but %d arguments: %s", fn.Name(), format, len(verbs), len(args), kind)
		return
	}
	for i, v := range verbs {
		a := args[i]
		t := c.info.Types[a].Type
		if t == nil {
			continue
		}
		if h := c.verbFix(fn.Name(), v, a, t); h != "" {
			c.errorf(a.Pos(), h, "fmt.%s format %s has arg %s of wrong type %s", fn.Name(), v.text, c.text(a), c.typeString(t))
		}
	}
}

// fmtVerb is one directive of a format string.
type fmtVerb struct {
	verb rune
	text string
}

// parseVerbs reads a format's directives; ok is false when it uses
// explicit argument indexes or * (counted here as not understood).
func parseVerbs(s string) (verbs []fmtVerb, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(s) && strings.IndexByte("+-# 0123456789.", s[j]) >= 0 {
			j++
		}
		if j >= len(s) {
			return nil, false
		}
		if s[j] == '[' || s[j] == '*' {
			return nil, false
		}
		r, size := utf8.DecodeRuneInString(s[j:])
		if r == '%' {
			i = j
			continue
		}
		verbs = append(verbs, fmtVerb{verb: r, text: s[i : j+size]})
		i = j + size - 1
	}
	return verbs, true
}

// verbFix says what to write when the argument a of type t does not suit
// the verb, or "".
func (c *checker) verbFix(fname string, v fmtVerb, a ast.Expr, t types.Type) string {
	if implements(t, "Format") {
		return ""
	}
	if _, ok := t.Underlying().(*types.Interface); ok {
		return "" // what it holds is known only when it runs
	}
	switch t.Underlying().(type) {
	case *types.Struct, *types.Map, *types.Array:
		// fmt applies the verb to each field or element.
		if v.verb != 'w' && v.verb != 't' {
			return ""
		}
	}
	as := c.text(a)
	isErr := types.Implements(t, types.Universe.Lookup("error").Type().Underlying().(*types.Interface))
	stringer := isErr || implements(t, "String")
	basic, _ := t.Underlying().(*types.Basic)
	isInt := basic != nil && basic.Info()&types.IsInteger != 0
	isFloat := basic != nil && basic.Info()&(types.IsFloat|types.IsComplex) != 0
	isStr := basic != nil && basic.Info()&types.IsString != 0
	isBool := basic != nil && basic.Info()&types.IsBoolean != 0
	isBytes := isByteSlice(t)
	dur := false
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration" {
		dur = true
	}
	switch v.verb {
	case 'd', 'o', 'O', 'b', 'c', 'U':
		if isInt || (v.verb == 'b' && isFloat) {
			return ""
		}
		if _, ok := t.Underlying().(*types.Pointer); ok {
			return ""
		}
		if comp, ok := t.Underlying().(interface{ Elem() types.Type }); ok && !isStr {
			if intsOnly(comp.Elem(), 0) {
				return ""
			}
			if _, isSlice := t.Underlying().(*types.Slice); isSlice {
				return fmt.Sprintf("%s formats integers, and the elements of %s are not: for its length write len(%s); for the elements, %%v", v.text, as, as)
			}
			return ""
		}
		switch {
		case isStr || stringer:
			return fmt.Sprintf("%s formats an integer; for a %s write %%s (or %%v)", v.text, c.typeString(t))
		case isFloat:
			return fmt.Sprintf("%s formats an integer; for a float write %%g, %%.2f (or %%v), or convert, int(%s)", v.text, as)
		case isBool:
			return fmt.Sprintf("%s formats an integer; for a bool write %%t (or %%v)", v.text)
		}
	case 'x', 'X':
		if isInt || isStr || isBytes || isFloat || stringer {
			return ""
		}
		switch t.Underlying().(type) {
		case *types.Pointer, *types.Slice, *types.Array, *types.Chan, *types.Signature:
			return ""
		}
	case 'e', 'E', 'f', 'F', 'g', 'G':
		if isFloat {
			return ""
		}
		switch {
		case dur:
			return fmt.Sprintf("a time.Duration is an integer of nanoseconds: for seconds as a float write %s with %s.Seconds() (or %%v, or %%s, which print it as 1.5s)", v.text, as)
		case isInt:
			if b, ok := ast.Unparen(a).(*ast.BinaryExpr); ok && b.Op == token.QUO {
				conv := func(e ast.Expr) string {
					if c.info.Types[e].Value != nil && (e == b.Y || c.info.Types[b.Y].Value == nil) {
						return c.text(e)
					}
					return "float64(" + c.text(e) + ")"
				}
				return fmt.Sprintf("%s formats a float, and %s is an integer division, which drops the fraction: convert before dividing, %s / %s", v.text, as, conv(b.X), conv(b.Y))
			}
			return fmt.Sprintf("%s formats a float; for an integer write %%d, or convert, float64(%s)", v.text, as)
		case isStr:
			return fmt.Sprintf("%s formats a float; for a string write %%s", v.text)
		}
	case 's', 'q':
		if isStr || isBytes || stringer || (v.verb == 'q' && isInt) {
			return ""
		}
		if s, ok := t.Underlying().(*types.Slice); ok {
			if eb, ok := s.Elem().Underlying().(*types.Basic); ok && eb.Info()&types.IsString != 0 {
				return ""
			}
		}
		switch {
		case isInt:
			return fmt.Sprintf("%s formats a string; for an integer write %%d (or %%v)", v.text)
		case isFloat:
			return fmt.Sprintf("%s formats a string; for a float write %%g, %%.2f (or %%v)", v.text)
		case isBool:
			return fmt.Sprintf("%s formats a string; for a bool write %%t (or %%v)", v.text)
		}
	case 't':
		if isBool {
			return ""
		}
		return fmt.Sprintf("%%t formats a bool; for a %s write %%v", c.typeString(t))
	case 'w':
		if fname != "Errorf" {
			return "only fmt.Errorf wraps with %w: write %v"
		}
		if isErr {
			return ""
		}
		if isStr {
			return fmt.Sprintf("%%w wraps an error; %s is a string: write %%s (or %%v), or make it an error, errors.New(%s)", as, as)
		}
		return fmt.Sprintf("%%w wraps an error; %s is a %s: write %%v", as, c.typeString(t))
	}
	return ""
}

// implements reports whether t (or *t) has a method name.
func implements(t types.Type, name string) bool {
	for _, tt := range []types.Type{t, types.NewPointer(t)} {
		if _, isPtr := t.(*types.Pointer); isPtr && tt != t {
			continue
		}
		obj, _, _ := types.LookupFieldOrMethod(tt, true, nil, name)
		if _, ok := obj.(*types.Func); ok {
			// A value's method set: only value receivers count for t.
			if tt == t {
				ms := types.NewMethodSet(t)
				if ms.Lookup(nil, name) == nil {
					continue
				}
			}
			return true
		}
	}
	return false
}

// vetLockParams: a parameter whose type holds a sync lock or WaitGroup by
// value (a copy, which the caller's Wait or Unlock never sees).
func (c *checker) vetLockParams(ft *ast.FuncType) {
	if ft.Params == nil {
		return
	}
	for _, f := range ft.Params.List {
		t := c.info.TypeOf(f.Type)
		if t == nil {
			continue
		}
		if lock := lockIn(t, 0); lock != "" {
			ts := c.typeString(t)
			c.errorf(f.Type.Pos(), fmt.Sprintf("take a pointer, *%s, and pass its address (&x); a copy's %s never reaches the caller's", ts, lockWord(lock)),
				"parameter of type %s passes a lock by value: %s contains %s", ts, ts, lock)
		}
	}
}

// vetLockRecv: a method whose value receiver holds a sync lock or
// WaitGroup: it locks (or counts on) a copy, so the value it was called on
// never sees it, as go vet reports ("passes lock by value").
func (c *checker) vetLockRecv(fd *ast.FuncDecl) {
	if fd.Recv == nil || len(fd.Recv.List) != 1 {
		return
	}
	f := fd.Recv.List[0]
	if _, ok := f.Type.(*ast.StarExpr); ok {
		return
	}
	t := c.info.TypeOf(f.Type)
	if t == nil {
		return
	}
	if _, ok := t.Underlying().(*types.Pointer); ok {
		return
	}
	lock := lockIn(t, 0)
	if lock == "" {
		return
	}
	ts := c.text(f.Type)
	recv := "*" + ts
	if len(f.Names) == 1 {
		recv = f.Names[0].Name + " *" + ts
	}
	c.errorf(f.Type.Pos(), fmt.Sprintf("use a pointer receiver, func (%s) %s%s: a value receiver gets a copy, with its own %s, so neither the lock nor the changes reach the value the method is called on", recv, fd.Name.Name, c.text(fd.Type.Params), lock),
		"%s passes a lock by value: %s contains %s", fd.Name.Name, ts, lock)
}

func lockWord(lock string) string {
	if strings.Contains(lock, "WaitGroup") {
		return "Done"
	}
	return "Unlock"
}

// lockIn names the sync type that t holds by value, or "".
func lockIn(t types.Type, depth int) string {
	if depth > 4 {
		return ""
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "sync" {
		switch n.Obj().Name() {
		case "Mutex", "RWMutex", "WaitGroup", "Once", "Cond":
			return "sync." + n.Obj().Name()
		}
		return ""
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if l := lockIn(u.Field(i).Type(), depth+1); l != "" {
				return l
			}
		}
	case *types.Array:
		return lockIn(u.Elem(), depth+1)
	}
	return ""
}

// vetTags: a struct tag that is not a list of key:"value".
func (c *checker) vetTags(st *ast.StructType) {
	for _, f := range st.Fields.List {
		if f.Tag == nil {
			continue
		}
		raw, err := strconv.Unquote(f.Tag.Value)
		if err != nil || validTag(raw) {
			continue
		}
		c.errorf(f.Tag.Pos(), fmt.Sprintf("a tag is key:\"value\" pairs separated by spaces, the value in double quotes: write `%s`", fixTag(raw)),
			"struct field tag `%s` is not key:\"value\" (json and other packages ignore it)", raw)
	}
}

// validTag follows reflect.StructTag's syntax, as go vet does.
func validTag(tag string) bool {
	for tag != "" {
		i := 0
		for i < len(tag) && tag[i] == ' ' {
			i++
		}
		tag = tag[i:]
		if tag == "" {
			break
		}
		i = 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			return false
		}
		tag = tag[i+1:]
		q, err := strconv.QuotedPrefix(tag)
		if err != nil {
			return false
		}
		tag = tag[len(q):]
		if tag != "" && tag[0] != ' ' {
			return false
		}
	}
	return true
}

// fixTag quotes the values of a tag written key:value, key: "value" or
// key='value'.
func fixTag(tag string) string {
	var out []string
	for _, m := range reTagPair.FindAllStringSubmatch(tag, -1) {
		out = append(out, m[1]+":"+strconv.Quote(m[2]))
	}
	if len(out) == 0 {
		return tag
	}
	return strings.Join(out, " ")
}

var reTagPair = lazyRE(`(\w+)\s*:\s*['"]?([^'"\s]*)['"]?`)

// vetUnmarshal: json.Unmarshal or a Decoder's Decode given a value, not a
// pointer (it cannot set it).
func (c *checker) vetUnmarshal(call *ast.CallExpr) {
	fn, _ := c.calleeFuncOrMethod(call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "encoding/json" {
		return
	}
	var arg ast.Expr
	switch fn.Name() {
	case "Unmarshal":
		if len(call.Args) == 2 {
			arg = call.Args[1]
		}
	case "Decode":
		if len(call.Args) == 1 {
			arg = call.Args[0]
		}
	}
	if arg == nil {
		return
	}
	t := c.info.Types[arg].Type
	if t == nil {
		return
	}
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Interface:
		return
	}
	a := c.text(arg)
	c.errorf(arg.Pos(), fmt.Sprintf("it fills what the pointer points to: pass the address, &%s", a),
		"%s.%s is given %s, a %s, not a pointer: it cannot set it", fn.Pkg().Name(), fn.Name(), a, c.typeString(t))
}

// vetSortMap: sort.Slice (SliceStable, SliceIsSorted) given a map, which
// has no order to sort: it panics at run time. Its keys, collected into a
// slice, sort.
func (c *checker) vetSortMap(call *ast.CallExpr) {
	fn, _ := c.calleeFuncOrMethod(call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "sort" || !strings.HasPrefix(fn.Name(), "Slice") || len(call.Args) == 0 {
		return
	}
	arg := call.Args[0]
	t := c.info.Types[arg].Type
	if t == nil {
		return
	}
	if _, ok := t.Underlying().(*types.Map); !ok {
		return
	}
	if len(call.Args) == 2 {
		// The less function indexes the map with the slice's int
		// positions: its type errors there ("int as string value in map
		// index") follow from the map and would ask for a conversion.
		from, to := c.position(call.Args[1].Pos()), c.position(call.Args[1].End())
		kept := c.errs[:0]
		for _, e := range c.errs {
			if strings.Contains(e.Msg, "in map index") && e.Pos.Offset >= from.Offset && e.Pos.Offset < to.Offset {
				continue
			}
			kept = append(kept, e)
		}
		c.errs = kept
	}
	a := c.text(arg)
	c.errorf(arg.Pos(), fmt.Sprintf("sort its keys: keys := slices.Sorted(maps.Keys(%s))%s, then range over keys and read %s[k]; to order by value, sort.Slice(keys, func(i, j int) bool { return %s[keys[i]] > %s[keys[j]] })",
		a, importsNote(c, "slices", "maps"), a, a, a),
		"sort.%s sorts a slice, and %s is a %s: a map has no order, and sort.%s panics on it", fn.Name(), a, c.typeString(t), fn.Name())
}

// vetTimeLayout: time.Parse (ParseInLocation) given its text first and
// its layout second, or a layout written in another language's pattern
// letters (YYYY-MM-DD) where Go writes the reference time (2006-01-02).
// Both fail at run time, with an error a snippet often drops.
func (c *checker) vetTimeLayout(call *ast.CallExpr) {
	fn, _ := c.calleeFuncOrMethod(call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "time" {
		return
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return
	}
	switch {
	case (fn.Name() == "Parse" || fn.Name() == "ParseInLocation") && sig.Recv() == nil && len(call.Args) >= 2:
		layout, text := c.constString(call.Args[0]), c.constString(call.Args[1])
		// A text given as a constant that holds the reference year is a
		// layout; against a layout given as a constant, any clock of it.
		swapped := text != nil && (strings.Contains(*text, "2006") || layout != nil && isGoLayout(*text) && !isGoLayout(*layout))
		if swapped {
			args := append([]string{c.text(call.Args[1]), c.text(call.Args[0])}, c.texts(call.Args[2:])...)
			c.errorf(call.Args[0].Pos(), fmt.Sprintf("swap them: time.%s(%s)", fn.Name(), strings.Join(args, ", ")),
				"time.%s takes the layout first, then the text: %s is the layout", fn.Name(), c.text(call.Args[1]))
			return
		}
		c.vetPatternLayout(fn, call.Args[0])
	case fn.Name() == "Format" && sig.Recv() != nil && len(call.Args) == 1:
		c.vetPatternLayout(fn, call.Args[0])
	}
}

// vetPatternLayout: a constant layout in pattern letters (YYYY-MM-DD
// HH:mm:ss), which Go's time package reads as text.
func (c *checker) vetPatternLayout(fn *types.Func, arg ast.Expr) {
	l := c.constString(arg)
	if l == nil || isGoLayout(*l) {
		return
	}
	fixed := strings.NewReplacer("YYYY", "2006", "yyyy", "2006", "YY", "06", "yy", "06",
		"MM", "01", "DD", "02", "dd", "02", "HH", "15", "hh", "03", "mm", "04", "ss", "05", "SS", "05").Replace(*l)
	if fixed == *l || !isGoLayout(fixed) {
		return
	}
	name := "time." + fn.Name()
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		name = "a time.Time's " + fn.Name()
	}
	c.errorf(arg.Pos(), fmt.Sprintf("write the reference time in its place: %q", fixed),
		"%s is not a Go layout: %s reads a layout as the reference time Mon Jan 2 15:04:05 MST 2006 written the way you want (2006 the year, 01 the month, 02 the day, 15:04:05 the time)", c.text(arg), name)
}

// isGoLayout reports whether s holds a year or a clock of the reference
// time, as every useful layout does.
func isGoLayout(s string) bool {
	return strings.Contains(s, "2006") || strings.Contains(s, "15:04") || strings.Contains(s, "03:04") ||
		(strings.Contains(s, "01") && strings.Contains(s, "02") && strings.Contains(s, "06"))
}

// constString is the value of a constant string expression, or nil.
func (c *checker) constString(e ast.Expr) *string {
	tv := c.info.Types[e]
	if tv.Value == nil || tv.Value.Kind() != constant.String {
		return nil
	}
	s := constant.StringVal(tv.Value)
	return &s
}

// texts is the source text of each expression.
func (c *checker) texts(es []ast.Expr) []string {
	var out []string
	for _, e := range es {
		out = append(out, c.text(e))
	}
	return out
}

// importsNote names the imports of paths the snippet lacks: ` (import
// "slices", "maps")`, or "".
func importsNote(c *checker, paths ...string) string {
	var missing []string
	for _, p := range paths {
		if !c.imports[p] {
			missing = append(missing, strconv.Quote(p))
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return " (import " + strings.Join(missing, ", ") + ")"
}

// vetFuncArgs: a function or method value printed by fmt (it prints an
// address): the call meant.
func (c *checker) vetFuncArgs(fn *types.Func, call *ast.CallExpr) {
	if !strings.Contains(fn.Name(), "rint") && fn.Name() != "Errorf" {
		return
	}
	for _, a := range call.Args {
		if _, ok := a.(*ast.FuncLit); ok {
			continue
		}
		if sig, ok := c.info.Types[a].Type.(*types.Signature); ok && sig.Params().Len() == 0 && sig.Results().Len() == 1 {
			c.errorf(a.Pos(), fmt.Sprintf("call it: %s()", c.text(a)), "fmt.%s arg %s is a func value, not called", fn.Name(), c.text(a))
		}
	}
}

// plainVerbs reports whether every directive is a common verb without a
// space flag ("50% off" is text, not a directive).
func plainVerbs(verbs []fmtVerb) bool {
	for _, v := range verbs {
		if strings.Contains(v.text, " ") || !strings.ContainsRune("dvsfqxtgT", v.verb) {
			return false
		}
	}
	return true
}

// trailingPercent reports whether s ends with a % that starts nothing.
func trailingPercent(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '%'; i-- {
		n++
	}
	if n%2 == 0 {
		return false
	}
	// "%5%"-like endings are handled by parseVerbs; a lone % is odd.
	return true
}

// intsOnly reports whether %d can print every part of t: integers, or
// structs, arrays and slices of them (and pointers).
func intsOnly(t types.Type, depth int) bool {
	if depth > 3 {
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&types.IsInteger != 0
	case *types.Pointer, *types.Interface:
		return true
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if !intsOnly(u.Field(i).Type(), depth+1) {
				return false
			}
		}
		return true
	case *types.Slice:
		return intsOnly(u.Elem(), depth+1)
	case *types.Array:
		return intsOnly(u.Elem(), depth+1)
	case *types.Map:
		return intsOnly(u.Key(), depth+1) && intsOnly(u.Elem(), depth+1)
	}
	return false
}

// vetPrintedValues: what fmt prints otherwise than its author means, in
// valid Go that go vet passes: the []byte text of an encoder (json.Marshal)
// printed by Print or Println (it prints the numbers of the bytes,
// [123 34 ...]), and a value of another package's type whose String or
// Error method has a pointer receiver (fmt sees only the value's method
// set, so it prints the unexported fields: a strings.Builder prints
// {<nil> [104 105]}). A []byte of other origins, and the snippet's own
// types, print as Go prints them: a program may mean that.
func (c *checker) vetPrintedValues(fn *types.Func, call *ast.CallExpr) {
	name := fn.Name()
	_, line := fmtLineFuncs[name]
	_, fmtd := vetFmtFuncs[name]
	first := 0
	if strings.HasPrefix(name, "F") || strings.HasPrefix(name, "Append") {
		first = 1
	}
	if !line && !fmtd && !strings.HasPrefix(name, "F") {
		return
	}
	if name == "Fprint" || name == "Fprintln" {
		line = true
	}
	var verbs []fmtVerb
	if !line {
		fi := vetFmtFuncs[name]
		tv := c.info.Types[call.Args[fi]]
		if tv.Value == nil || tv.Value.Kind() != constant.String {
			return
		}
		var ok bool
		if verbs, ok = parseVerbs(constant.StringVal(tv.Value)); !ok {
			return
		}
		first = fi + 1
	}
	for i := first; i < len(call.Args); i++ {
		a := call.Args[i]
		t := c.info.Types[a].Type
		if t == nil {
			continue
		}
		verb := 'v'
		if !line {
			if i-first >= len(verbs) {
				return
			}
			verb = verbs[i-first].verb
		}
		as := c.text(a)
		if line && isByteSlice(t) && c.encodedText(a) {
			c.errorf(a.Pos(), fmt.Sprintf("for its text write string(%s); for the numbers, fmt.Printf(\"%%v\\n\", %s)", as, as),
				"fmt.%s prints %s, a %s, as a list of byte values", name, as, c.typeString(t))
			continue
		}
		if verb != 'v' && verb != 's' && verb != 'q' {
			continue
		}
		if _, isPtr := t.Underlying().(*types.Pointer); isPtr {
			continue
		}
		if _, isIface := t.Underlying().(*types.Interface); isIface {
			continue
		}
		// Only types of other packages: their fields are unexported
		// internals, never what a print of them means to show.
		if n, ok := types.Unalias(t).(*types.Named); !ok || n.Obj().Pkg() == nil || n.Obj().Pkg() == c.pkg {
			continue
		}
		for _, m := range []string{"Error", "String"} {
			if types.NewMethodSet(t).Lookup(nil, m) != nil || types.NewMethodSet(types.NewPointer(t)).Lookup(nil, m) == nil {
				continue
			}
			fix := as + "." + m + "()"
			if !addressable(a) {
				fix = as + "." + m + "() on a variable"
			}
			c.errorf(a.Pos(), fmt.Sprintf("%s has a pointer receiver, so fmt does not call it on a %s value and prints its fields: write %s (or pass &%s)", m, c.typeString(t), fix, as),
				"fmt.%s prints the fields of %s, not its %s method", name, as, m)
			break
		}
	}
}

// addressable reports whether e can be written as &e.
func addressable(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		return addressable(e.X)
	case *ast.IndexExpr:
		return true
	case *ast.CompositeLit:
		return true
	}
	return false
}

// encodedText reports whether e is the []byte result of a function of an
// encoding package (json.Marshal, xml.MarshalIndent, ...), called there or
// assigned to the variable e names.
func (c *checker) encodedText(e ast.Expr) bool {
	fromEncoder := func(x ast.Expr) bool {
		call, ok := ast.Unparen(x).(*ast.CallExpr)
		if !ok {
			return false
		}
		fn, _ := c.calleeFuncOrMethod(call)
		return fn != nil && fn.Pkg() != nil && strings.HasPrefix(fn.Pkg().Path(), "encoding/")
	}
	if fromEncoder(e) {
		return true
	}
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	obj := c.info.ObjectOf(id)
	if obj == nil {
		return false
	}
	found := false
	ast.Inspect(c.file, func(n ast.Node) bool {
		a, ok := n.(*ast.AssignStmt)
		if !ok || found {
			return !found
		}
		for i, l := range a.Lhs {
			li, ok := l.(*ast.Ident)
			if !ok || c.info.ObjectOf(li) != obj {
				continue
			}
			switch {
			case len(a.Rhs) == len(a.Lhs):
				found = fromEncoder(a.Rhs[i])
			case len(a.Rhs) == 1:
				found = fromEncoder(a.Rhs[0])
			}
		}
		return !found
	})
	return found
}

func isSlice(t types.Type) bool {
	_, ok := t.Underlying().(*types.Slice)
	return ok
}
