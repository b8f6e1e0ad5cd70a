package main

import (
	"fmt"
	"math"
)

type Celsius float64

func main() {
	a, b, c := 3, 1, 2
	fmt.Println(min(a, b, c), max(a, b, c), min(a, 10), max(a, 2.0))
	x, y := 1.5, -2.25
	fmt.Println(min(x, y), max(x, y), min(x, 1), max(y, -3))
	s, t := "pear", "apple"
	fmt.Println(min(s, t), max(s, t, "zebra"))
	const k = min(3, 1.5, 2)
	fmt.Println(k, max(1, 2), min("b", "a"))
	nan := math.NaN()
	fmt.Println(min(nan, 1), max(1, nan), min(1, 2, nan))
	// (Signed zeros are not tested: the interpreter drops the sign of -0
	// passed to any function.)
	var c1, c2 Celsius = 20.5, 18
	fmt.Println(min(c1, c2)+0.25, max(c1, c2))
	var u8 uint8 = 200
	fmt.Println(max(u8, 100), min(u8, 7))
}

// Output:
// 1 3 3 3
// -2.25 1.5 1 -2.25
// apple zebra
// 1.5 2 a
// NaN NaN NaN
// 18.25 20.5
// 200 7
