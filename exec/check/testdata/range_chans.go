package main

import (
	"fmt"
	"sync"
)

func merge(chs ...<-chan string) []string {
	var mu sync.Mutex
	var out []string
	var wg sync.WaitGroup
	for _, c := range chs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range c {
				mu.Lock()
				out = append(out, v)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}

func main() {
	a, b := make(chan string, 1), make(chan string, 1)
	a <- "x"
	b <- "y"
	close(a)
	close(b)
	got := merge(a, b)
	fmt.Println(len(got))
	for i, c := range [2]chan string{} {
		fmt.Println(i, c == nil)
	}
}

// Output:
// 2
// 0 true
// 1 true
