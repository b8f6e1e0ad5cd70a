package main

import (
	"errors"
	"fmt"
)

type temporary interface{ Temporary() bool }

type netErr struct{ msg string }

func (e *netErr) Error() string   { return e.msg }
func (e *netErr) Temporary() bool { return true }

func main() {
	err := fmt.Errorf("fetch: %w", &netErr{"conn reset"})
	var t temporary
	fmt.Println(errors.As(err, &t), t != nil && t.Temporary())
	var t2 temporary
	fmt.Println(errors.As(errors.New("plain"), &t2), t2 == nil)
}

// Output:
// true true
// false true
