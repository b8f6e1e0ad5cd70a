package main

import "fmt"

func helper() { fmt.Println("hi") }

// Error:
// snippet.go:1:13: function main is undeclared in the main package
