package search

import (
	"fmt"
	"strings"
)

// Format writes hits one line each: the name a snippet uses, what it
// does, and the file that describes it in full.
//
//	github.CreateIssue — Create a new issue in a GitHub repository. (servers/github/create_issue.go)
//
// total is how many documents were searched; with no hits, Format says
// why in one line.
func Format(query string, hits []Hit, total int) string {
	var b strings.Builder
	switch {
	case len(hits) == 0 && total == 0:
		return "No tools yet: no server is ready.\n"
	case len(hits) == 0:
		return fmt.Sprintf("Nothing matches %q among %d tools and skills: try other words.\n", query, total)
	}
	for _, h := range hits {
		b.WriteString(Line(h.Doc))
		b.WriteString("\n")
	}
	return b.String()
}

// Line is one hit's line of Format, without the newline.
func Line(d Doc) string {
	s := d.Name
	if d.Summary != "" {
		s += " — " + d.Summary
	}
	if d.Path != "" {
		s += " (" + d.Path + ")"
	}
	return s
}
