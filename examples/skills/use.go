// Reusing a saved skill: after `mcpfs skills add examples/skills/errorrate`
// (or writing the folder into skills/ of a mount), any snippet imports it.
//
//	mcpfs run examples/skills/use.go
package main

import (
	"fmt"

	"mcpfs/skills/errorrate"
)

func main() {
	rates, err := errorrate.By("region")
	if err != nil {
		fmt.Println(err)
		return
	}
	worst := rates[0]
	fmt.Printf("%d regions; worst: %s, %.1f%% of %d requests failed\n", len(rates), worst.Key, 100*worst.Rate, worst.Requests)
}
