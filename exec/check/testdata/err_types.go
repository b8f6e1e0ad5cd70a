package main

import "fmt"

func main() {
	var n int = "three"
	s := "a" + 1
	fmt.Println(n, s, undefinedThing)
}

// Error:
// snippet.go:6:14: cannot use "three" (untyped string constant) as int value in variable declaration
