package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

func finish(w io.Writer) {
	if c, ok := w.(io.Closer); ok {
		c.Close()
	}
	switch w.(type) {
	case interface{ Fd() uintptr }:
		fmt.Println("a file")
	case *strings.Builder:
		fmt.Println("a builder")
	}
	if sw, ok := w.(io.StringWriter); ok {
		sw.WriteString("done\n")
	}
}

func main() {
	finish(os.Stdout)
}

// Error:
// snippet.go:11:17: a type assertion to io.Closer is not supported in snippets that use os.Stdout or os.Stderr: there they are writers only (Write, WriteString), without Close, so it would fail where Go's succeeds
// 	hint: pass os.Stdout where only Write or WriteString is needed, and keep such assertions to writers of your own (a *strings.Builder, a *bytes.Buffer)
// snippet.go:15:7: a type assertion to interface{Fd() uintptr} is not supported in snippets that use os.Stdout or os.Stderr: there they are writers only (Write, WriteString), without Fd, so it would fail where Go's succeeds
