package main

import "fmt"

func get(xs []int, i int) (v int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return xs[i], nil
}

func first(xs []string) string {
	defer func() { recover() }()
	return xs[0]
}

func main() {
	xs := []int{10, 20}
	for _, i := range []int{1, 2, -1} {
		fmt.Println(get(xs, i))
	}
	fmt.Printf("%q %q\n", first([]string{"a"}), first(nil))
}

// Output:
// 20 <nil>
// 0 runtime error: index out of range [2] with length 2
// 0 runtime error: index out of range [-1]
// "a" ""
