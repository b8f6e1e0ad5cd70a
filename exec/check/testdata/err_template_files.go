package main

import (
	"os"
	"text/template"
)

func main() {
	t := template.Must(template.ParseFiles("/etc/passwd"))
	_ = t.Execute(os.Stdout, nil)
}

// Error:
// snippet.go:4:2: import "os" is not allowed in snippets
