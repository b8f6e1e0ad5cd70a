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

// Output:
// {
//  "name": "n"
// }
