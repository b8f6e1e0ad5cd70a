package main

import "fmt"

func main() {
	n := 0
outer:
	for i := range 5 {
		switch {
		case i == 3:
			break outer
		case i == 1:
			if n > 5 {
				break
			}
			n += 10
		}
		n++
	}
	for _, s := range []string{"a", "b"} {
		switch s {
		case "a":
			func() {
				switch {
				case true:
					fmt.Println("in func")
				}
			}()
		}
	}
	switch {
	case n > 0:
		fmt.Println(n)
		break
	}
}

// Output:
// in func
// 13
