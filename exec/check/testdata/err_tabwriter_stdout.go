package main

import (
	"fmt"
	"os"
	"text/tabwriter"
)

func main() {
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "a\tb")
	w.Flush()
}

// Error:
// snippet.go:10:27: os.Stdout is not available in snippets
// 	hint: tabwriter.NewWriter takes an io.Writer: write into a strings.Builder and print that: var sb strings.Builder (import "strings"), pass &sb instead of os.Stdout, then fmt.Print(sb.String()) when it is done
