package main

import (
	"fmt"
	"slices"
)

// A package-level name the same as the local type's: the type cannot move
// to package level, and the helper the rewrite adds cannot name it.
func pair() int { return 1 }

func main() {
	type pair struct{ K, V int }
	ps := []pair{{2, 1}, {1, 2}}
	fmt.Println(slices.ContainsFunc(ps, func(p pair) bool { return p.K == 1 }))
}

// Error:
// snippet.go:15:14: the interpreter cannot run this with a type declared inside a function (pair)
// 	hint: declare type pair at package level (outside func)
