package main

import "fmt"

func count(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func main() {
	for i := range count(3) {
		fmt.Println(i)
	}
}

// Error:
// snippet.go:16:17: range over function iterators is not supported in snippets
// 	hint: the interpreter cannot range over functions (iterators)
