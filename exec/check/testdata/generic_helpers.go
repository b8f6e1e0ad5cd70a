package main

import (
	"cmp"
	"fmt"
	"slices"
)

func SortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func Clamp[T cmp.Ordered](v, lo, hi T) T { return max(lo, min(v, hi)) }

func Less[T cmp.Ordered](a, b T) bool { return cmp.Compare(a, b) < 0 }

func main() {
	fmt.Println(SortedKeys(map[string]int{"b": 1, "a": 2}), Clamp(15, 0, 10), Less("a", "b"))
	fmt.Println(cmp.Or("", "x", "y"), cmp.Or(0, 0))
}

// Output:
// [a b] 10 true
// x 0
