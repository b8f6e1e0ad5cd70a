package shim

import (
	"reflect"
	"sync"
)

// Err stands for an error value of the snippet's types where the standard
// library (fmt.Errorf's %w, errors.Is, errors.Unwrap) must see its Error
// and Unwrap methods, which the interpreter hides from it. V is the
// original value, for the rewritten errors.As and errors.Unwrap.
type Err struct {
	V    any
	msg  func() string
	next func() error
	is   func(target any) bool
}

// Is reports what the value's Is method reports for target (false
// without one): errors.Is calls it. A target that is an Err is given as
// the value it stands for, which the method asserts to its own types.
func (e *Err) Is(target error) bool {
	if e.is == nil {
		return false
	}
	var t any = target
	if te, ok := target.(*Err); ok {
		t = te.V
	}
	return e.is(t)
}

// Error implements error with the value's Error method.
func (e *Err) Error() string { return e.msg() }

// Unwrap returns what the value's Unwrap method returns (nil without one).
func (e *Err) Unwrap() error {
	if e.next == nil {
		return nil
	}
	return e.next()
}

// Unwrapped returns the errors an error with an Unwrap() []error method
// (errors.Join's, fmt.Errorf's with several %w) holds, and nil for any
// other error: the interpreter does not see that method in a value of the
// standard library's.
func Unwrapped(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return nil
}

var (
	errsMu sync.Mutex
	errs   = map[any]*Err{}
	errOrd []any
)

// maxErrs bounds the wrappers kept so that one value always gets the same
// wrapper (errors.Is compares them).
const maxErrs = 1024

// WrapErr returns the Err for the value v with its Error method msg and
// its Unwrap method next (nil without one). The same comparable v gets the
// same *Err.
func WrapErr(v any, msg func() string, next func() error) error {
	return WrapErrIs(v, msg, next, nil)
}

// WrapErrIs is WrapErr for a value with an Is(error) bool method too,
// given as is (called with the target, see Err.Is).
func WrapErrIs(v any, msg func() string, next func() error, is func(target any) bool) error {
	comparable := v != nil && reflect.TypeOf(v).Comparable() && hashable(v)
	if comparable {
		errsMu.Lock()
		defer errsMu.Unlock()
		if e, ok := errs[v]; ok {
			return e
		}
	}
	e := &Err{V: v, msg: msg, next: next, is: is}
	if comparable {
		errs[v] = e
		errOrd = append(errOrd, v)
		if len(errOrd) > maxErrs {
			delete(errs, errOrd[0])
			errOrd = errOrd[1:]
		}
	}
	return e
}

// hashable reports whether v can be a map key: a struct of a comparable
// type may hold an interface holding a value that cannot (the
// interpreter's wrapper of a value of the snippet's in an error field).
func hashable(v any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	_ = map[any]bool{v: true}
	return true
}
