package gen

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// align lines up the columns of the struct and const blocks of src the
// way gofmt does (go/printer's tabwriter: each cell padded to the widest
// of its column in a run of lines, plus one space), so that the
// generator's output is already in gofmt's form. The generator writes
// one field or constant per line, each cell separated by one space:
//
//	Name Type `tag`
//	Name Type = "value"
//
// A run of aligned lines ends at a blank line and at a line that is not
// a field or constant.
func align(src string) string {
	if !strings.Contains(src, " struct {\n") && !strings.Contains(src, "const (\n") {
		return src
	}
	lines := strings.SplitAfter(src, "\n")
	var b strings.Builder
	b.Grow(len(src) + len(src)/8)
	in := false
	var run []cells
	flush := func() {
		if len(run) == 0 {
			return
		}
		w0, w1 := 0, 0
		for _, c := range run {
			w0 = max(w0, utf8.RuneCountInString(c.name))
			w1 = max(w1, utf8.RuneCountInString(c.typ))
		}
		for _, c := range run {
			b.WriteString("\t")
			b.WriteString(c.name)
			pad(&b, w0-utf8.RuneCountInString(c.name)+1)
			b.WriteString(c.typ)
			pad(&b, w1-utf8.RuneCountInString(c.typ)+1)
			b.WriteString(c.rest)
		}
		run = run[:0]
	}
	for _, l := range lines {
		switch {
		case !in:
			b.WriteString(l)
			in = strings.HasSuffix(l, " struct {\n") && strings.HasPrefix(l, "type ") || l == "const (\n"
			continue
		case l == "}\n" || l == ")\n":
			flush()
			in = false
		default:
			if c, ok := splitCells(l); ok {
				run = append(run, c)
				continue
			}
			flush()
		}
		b.WriteString(l)
	}
	flush()
	return b.String()
}

type cells struct{ name, typ, rest string }

// splitCells splits "\tName Type rest" (rest starting with ` or =).
func splitCells(l string) (cells, bool) {
	if len(l) < 2 || l[0] != '\t' || l[1] == '/' || l[1] == '\t' {
		return cells{}, false
	}
	name, after, ok := strings.Cut(l[1:], " ")
	if !ok {
		return cells{}, false
	}
	typ, rest, ok := strings.Cut(after, " ")
	if !ok || rest == "" || rest[0] != '`' && rest[0] != '=' {
		return cells{}, false
	}
	return cells{name, typ, rest}, true
}

func pad(b *strings.Builder, n int) {
	for range n {
		b.WriteByte(' ')
	}
}

// plainDocComments reports whether gofmt would leave every top-level
// comment of src as it is. gofmt rewrites doc comments (go/doc/comment):
// indented lines become code blocks or lists, "#" lines and old-style
// headings become headings, "[x]: url" lines link definitions, and runs of
// blank lines shrink. A comment with any line that might be one of those
// is reported, and src is then formatted by gofmt after all; the test
// TestCanonical holds the rest to gofmt's form. Indented comments (of
// struct fields) are not rewritten by gofmt and not looked at.
func plainDocComments(src string) bool {
	var group []string // the texts of the current comment's lines, "//" cut
	check := func() bool {
		if len(group) == 0 {
			return true
		}
		defer func() { group = group[:0] }()
		if group[0] == "" || group[len(group)-1] == "" {
			return false
		}
		for i, t := range group {
			if t == "" {
				if group[i-1] == "" {
					return false
				}
				continue
			}
			if len(t) < 2 || t[0] != ' ' {
				return false
			}
			switch t[1] {
			case ' ', '\t', '#':
				return false
			case '[':
				// "[text]: URL" is a link definition; "[NEW tool ...] "
				// (a mark put before a description) is text.
				if strings.Contains(t, "]:") {
					return false
				}
			}
			// A line alone between blank lines, before more text, ending
			// in a letter or digit might be an old-style heading.
			if i > 0 && group[i-1] == "" && i+2 < len(group) && group[i+1] == "" {
				r, _ := utf8.DecodeLastRuneInString(t)
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					return false
				}
			}
		}
		return true
	}
	for len(src) > 0 {
		line, rest, _ := strings.Cut(src, "\n")
		src = rest
		if strings.HasPrefix(line, "/*") {
			return false
		}
		if text, ok := strings.CutPrefix(line, "//"); ok {
			group = append(group, text)
			continue
		}
		if !check() {
			return false
		}
	}
	return check()
}
