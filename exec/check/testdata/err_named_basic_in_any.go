package main

import "fmt"

type Celsius float64

type Temp struct{ C float64 }

func describe(v any) string {
	switch x := v.(type) {
	case float64:
		return fmt.Sprint("float ", x)
	case Temp:
		return fmt.Sprint("temp ", x.C)
	case Celsius:
		return fmt.Sprint("celsius ", float64(x))
	}
	return "other"
}

func main() {
	fmt.Println(describe(Celsius(21.5)), describe(3.5), describe(Temp{1}))
	var s fmt.Stringer
	_, ok := s.(interface{ Celsius() })
	fmt.Println(ok)
}

// Error:
// snippet.go:15:7: the interpreter cannot tell Celsius from float64 in an empty interface: it keeps no named type there for values of types that are not structs
// 	hint: make Celsius a struct (type Celsius struct{ V float64 }), or keep such values in variables of type Celsius, not in any
