package trust

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// FormatDiff renders changes for a person: per tool its kind, then for a
// changed tool each part of the definition that differs as lines of the
// pinned version ("-") and the live one ("+").
func FormatDiff(server string, changes []Change) string {
	if len(changes) == 0 {
		return fmt.Sprintf("%s: every listed tool matches its pinned definition\n", server)
	}
	var b strings.Builder
	for _, c := range changes {
		switch c.Kind {
		case "new":
			fmt.Fprintf(&b, "new tool %s/%s (not yet trusted):\n", server, c.Tool)
			for _, l := range partLines(c.Live, "description") {
				fmt.Fprintf(&b, "  + %s\n", l)
			}
		case "removed":
			fmt.Fprintf(&b, "removed %s/%s: pinned, no longer listed\n", server, c.Tool)
		default:
			fmt.Fprintf(&b, "changed %s/%s:\n", server, c.Tool)
			for _, k := range hashedKeys {
				old, cur := partLines(c.Pinned, k), partLines(c.Live, k)
				if strings.Join(old, "\n") == strings.Join(cur, "\n") {
					continue
				}
				fmt.Fprintf(&b, "  %s:\n", k)
				for _, l := range lineDiff(old, cur) {
					fmt.Fprintf(&b, "    %s\n", l)
				}
			}
		}
	}
	fmt.Fprintf(&b, "accept with: mcpfs trust %s [TOOL]\n", server)
	return b.String()
}

// partLines is one part of a definition as lines: a string's lines, or
// other JSON indented.
func partLines(def json.RawMessage, key string) []string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(def, &obj) != nil {
		return nil
	}
	v, ok := obj[key]
	if !ok {
		return nil
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return strings.Split(s, "\n")
	}
	var canon any
	json.Unmarshal(v, &canon)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	enc.Encode(canon)
	return strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
}

// lineDiff returns the lines of a and b as "  same", "- only in a" and
// "+ only in b", in order (a longest common subsequence).
func lineDiff(a, b []string) []string {
	n, m := len(a), len(b)
	if n*m > 1<<20 { // too long to align: all out, all in
		var out []string
		for _, l := range a {
			out = append(out, "- "+l)
		}
		for _, l := range b {
			out = append(out, "+ "+l)
		}
		return out
	}
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, "  "+a[i])
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, "- "+a[i])
			i++
		default:
			out = append(out, "+ "+b[j])
			j++
		}
	}
	return out
}
