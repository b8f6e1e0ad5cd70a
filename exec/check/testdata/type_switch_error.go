package main

import (
	"errors"
	"fmt"
)

type NotFound struct{ Key string }

func (e *NotFound) Error() string { return "no " + e.Key }

type Conflict struct {
	Key string
	Rev int
}

func (e *Conflict) Error() string { return "conflict on " + e.Key }

func classify(err error) string {
	switch e := err.(type) {
	case nil:
		return "ok"
	case *NotFound:
		return "404 " + e.Key
	case *Conflict, interface{ Temporary() bool }:
		return "409 " + e.Error()
	default:
		return "500 " + e.Error()
	}
}

func describe(v any) string {
	switch x := v.(type) {
	case int:
		return fmt.Sprint("int ", x)
	case error:
		return "error " + x.Error()
	case fmt.Stringer:
		return "stringer " + x.String()
	}
	if e, ok := v.(error); ok {
		return "unreachable " + e.Error()
	}
	return "other"
}

func main() {
	for _, err := range []error{nil, &NotFound{"a"}, &Conflict{"b", 1}, errors.New("boom")} {
		fmt.Println(classify(err))
	}
	for _, v := range []any{nil, 1, errors.New("e"), 2.5} {
		fmt.Println(describe(v))
	}
}

// Output:
// ok
// 404 a
// 409 conflict on b
// 500 boom
// other
// int 1
// error e
// other
