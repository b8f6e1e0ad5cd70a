package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

type counter struct{ n int }

func (c *counter) inc() { c.n++ }

func main() {
	m := map[string]int{"b": 2, "a": 1, "c": 3}
	var fs []func() string
	for k := range maps.Keys(m) {
		fs = append(fs, func() string { return k })
	}
	var got []string
	for _, f := range fs {
		got = append(got, f())
	}
	slices.Sort(got)
	fmt.Println(got)
	sum := 0
	for v := range maps.Values(m) {
		sum += v
	}
	fmt.Println(sum)
	for i, s := range slices.All([]string{"x", "y"}) {
		fmt.Print(i, s, " ")
	}
	for s := range slices.Values([]string{"p", "q"}) {
		fmt.Print(s, " ")
	}
	fmt.Println()
	total := 0
	for k, v := range maps.All(m) {
		total += len(k) + v
	}
	fmt.Println(total)
	desc := slices.SortedFunc(maps.Keys(m), func(a, b string) int { return strings.Compare(b, a) })
	fmt.Println(desc)

	// Pointer-receiver methods on range variables: each iteration has its own.
	var ptrs []*counter
	for _, c := range []counter{{1}, {2}} {
		c.inc()
		ptrs = append(ptrs, &c)
	}
	fmt.Println(ptrs[0].n, ptrs[1].n)
}

// Output:
// [a b c]
// 6
// 0x 1y p q
// 9
// [c b a]
// 2 3
