package main

import (
	"errors"
	"fmt"
)

type NotFound struct{ Name string }

func (e *NotFound) Error() string { return e.Name + " not found" }

func lookup(name string) error { return &NotFound{Name: name} }

func main() {
	var nf *NotFound
	if errors.As(lookup("x"), &nf) {
		fmt.Println("missing:", nf.Name)
	}
}

// Output:
// missing: x
