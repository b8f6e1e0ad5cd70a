package shim

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// ImportPath is the import path under which the interpreter sees this
// package.
const ImportPath = "mcpfs/internal/shim"

// Kind is the shape of the value a Value stands for.
type Kind uint8

// Kinds of Value.
const (
	Basic     Kind = iota // V is the value as its underlying predeclared type
	Struct                // Fields and Elems
	Slice                 // Elems; Nil for a nil slice
	Array                 // Elems
	Map                   // Keys, Elems and Sort; Nil for a nil map
	Pointer               // Elem (top level) or V (the pointer, deeper); Nil
	Interface             // a nil interface value (deeper than the top level)
)

// Value formats as the value of an interpreted type that it stands for.
type Value struct {
	Type   string // Go's name of the type (reflect's), for %T and %#v
	Kind   Kind
	Nil    bool
	V      any
	Fields []string // struct field names
	Elems  []any    // struct fields, slice and array elements, map values
	Keys   []any    // map keys
	Sort   []any    // map keys as fmt sorts them (underlying values)
	Elem   any      // the pointee of a top-level pointer

	// The methods of the type that fmt calls, when it has them and fmt
	// may call them (not through unexported fields).
	Str, Err, GoStr func() string
	Fmt             func(fmt.State, rune)
}

// Format implements fmt.Formatter: it writes the value as fmt would write
// the original.
func (v *Value) Format(f fmt.State, verb rune) {
	var b bytes.Buffer
	s := stateOf(f, verb)
	v.write(&b, s, verb, 0)
	f.Write(b.Bytes())
}

// state is the flags of one directive.
type state struct {
	plus, minus, sharp, space, zero bool
	width, prec                     int
	hasWidth, hasPrec               bool
}

func stateOf(f fmt.State, verb rune) *state {
	s := &state{plus: f.Flag('+'), minus: f.Flag('-'), sharp: f.Flag('#'), space: f.Flag(' '), zero: f.Flag('0')}
	s.width, s.hasWidth = f.Width()
	s.prec, s.hasPrec = f.Precision()
	return s
}

func (s *state) sharpV(verb rune) bool { return verb == 'v' && s.sharp }
func (s *state) plusV(verb rune) bool  { return verb == 'v' && s.plus }

// directive writes the fmt directive for verb with s's flags.
func (s *state) directive(verb rune) string {
	var b strings.Builder
	b.WriteByte('%')
	if s.plus {
		b.WriteByte('+')
	}
	if s.minus {
		b.WriteByte('-')
	}
	if s.sharp {
		b.WriteByte('#')
	}
	if s.space {
		b.WriteByte(' ')
	}
	if s.zero {
		b.WriteByte('0')
	}
	if s.hasWidth {
		b.WriteString(strconv.Itoa(s.width))
	}
	if s.hasPrec {
		b.WriteByte('.')
		b.WriteString(strconv.Itoa(s.prec))
	}
	b.WriteRune(verb)
	return b.String()
}

// fstate is an fmt.State over a buffer, for Format methods below the top.
type fstate struct {
	w *bytes.Buffer
	s *state
}

func (f fstate) Write(p []byte) (int, error) { return f.w.Write(p) }
func (f fstate) Width() (int, bool)          { return f.s.width, f.s.hasWidth }
func (f fstate) Precision() (int, bool)      { return f.s.prec, f.s.hasPrec }
func (f fstate) Flag(c int) bool {
	switch c {
	case '+':
		return f.s.plus
	case '-':
		return f.s.minus
	case '#':
		return f.s.sharp
	case ' ':
		return f.s.space
	case '0':
		return f.s.zero
	}
	return false
}

// methods applies the methods fmt calls (handleMethods in fmt/print.go)
// and reports whether one wrote the value.
func (v *Value) methods(w *bytes.Buffer, s *state, verb rune) (done bool) {
	if v.Kind == Pointer && v.Nil {
		// A method that panics on a nil receiver prints <nil>
		// (catchPanic in fmt/print.go).
		n := w.Len()
		defer func() {
			if r := recover(); r != nil {
				w.Truncate(n)
				w.WriteString("<nil>")
				done = true
			}
		}()
	}
	if v.Fmt != nil {
		v.Fmt(fstate{w, s}, verb)
		return true
	}
	if s.sharpV(verb) {
		if v.GoStr != nil {
			fmt.Fprintf(w, s.directive('s'), v.GoStr())
			return true
		}
		return false
	}
	switch verb {
	case 'v', 's', 'x', 'X', 'q':
		if v.Err != nil {
			fmt.Fprintf(w, s.directive(verb), v.Err())
			return true
		}
		if v.Str != nil {
			fmt.Fprintf(w, s.directive(verb), v.Str())
			return true
		}
	}
	return false
}

// write is fmt's printValue for the value v stands for.
func (v *Value) write(w *bytes.Buffer, s *state, verb rune, depth int) {
	if verb == 'T' {
		fmt.Fprintf(w, s.directive('s'), v.Type)
		return
	}
	if v.methods(w, s, verb) {
		return
	}
	sharpV := s.sharpV(verb)
	switch v.Kind {
	case Basic:
		if verb == 'p' {
			fmt.Fprintf(w, "%%!p(%s=", v.Type)
			fmt.Fprintf(w, "%v)", v.V)
			return
		}
		fmt.Fprintf(w, s.directive(verb), v.V)
	case Interface:
		if sharpV {
			w.WriteString(v.Type + "(nil)")
			return
		}
		fmt.Fprintf(w, s.directive('v'), nil)
	case Struct:
		if sharpV {
			w.WriteString(v.Type)
		}
		w.WriteByte('{')
		for i, e := range v.Elems {
			if i > 0 {
				if sharpV {
					w.WriteString(", ")
				} else {
					w.WriteByte(' ')
				}
			}
			if s.plusV(verb) || sharpV {
				w.WriteString(v.Fields[i] + ":")
			}
			writeAny(w, s, verb, e, depth+1)
		}
		w.WriteByte('}')
	case Slice, Array:
		if sharpV {
			w.WriteString(v.Type)
			if v.Nil {
				w.WriteString("(nil)")
				return
			}
			w.WriteByte('{')
		} else {
			w.WriteByte('[')
		}
		for i, e := range v.Elems {
			if i > 0 {
				if sharpV {
					w.WriteString(", ")
				} else {
					w.WriteByte(' ')
				}
			}
			writeAny(w, s, verb, e, depth+1)
		}
		if sharpV {
			w.WriteByte('}')
		} else {
			w.WriteByte(']')
		}
	case Map:
		if sharpV {
			w.WriteString(v.Type)
			if v.Nil {
				w.WriteString("(nil)")
				return
			}
			w.WriteByte('{')
		} else {
			w.WriteString("map[")
		}
		idx := make([]int, len(v.Keys))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return compare(v.Sort[idx[a]], v.Sort[idx[b]]) < 0 })
		for n, i := range idx {
			if n > 0 {
				if sharpV {
					w.WriteString(", ")
				} else {
					w.WriteByte(' ')
				}
			}
			writeAny(w, s, verb, v.Keys[i], depth+1)
			w.WriteByte(':')
			writeAny(w, s, verb, v.Elems[i], depth+1)
		}
		if sharpV {
			w.WriteByte('}')
		} else {
			w.WriteByte(']')
		}
	case Pointer:
		if depth == 0 && !v.Nil && v.Elem != nil {
			if e, ok := v.Elem.(*Value); ok && (verb == 'v' || verb == 's' || verb == 'd' || verb == 'q' || verb == 'x' || verb == 'X' || verb == 'f' || verb == 'g' || verb == 't') {
				w.WriteByte('&')
				e.write(w, s, verb, depth+1)
				return
			}
		}
		writePointer(w, s, verb, v.Type, v.V, v.Nil)
	}
}

// writeAny writes an element below the top level: a *Value, or a host
// value that fmt formats itself (as it would at this depth).
func writeAny(w *bytes.Buffer, s *state, verb rune, e any, depth int) {
	if v, ok := e.(*Value); ok {
		v.write(w, s, verb, depth)
		return
	}
	if e == nil {
		if s.sharpV(verb) {
			w.WriteString("interface {}(nil)")
			return
		}
		w.WriteString("<nil>")
		return
	}
	rv := reflect.ValueOf(e)
	if rv.Kind() == reflect.Pointer && !hasMethods(e, s, verb) {
		writePointer(w, s, verb, rv.Type().String(), e, rv.IsNil())
		return
	}
	fmt.Fprintf(w, s.directive(verb), e)
}

// hasMethods reports whether fmt would call a method of e for verb.
func hasMethods(e any, s *state, verb rune) bool {
	if _, ok := e.(fmt.Formatter); ok {
		return true
	}
	if s.sharpV(verb) {
		_, ok := e.(fmt.GoStringer)
		return ok
	}
	switch verb {
	case 'v', 's', 'x', 'X', 'q':
		switch e.(type) {
		case error, fmt.Stringer:
			return true
		}
	}
	return false
}

// writePointer is fmt's fmtPointer, for a pointer below the top level.
func writePointer(w *bytes.Buffer, s *state, verb rune, typ string, p any, isNil bool) {
	var u uintptr
	if !isNil && p != nil {
		rv := reflect.ValueOf(p)
		if rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Func {
			u = rv.Pointer()
		}
	}
	switch verb {
	case 'v':
		if s.sharpV(verb) {
			w.WriteString("(" + typ + ")(")
			if u == 0 {
				w.WriteString("nil")
			} else {
				fmt.Fprintf(w, "0x%x", u)
			}
			w.WriteByte(')')
			return
		}
		if u == 0 {
			fmt.Fprintf(w, s.directive('s'), "<nil>")
			return
		}
		fmt.Fprintf(w, s.directive('v'), unsafePointer(u))
	case 'p':
		fmt.Fprintf(w, s.directive('v'), unsafePointer(u))
	case 'b', 'o', 'd', 'x', 'X':
		fmt.Fprintf(w, s.directive(verb), u)
	default:
		fmt.Fprintf(w, "%%!%c(%s=", verb, typ)
		fmt.Fprintf(w, "%v)", unsafePointer(u))
	}
}

// unsafePointer formats as a pointer does (0x...), without package unsafe.
type unsafePointer uintptr

func (p unsafePointer) Format(f fmt.State, verb rune) {
	s := stateOf(f, verb)
	s.sharp = !s.sharp
	fmt.Fprintf(f, s.directive('x'), uintptr(p))
}

// Key returns k, a key of a map with interface keys, for Value.Sort:
// passed to a compiled function, a value of a snippet's type with methods
// arrives as itself, not as the interpreter's wrapper, which compare
// could not order.
func Key(k any) any { return k }

// compare orders map keys as fmt does (internal/fmtsort).
func compare(a, b any) int {
	if va, ok := a.(*Value); ok {
		vb, ok := b.(*Value)
		if !ok {
			return -1
		}
		if va.Kind == Basic && vb.Kind == Basic {
			return compare(va.V, vb.V)
		}
		for i := 0; i < len(va.Elems) && i < len(vb.Elems); i++ {
			if c := compare(va.Elems[i], vb.Elems[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		}
		return 1
	}
	ra, rb := reflect.ValueOf(a), reflect.ValueOf(b)
	if ra.Type() != rb.Type() {
		// Interface keys of different types: fmtsort orders by type.
		return strings.Compare(ra.Type().String(), rb.Type().String())
	}
	switch ra.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp3(ra.Int() < rb.Int(), ra.Int() > rb.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp3(ra.Uint() < rb.Uint(), ra.Uint() > rb.Uint())
	case reflect.String:
		return strings.Compare(ra.String(), rb.String())
	case reflect.Float32, reflect.Float64:
		x, y := ra.Float(), rb.Float()
		if math.IsNaN(x) || math.IsNaN(y) {
			return cmp3(math.IsNaN(x) && !math.IsNaN(y), !math.IsNaN(x) && math.IsNaN(y))
		}
		return cmp3(x < y, x > y)
	case reflect.Bool:
		return cmp3(!ra.Bool() && rb.Bool(), ra.Bool() && !rb.Bool())
	case reflect.Pointer:
		return cmp3(ra.Pointer() < rb.Pointer(), ra.Pointer() > rb.Pointer())
	case reflect.Struct:
		for i := 0; i < ra.NumField(); i++ {
			if !ra.Field(i).CanInterface() {
				continue
			}
			if c := compare(ra.Field(i).Interface(), rb.Field(i).Interface()); c != 0 {
				return c
			}
		}
		return 0
	}
	return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
}

func cmp3(less, more bool) int {
	switch {
	case less:
		return -1
	case more:
		return 1
	}
	return 0
}

// Sprintf is fmt.Sprintf where %T of a *Value names the type it stands
// for (fmt answers %T itself, before any method of the value).
func Sprintf(format string, args ...any) string {
	format, args = fixT(format, args)
	return fmt.Sprintf(format, args...)
}

// Errorf is fmt.Errorf with Sprintf's %T.
func Errorf(format string, args ...any) error {
	format, args = fixT(format, args)
	return fmt.Errorf(format, args...)
}

// fixT turns each %T of a *Value argument into %s of its type's name,
// following fmt's rules for argument indexes, '*' widths and precisions.
func fixT(format string, args []any) (string, []any) {
	var out []byte
	copied := false
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
		for i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0 {
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
		verb := format[i]
		if verb == '%' {
			i++
			continue
		}
		if verb == 'T' && argNum < len(args) {
			if v, ok := args[argNum].(*Value); ok {
				if out == nil {
					out = []byte(format)
				}
				out[i] = 's'
				if !copied {
					args = append([]any(nil), args...)
					copied = true
				}
				args[argNum] = v.Type
			}
		}
		i++
		argNum++
	}
	if out != nil {
		format = string(out)
	}
	return format, args
}

// Recovered is the value recover returned, which the interpreter hands
// over as a reflect.Value: the value itself, as in Go.
func Recovered(v any) any {
	if rv, ok := v.(reflect.Value); ok {
		if !rv.IsValid() || !rv.CanInterface() {
			return nil
		}
		v = rv.Interface()
	}
	if l, ok := v.(Located); ok {
		return unlocate(l)
	}
	return GoPanic(v)
}

// JSON stands for a value whose type has a MarshalJSON method, which
// encoding/json cannot see through the interpreter.
type JSON struct{ M func() ([]byte, error) }

// MarshalJSON implements json.Marshaler.
func (j *JSON) MarshalJSON() ([]byte, error) { return j.M() }

// Text stands for a value whose type has a MarshalText method.
type Text struct{ M func() ([]byte, error) }

// MarshalText implements encoding.TextMarshaler.
func (t *Text) MarshalText() ([]byte, error) { return t.M() }
