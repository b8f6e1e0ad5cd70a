package foo

import "fmt"

func main() { fmt.Println("hi") }

// Error:
// snippet.go:1:9: package foo: a snippet must be package main
// 	hint: a snippet is a program: write `package main` and put the code in func main()
