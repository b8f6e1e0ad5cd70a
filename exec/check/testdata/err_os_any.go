package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Printf("%T\n", os.Stdout)
	var sink any = os.Stderr
	fmt.Println(sink != nil)
	os.Stdout = nil
	p := &os.Stderr
	fmt.Println(p != nil)
}

// Error:
// snippet.go:9:21: os.Stdout as a value of type any is not supported in snippets: there it is a writer, not an *os.File
// 	hint: pass it only where an io.Writer is wanted: fmt.Fprintln(os.Stdout, ...), tabwriter.NewWriter(os.Stdout, ...), json.NewEncoder(os.Stdout)
// snippet.go:10:17: os.Stderr as a value of type any is not supported in snippets: there it is a writer, not an *os.File
// 	hint: pass it only where an io.Writer is wanted: fmt.Fprintln(os.Stderr, ...), tabwriter.NewWriter(os.Stderr, ...), json.NewEncoder(os.Stderr)
// snippet.go:12:2: os.Stdout cannot be assigned in snippets: there it is the run's own output
// 	hint: write to another writer instead: var w io.Writer = os.Stdout, then assign w
// snippet.go:13:8: the address of os.Stderr is not supported in snippets
// 	hint: pass os.Stderr itself where an io.Writer is wanted
