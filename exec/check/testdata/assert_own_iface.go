package main

import "fmt"

type Named interface{ Name() string }

type user struct{ n string }

func (u user) Name() string { return u.n }

func main() {
	for _, v := range []any{user{"ada"}, 5} {
		if n, ok := v.(Named); ok {
			fmt.Println("named", n.Name())
		} else {
			fmt.Println("not named", v)
		}
	}
}

// Output:
// named ada
// not named 5
