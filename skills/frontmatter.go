package skills

import (
	"bytes"
	"fmt"
	"go/token"
	"strings"

	"github.com/mcpfs/mcpfs/exec/check"
)

// FrontMatter is the part of SKILL.md's YAML front matter that mcpfs
// reads. Other keys (license, allowed-tools, metadata, ...) are allowed
// and kept in the file untouched.
type FrontMatter struct {
	Name        string
	Description string
}

// maxDescription bounds the description, as Agent Skills does.
const maxDescription = 1024

// ParseFrontMatter reads the front matter at the start of a SKILL.md: a
// line "---", "key: value" lines, and a closing "---". Values may be
// quoted ('...' or "...") or block scalars (| or > followed by indented
// lines). file names the file in problems.
func ParseFrontMatter(file string, data []byte) (FrontMatter, []check.Error) {
	var fm FrontMatter
	at := func(line int, msg, hint string) check.Error {
		return check.Error{Pos: token.Position{Filename: file, Line: line, Column: 1}, Msg: msg, Hint: hint}
	}
	const example = "start SKILL.md with:\n---\nname: <skill name>\ndescription: <what it does and when to use it>\n---"
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return fm, []check.Error{at(1, "SKILL.md must start with YAML front matter (a line ---)", example)}
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t") == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		return fm, []check.Error{at(1, "the front matter is not closed by a line ---", example)}
	}
	var probs []check.Error
	seen := map[string]int{}
	for i := 1; i < end; i++ {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' || strings.HasPrefix(line, "- ") {
			continue // nested value of a key mcpfs does not read
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			probs = append(probs, at(i+1, fmt.Sprintf("front matter line %q is not key: value", line), ""))
			continue
		}
		key = strings.TrimSpace(key)
		val = strings.TrimSpace(val)
		if key != "name" && key != "description" {
			continue
		}
		if prev, dup := seen[key]; dup {
			probs = append(probs, at(i+1, fmt.Sprintf("%s is given twice (first on line %d)", key, prev), ""))
			continue
		}
		seen[key] = i + 1
		switch {
		case val == "|" || val == ">" || val == "|-" || val == ">-" || val == "|+" || val == ">+":
			var parts []string
			for i+1 < end && (strings.HasPrefix(lines[i+1], " ") || strings.HasPrefix(lines[i+1], "\t") || strings.TrimSpace(lines[i+1]) == "") {
				i++
				parts = append(parts, strings.TrimSpace(lines[i]))
			}
			sep := " "
			if val[0] == '|' {
				sep = "\n"
			}
			val = strings.TrimSpace(strings.Join(parts, sep))
		case len(val) >= 2 && (val[0] == '"' && val[len(val)-1] == '"' || val[0] == '\'' && val[len(val)-1] == '\''):
			q := val[0]
			val = val[1 : len(val)-1]
			if q == '\'' {
				val = strings.ReplaceAll(val, "''", "'")
			} else {
				val = strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\n`, "\n").Replace(val)
			}
		default:
			if j := strings.Index(val, " #"); j >= 0 {
				val = strings.TrimSpace(val[:j])
			}
		}
		if key == "name" {
			fm.Name = val
		} else {
			fm.Description = val
		}
	}
	if _, ok := seen["name"]; !ok {
		probs = append(probs, at(1, "the front matter has no name", example))
	}
	if _, ok := seen["description"]; !ok || fm.Description == "" {
		line := 1
		if ok {
			line = seen["description"]
		}
		probs = append(probs, at(line, "the front matter has no description", "say in one or two sentences what the skill does and when to use it"))
	} else if len(fm.Description) > maxDescription {
		probs = append(probs, at(seen["description"], fmt.Sprintf("the description is %d bytes; keep it under %d", len(fm.Description), maxDescription), "move details into the body of SKILL.md"))
	}
	return fm, probs
}
