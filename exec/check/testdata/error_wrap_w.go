package main

import "fmt"

type QueryError struct{ Query string }

func (e *QueryError) Error() string { return "query " + e.Query }

func main() {
	err := fmt.Errorf("find: %w", &QueryError{Query: "x"})
	fmt.Println(err)
}

// Error:
// snippet.go:10:32: fmt.Errorf cannot wrap *QueryError with %w in snippets
