package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

func main() {
	type kv struct {
		k string
		n int
	}
	type group struct {
		name  string
		items []kv
	}
	counts := map[string]int{"b": 2, "a": 5, "c": 2}
	var list []kv
	for k, n := range counts {
		list = append(list, kv{k, n})
	}
	slices.SortFunc(list, func(a, b kv) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return strings.Compare(a.k, b.k)
	})
	g := group{"letters", list}
	fmt.Println(slices.ContainsFunc(g.items, func(e kv) bool { return e.n == 5 }), g.items)
	var sum []int
	for _, e := range list {
		sum = append(sum, e.n)
	}
	fmt.Println(slices.Max(sum), len(g.items))
}

// Output:
// true [{a 5} {b 2} {c 2}]
// 5 3
