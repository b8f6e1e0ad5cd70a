package main

import (
	"fmt"
	"sort"
	"sync"
)

func main() {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var got []int
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			got = append(got, i)
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Ints(got)
	fmt.Println(got)

	var words []string
	for _, w := range []string{"a", "b", "c"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			words = append(words, w)
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Strings(words)
	fmt.Println(words)

	// Pointers to per-iteration variables.
	var ptrs []*int
	for i := 0; i < 3; i++ {
		ptrs = append(ptrs, &i)
	}
	for _, p := range ptrs {
		fmt.Print(*p, " ")
	}
	fmt.Println()

	// The body changes the variable and a closure keeps it: the change
	// carries to the next iteration, the closure keeps its own copy.
	var fs []func() int
	for i := 0; i < 10; i++ {
		fs = append(fs, func() int { return i })
		if i%2 == 0 {
			i++
			continue
		}
		i += 2
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()

	// Labeled continue from an inner loop.
	var gs []func() int
outer:
	for i := 0; i < 6; i++ {
		gs = append(gs, func() int { return i })
		for j := 0; j < 3; j++ {
			if j == 1 {
				i++
				continue outer
			}
		}
	}
	for _, g := range gs {
		fmt.Print(g(), " ")
	}
	fmt.Println()
}

// Output:
// [0 1 2 3 4]
// [a b c]
// 0 1 2
// 1 3 5 7 9
// 1 3 5
