package main

import "fmt"

func sum(xs []int) (s int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	for i := 0; i < len(xs); i++ {
		if i == 1 {
			xs = xs[:1]
		}
		s += xs[i]
	}
	return s, nil
}

func main() {
	xs := []int{1, 2, 3}
	total := 0
	for i := 0; i < len(xs); i++ {
		total += xs[i]
	}
	for i := range xs {
		total += xs[i]
	}
	fmt.Println(total)
	fmt.Println(sum([]int{1, 2, 3}))
}

// Output:
// 12
// 1 runtime error: index out of range [1] with length 1
