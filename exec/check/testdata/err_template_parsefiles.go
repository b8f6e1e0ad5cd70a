package main

import (
	"fmt"
	"text/template"
)

func main() {
	t, err := template.ParseFiles("/etc/passwd")
	fmt.Println(t, err)
}

// Error:
// snippet.go:9:21: text/template.ParseFiles is not allowed in snippets: they cannot read files
