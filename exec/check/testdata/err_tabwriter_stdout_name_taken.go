package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
)

func main() {
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "a\tb")
	w.Flush()
	var sb strings.Builder
	sb.WriteString("csv,kept,apart\n")
	buf := sb.String()
	fmt.Print(buf)
}

// Error:
// snippet.go:11:27: os.Stdout is not available in snippets
// 	hint: tabwriter.NewWriter takes an io.Writer: write into a strings.Builder and print that: var out strings.Builder, pass &out instead of os.Stdout, then fmt.Print(out.String()) when it is done
