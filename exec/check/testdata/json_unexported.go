package main

import (
	"encoding/json"
	"fmt"
)

type Item struct {
	Name  string `json:"name"`
	price int
}

func main() {
	b, _ := json.MarshalIndent(&Item{Name: "n", price: 3}, "", " ")
	fmt.Println(string(b))
}

// Error:
// snippet.go:14:29: MarshalIndent would differ in snippets: the interpreter encodes the unexported field price of Item (Go skips it)
