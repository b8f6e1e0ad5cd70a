package main

import "fmt"

type QueryError struct{ Query string }

func (e *QueryError) Error() string { return "query " + e.Query }

func main() {
	err := fmt.Errorf("find: %w", &QueryError{Query: "x"})
	fmt.Println(err)
}

// Output:
// find: query x
