package main

import (
	"fmt"
	stdos "os"
)

func main() {
	defer fmt.Fprintln(stdos.Stdout, "deferred")
	fmt.Fprintln(stdos.Stdout, "named")
}

// Output:
// named
// deferred
