package main

import (
	"fmt"
	"maps"
)

func main() {
	m := map[string]int{"a": 1}
	keys := maps.Keys(m)
	fmt.Println(keys != nil)
}

// Error:
// snippet.go:10:10: maps.Keys is not available in snippets
// 	hint: iterators work only inside slices.Collect, slices.Sorted, slices.SortedFunc and range
