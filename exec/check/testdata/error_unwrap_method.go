package main

import (
	"errors"
	"fmt"
)

var ErrNotFound = errors.New("not found")

type QueryError struct{ Err error }

func (e *QueryError) Error() string { return "query: " + e.Err.Error() }
func (e *QueryError) Unwrap() error { return e.Err }

func main() {
	var err error = &QueryError{Err: ErrNotFound}
	fmt.Println(errors.Is(err, ErrNotFound))
}

// Output:
// true
