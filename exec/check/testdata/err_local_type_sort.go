package main

import (
	"fmt"
	"slices"
)

func main() {
	type pair struct{ K, V int }
	ps := []pair{{2, 1}, {1, 2}}
	fmt.Println(slices.ContainsFunc(ps, func(p pair) bool { return p.K == 1 }))
}

// Error:
// snippet.go:11:14: the interpreter cannot run this with a type declared inside a function (pair)
// 	hint: declare type pair at package level (outside func)
