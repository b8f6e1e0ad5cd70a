package main

import "fmt"

type point struct{ X, Y int }

func main() {
	m := map[string]int{"a": 1, "b": 2}
	alias := m
	clear(m)
	fmt.Println(len(m), len(alias))
	m["c"] = 3
	fmt.Println(m)
	s := []point{{1, 2}, {3, 4}}
	clear(s[1:])
	fmt.Println(s, len(s))
	names := []string{"x", "y"}
	clear(names)
	fmt.Printf("%q\n", names)
}

// Output:
// 0 0
// map[c:3]
// [{1 2} {0 0}] 2
// ["" ""]
