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
// snippet.go:9:30: text/template.ParseFiles is not allowed in snippets: they cannot read files
