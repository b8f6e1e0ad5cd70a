package shim

import (
	"fmt"
	"strings"
	"sync"
)

// RuntimeError is a run-time panic of a snippet with Go's message, where
// the interpreter would panic with reflect's: an index out of range, a
// nil pointer dereference.
type RuntimeError struct {
	Msg  string // Go's message: "runtime error: index out of range [3] with length 3"
	Line int    // the line of the snippet where it happened, or 0
}

func (e *RuntimeError) Error() string { return e.Msg }

// RuntimeError marks it as a run-time error, as runtime.Error does.
func (e *RuntimeError) RuntimeError() {}

// Index returns i when it indexes a sequence of length n, and panics as Go
// does otherwise. line is the snippet's line of the index expression.
func Index(i, n, line int) int {
	if i < 0 {
		panic(&RuntimeError{Msg: fmt.Sprintf("runtime error: index out of range [%d]", i), Line: line})
	}
	if i >= n {
		panic(&RuntimeError{Msg: fmt.Sprintf("runtime error: index out of range [%d] with length %d", i, n), Line: line})
	}
	return i
}

// reflectPanics maps the messages of reflect panics that the interpreter
// raises for a snippet's run-time errors to Go's messages.
var reflectPanics = []struct{ prefix, msg string }{
	{"reflect: call of reflect.Value.Field on zero Value", "runtime error: invalid memory address or nil pointer dereference"},
	{"reflect: call of reflect.Value.Elem on zero Value", "runtime error: invalid memory address or nil pointer dereference"},
	{"reflect: call of reflect.Value.Set on zero Value", "runtime error: invalid memory address or nil pointer dereference"},
	{"reflect: call of reflect.Value.Interface on zero Value", "runtime error: invalid memory address or nil pointer dereference"},
	// *p of a nil p passed straight to a call (f(*p), a method value
	// of a value receiver taken through a nil pointer).
	{"reflect: Call using zero Value argument", "runtime error: invalid memory address or nil pointer dereference"},
	{"reflect: slice index out of range", "runtime error: index out of range"},
	{"reflect: array index out of range", "runtime error: index out of range"},
	{"reflect: string index out of range", "runtime error: index out of range"},
	{"reflect.Value.Slice: slice index out of bounds", "runtime error: slice bounds out of range"},
	{"reflect.Value.Slice3: slice index out of bounds", "runtime error: slice bounds out of range"},
}

// GoPanic returns the panic value v as Go would have raised it: reflect's
// messages for run-time errors become RuntimeErrors with Go's message.
func GoPanic(v any) any {
	var msg string
	switch x := v.(type) {
	case string:
		msg = x
	case error:
		msg = x.Error()
	default:
		return v
	}
	for _, p := range reflectPanics {
		if strings.HasPrefix(msg, p.prefix) {
			return &RuntimeError{Msg: p.msg}
		}
	}
	// Any other method of reflect.Value called on the zero Value that
	// *p of a nil p gives (IsZero when it is passed to a function).
	if strings.HasPrefix(msg, "reflect: call of reflect.Value.") && strings.HasSuffix(msg, " on zero Value") {
		return &RuntimeError{Msg: "runtime error: invalid memory address or nil pointer dereference"}
	}
	// A failed type assertion: the interpreter puts the position first,
	// Go's *runtime.TypeAssertionError does not.
	if i := strings.Index(msg, ": interface conversion: "); i > 0 && strings.Contains(msg[:i], ".go:") {
		return &RuntimeError{Msg: msg[i+2:]}
	}
	return v
}

// Slice returns lo when s[lo:hi] is in range for a sequence whose bound
// (cap of a slice or array, len of a string) is n, and panics as Go does
// otherwise.
func SliceCheck(lo, hi, n int, isString bool, line int) int {
	if hi < 0 || hi > n {
		what := "capacity"
		if isString {
			what = "length"
		}
		panic(&RuntimeError{Msg: fmt.Sprintf("runtime error: slice bounds out of range [:%d] with %s %d", hi, what, n), Line: line})
	}
	if lo < 0 || lo > hi {
		panic(&RuntimeError{Msg: fmt.Sprintf("runtime error: slice bounds out of range [%d:%d]", lo, hi), Line: line})
	}
	return lo
}

// Located is the value of a snippet's panic call as the interpreter
// raises it: "file:line: message", what Go prints for the value after
// where the call is (the interpreter reports a panic at the start of its
// function). It is a string so that a panic that ends a goroutine, which
// the Go runtime prints itself, prints it too. recover gets the original
// value back (Recovered).
type Located string

var (
	locatedMu sync.Mutex
	located   = map[Located]any{}
	order     []Located
)

// maxLocated bounds the panic values kept for recover.
const maxLocated = 256

// At is the value to panic with for the value v of a panic call at
// file:line, msg being what Go prints for v.
func At(v any, msg, file string, line int) Located {
	l := Located(fmt.Sprintf("%s:%d: %s", file, line, msg))
	locatedMu.Lock()
	defer locatedMu.Unlock()
	if _, ok := located[l]; !ok {
		order = append(order, l)
		if len(order) > maxLocated {
			delete(located, order[0])
			order = order[1:]
		}
	}
	located[l] = v
	return l
}

// AtErr is At for a value of the snippet's own type that is an error:
// taken as an error, it keeps the Error method that a type assertion
// on the recovered value and fmt look for.
func AtErr(v error, msg, file string, line int) Located { return At(v, msg, file, line) }

// unlocate returns the original value of a Located panic value.
func unlocate(l Located) any {
	locatedMu.Lock()
	defer locatedMu.Unlock()
	if v, ok := located[l]; ok {
		return v
	}
	return string(l)
}
