package main

import (
	"errors"
	"fmt"
)

type VE struct{ F string }

func (e VE) Error() string { return e.F }

func main() {
	x := undefinedThing
	var err error = VE{"a"}
	var ve VE
	fmt.Println(errors.As(err, &ve), x)
	var v any = err
	switch v.(type) {
	case error:
	}
}

// Error:
// snippet.go:13:7: undefined: undefinedThing
// snippet.go:16:29: the interpreter cannot find a VE value in an error: it loses the type of values (not pointers) stored in interfaces of the standard library
// 	hint: give its methods pointer receivers (func (e *VE) Error() string), store &VE{...}, and look for *VE
