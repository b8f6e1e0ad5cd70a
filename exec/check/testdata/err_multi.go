package main

import (
	"errors"
	"fmt"
)

type PE struct{ F string }

func (e *PE) Error() string { return e.F }

func main() {
	x := undefinedThing
	var err error = &PE{"a"}
	var pe *PE
	fmt.Println(errors.As(err, pe), x)
	var v any = err
	switch v.(type) {
	case error:
	}
}

// Error:
// snippet.go:13:7: undefined: undefinedThing
// snippet.go:16:29: second argument to errors.As must be a pointer to a variable of an error type (or of an interface type)
