package gen

import (
	"strings"
	"unicode/utf8"
)

// sanitize makes untrusted text (a description, instructions, a schema
// value) safe to place in // comments: invalid UTF-8 becomes U+FFFD; every
// line break the Go scanner or an editor may honour (\r\n, \r, \v, \f, NEL,
// U+2028, U+2029) becomes \n; other control characters, NUL, the BOM and
// bidirectional-override characters are dropped; trailing spaces and
// leading and trailing blank lines are removed.
func sanitize(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				i++
			}
			b.WriteByte('\n')
		case r == '\n', r == '\v', r == '\f', r == 0x85, r == 0x2028, r == 0x2029:
			b.WriteByte('\n')
		case r == '\t':
			b.WriteByte('\t')
		case r < 0x20, r >= 0x7f && r < 0xa0:
			// other control characters
		case r == 0xfeff, r == 0xfffe, r == 0xffff,
			r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			// BOM, non-characters and bidirectional controls
		default:
			b.WriteRune(r)
		}
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// oneLine returns sanitised text on a single line (line breaks become
// spaces), cut to at most max runes with "..." appended when cut.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(sanitize(s)), " ")
	return clip(s, max)
}

func clip(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:max]), " ") + "..."
}

// firstSentence returns the first sentence of a description: its first
// non-empty line, cut after the first ". ", at most 160 runes.
func firstSentence(desc string) string {
	for _, line := range strings.Split(sanitize(desc), "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			continue
		}
		if i := strings.Index(line, ". "); i >= 0 {
			line = line[:i+1]
		}
		return clip(line, 160)
	}
	return ""
}

// writeComment writes text as line comments, each line "<indent>// <line>"
// (or "<indent>//" for an empty line). The space after // means no line
// can be a //go: or //line directive, and a line starting with "+build"
// is escaped with a backslash.
func writeComment(b *strings.Builder, indent, text string) {
	if text == "" {
		return
	}
	for _, line := range strings.Split(sanitize(text), "\n") {
		b.WriteString(indent)
		if line == "" {
			b.WriteString("//\n")
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), "+build") {
			// gofmt moves any "// +build" line to the top of the file as a
			// build constraint (even from a doc comment after the package
			// clause): escape it.
			line = `\` + strings.TrimSpace(line)
		}
		b.WriteString("// ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
}
