package main

import (
	"fmt"
	"strconv"
	"strings"
)

func Map[T, U any](s []T, f func(T) U) []U {
	out := make([]U, 0, len(s))
	for _, v := range s {
		out = append(out, f(v))
	}
	return out
}

func Filter[T any](s []T, keep func(T) bool) []T {
	var out []T
	for _, v := range s {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

type Number interface{ ~int | ~float64 }

func Sum[T Number](s []T) T {
	var total T
	for _, v := range s {
		total += v
	}
	return total
}

type Stack[T any] struct{ items []T }

func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }
func (s *Stack[T]) Len() int { return len(s.items) }

func main() {
	nums := []int{1, 2, 3, 4, 5}
	strs := Map(nums, func(n int) string { return strconv.Itoa(n * n) })
	fmt.Println(strings.Join(strs, ","))
	fmt.Println(Filter(nums, func(n int) bool { return n%2 == 1 }))
	fmt.Println(Sum(nums), Sum([]float64{1.5, 2.25}))
	lens := Map(Filter(strs, func(s string) bool { return len(s) > 1 }), func(s string) int { return len(s) })
	fmt.Println(lens)
	fmt.Println(Map[int](nums[:2], func(n int) float64 { return float64(n) / 2 }))
	var st Stack[string]
	st.Push("a")
	st.Push("b")
	fmt.Println(st.Len())
}

// Output:
// 1,4,9,16,25
// [1 3 5]
// 15 3.75
// [2 2]
// [0.5 1]
// 2
