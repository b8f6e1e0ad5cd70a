package main

import "fmt"

type Count int8

func main() {
	for i := range 3 {
		fmt.Print(i, " ")
	}
	fmt.Println()
	var n Count = 4
	for i := range n {
		var c Count = i * 2
		fmt.Printf("%d ", c)
	}
	fmt.Println()
	total := 0
	for range 5 {
		total++
	}
	fmt.Println("total", total)
	// Changing i in the body does not change the iteration count.
	for i := range 3 {
		i += 10
		fmt.Print(i, " ")
	}
	fmt.Println()
	var j int
	for j = range 4 {
	}
	fmt.Println("j after loop", j)
	// The bound is evaluated once.
	m := 2
	for i := range m {
		m = 10
		fmt.Print(i, " ")
	}
	fmt.Println()
	// Per-iteration variable captured by closures.
	var fs []func() int
	for i := range 3 {
		fs = append(fs, func() int { return i * i })
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
}

// Output:
// 0 1 2
// 0 2 4 6
// total 5
// 10 11 12
// j after loop 3
// 0 1
// 0 1 4
