package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

type Base struct {
	ID string `json:"id"`
}

func (b Base) Describe() string { return "item " + b.ID }

type Item struct {
	Base
	Name  string   `json:"name"`
	Tags  []string `json:"tags,omitempty"`
	Price float64  `json:"price"`
}

type Report struct {
	Count int      `json:"count"`
	Names []string `json:"names"`
}

func main() {
	items := []Item{
		{Base: Base{ID: "b"}, Name: "Bolt", Price: 0.25},
		{Base: Base{ID: "a"}, Name: "Anchor", Tags: []string{"heavy"}, Price: 12},
		{Base: Base{ID: "c"}, Name: "Cog", Price: 3.5},
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Price > items[j].Price })
	for _, it := range items {
		fmt.Println(it.Describe(), it.ID, it.Name)
	}
	rep := Report{Count: len(items)}
	for _, it := range items {
		rep.Names = append(rep.Names, strings.ToUpper(it.Name))
	}
	b, err := json.Marshal(rep)
	fmt.Println(string(b), err)
	var back Report
	err = json.Unmarshal([]byte(`{"count":2,"names":["x","y"]}`), &back)
	fmt.Println(back.Count, back.Names, err)
}

// Output:
// item a a Anchor
// item c c Cog
// item b b Bolt
// {"count":3,"names":["ANCHOR","COG","BOLT"]} <nil>
// 2 [x y] <nil>
