package main

import (
	"errors"
	"fmt"
	"strconv"
)

var ErrNotFound = errors.New("not found")

type QueryError struct {
	Query string
	Err   error
}

func (e *QueryError) Error() string { return e.Query + ": " + e.Err.Error() }

func find(q string) error {
	if q == "" {
		return fmt.Errorf("find: %w", ErrNotFound)
	}
	return &QueryError{Query: q, Err: ErrNotFound}
}

func main() {
	err := find("")
	fmt.Println(errors.Is(err, ErrNotFound), err)
	var qe *QueryError
	if errors.As(find("x"), &qe) {
		fmt.Println("query:", qe.Query, errors.Is(qe.Err, ErrNotFound))
	}
	fmt.Println(errors.As(err, &qe))
	var ne *strconv.NumError
	_, perr := strconv.Atoi("abc")
	fmt.Println(errors.As(perr, &ne), ne.Func)
	wrapped := fmt.Errorf("load: %w", perr)
	fmt.Println(errors.Is(wrapped, strconv.ErrSyntax), errors.As(wrapped, &ne), wrapped)
	joined := errors.Join(errors.New("a"), ErrNotFound)
	fmt.Println(errors.Is(joined, ErrNotFound), errors.Unwrap(err) == ErrNotFound)
}

// Output:
// true find: not found
// query: x true
// false
// true Atoi
// true true load: strconv.Atoi: parsing "abc": invalid syntax
// true true
