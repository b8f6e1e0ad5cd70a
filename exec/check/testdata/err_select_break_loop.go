package main

import (
	"context"
	"fmt"
	"time"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	time.Sleep(5 * time.Millisecond)
	n := 0
	for range 3 {
		select {
		case <-ctx.Done():
			fmt.Println("deadline")
			break
		default:
		}
		n++
	}
	fmt.Println(n)
}

// Error:
// snippet.go:18:4: this break ends the select, not the for loop around it (the select's case ends there anyway)
// 	hint: to leave the loop, label it and break the label: outer: for ... { ... break outer }, or return
