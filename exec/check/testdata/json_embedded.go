package main

import (
	"encoding/json"
	"fmt"
)

type Base struct {
	ID string `json:"id"`
}

type Item struct {
	Base
	Name string `json:"name"`
}

func main() {
	b, err := json.Marshal([]Item{{Base: Base{ID: "a"}, Name: "n"}})
	fmt.Println(string(b), err)
}

// Output:
// [{"id":"a","name":"n"}] <nil>
