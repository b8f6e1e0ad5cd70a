package ui

import (
	"regexp"
	"strings"
)

// gist is a line that tells a snippet from the others: its first call
// of a server or skill package, else its first line after the imports.
func gist(src string) string {
	var first string
	inImport := false
	for _, l := range strings.Split(src, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "package "):
			continue
		case strings.HasPrefix(t, "import ("):
			inImport = true
			continue
		case inImport:
			if t == ")" {
				inImport = false
			}
			continue
		case strings.HasPrefix(t, "import "), strings.HasPrefix(t, "func main"), t == "}":
			continue
		}
		if first == "" {
			first = t
		}
		if containsCall(t) {
			return clip(t, 80)
		}
	}
	return clip(first, 80)
}

// clip cuts s to at most n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// pkgCall matches a call of a package function: docstore.Search(.
var pkgCall = regexp.MustCompile(`\b[a-z][a-z0-9_]*\.[A-Z]\w*\(`)

// containsCall reports whether a line calls a function of a server or
// skill package (not of a few common standard packages).
func containsCall(s string) bool {
	for _, m := range pkgCall.FindAllString(s, -1) {
		switch pkg, _, _ := strings.Cut(m, "."); pkg {
		case "fmt", "strings", "strconv", "json", "sort", "time", "errors", "os":
		default:
			return true
		}
	}
	return false
}
