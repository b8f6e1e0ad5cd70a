package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintf(os.Stderr, "%d items\n", 3)
}

// Error:
// snippet.go:9:14: os.Stderr is not available in snippets
// 	hint: fmt.Fprintf writes to a writer; a snippet prints with fmt.Printf(...): drop the os.Stderr argument
