package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Printf("%T\n", os.Stdout)
	var sink any = os.Stderr
	fmt.Println(sink != nil)
}

// Error:
// snippet.go:9:21: os.Stdout as a value of type any is not supported in snippets: there it is a writer, not an *os.File
// 	hint: pass it only where an io.Writer is wanted: fmt.Fprintln(os.Stdout, ...), tabwriter.NewWriter(os.Stdout, ...), json.NewEncoder(os.Stdout)
// snippet.go:10:17: os.Stderr as a value of type any is not supported in snippets
