package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

type person struct {
	Name string
	Age  int
}

func main() {
	s := []int{5, 2, 8, 1, 9}
	slices.Sort(s)
	fmt.Println(s, slices.IsSorted(s))
	fmt.Println(slices.Contains(s, 8), slices.Contains(s, 7), slices.Index(s, 8), slices.Index(s, 3))
	fmt.Println(slices.Max(s), slices.Min(s))
	i, found := slices.BinarySearch(s, 5)
	fmt.Println(i, found)
	people := []person{{"Ann", 40}, {"Bob", 25}, {"Cid", 40}, {"Dee", 31}}
	slices.SortFunc(people, func(a, b person) int { return cmp.Compare(a.Age, b.Age) })
	fmt.Println(people)
	slices.SortStableFunc(people, func(a, b person) int { return strings.Compare(b.Name, a.Name) })
	fmt.Println(people)
	fmt.Println(slices.IndexFunc(people, func(p person) bool { return p.Age > 35 }))
	words := []string{"b", "a", "c"}
	slices.Reverse(words)
	fmt.Println(words)
	c := slices.Clone(words)
	c[0] = "z"
	fmt.Println(words, c, slices.Equal(words, c))
	fmt.Println(slices.Compact([]int{1, 1, 2, 2, 2, 3}))
	fmt.Println(slices.Insert([]int{1, 4}, 1, 2, 3), slices.Delete([]int{0, 1, 2, 3}, 1, 3))
	m := map[string]int{"pear": 3, "apple": 1, "fig": 2}
	fmt.Println(slices.Sorted(maps.Keys(m)))
	fmt.Println(slices.Sorted(maps.Values(m)))
	keys := slices.Collect(maps.Keys(m))
	slices.Sort(keys)
	fmt.Println(keys)
	for k := range maps.Keys(m) {
		if k == "fig" {
			fmt.Println("has fig")
		}
	}
	m2 := maps.Clone(m)
	m2["kiwi"] = 4
	fmt.Println(len(m), len(m2), maps.Equal(m, m2))
	fmt.Println(cmp.Compare("a", "b"), cmp.Less(2.5, 1.0), max(cmp.Compare(3, 3), 0))
	fmt.Println(slices.Concat([]int{1}, []int{2, 3}))
}

// Output:
// [1 2 5 8 9] true
// true false 3 -1
// 9 1
// 2 true
// [{Bob 25} {Dee 31} {Ann 40} {Cid 40}]
// [{Dee 31} {Cid 40} {Bob 25} {Ann 40}]
// 1
// [c a b]
// [c a b] [z a b] false
// [1 2 3]
// [1 2 3 4] [0 3]
// [apple fig pear]
// [1 2 3]
// [apple fig pear]
// has fig
// 3 4 false
// -1 false 0
// [1 2 3]
