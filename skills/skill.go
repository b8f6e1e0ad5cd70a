package skills

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/mcpfs/mcpfs/exec/check"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// ImportPrefix starts the import path of every skill: mcpfs/skills/<name>.
const ImportPrefix = "mcpfs/skills/"

// SkillFile is the file every skill has: front matter, then usage.
const SkillFile = "SKILL.md"

// Limits on what a skill may hold.
const (
	MaxFiles    = 64
	MaxFileSize = 1 << 20
	MaxNameLen  = 64
)

// Skill is one version of a saved skill.
type Skill struct {
	// Name is the folder name and the Go package name.
	Name string
	// Description is the front matter's description.
	Description string
	// Version counts saves from 1; 0 for a skill that is not saved.
	Version int
	// Saved is when the version was written.
	Saved time.Time
	// Files maps file names (SKILL.md, *.go, *.md) to their contents.
	Files map[string][]byte
	// Run is the skill's entry point, nil when it declares none.
	Run *RunFunc
}

// ImportPath returns the path snippets import the skill by.
func (s Skill) ImportPath() string { return ImportPrefix + s.Name }

// HasRun reports whether the skill declares a Run entry point.
func (s Skill) HasRun() bool { return s.Run != nil }

// FileNames returns the names of the skill's files, sorted.
func (s Skill) FileNames() []string {
	names := make([]string, 0, len(s.Files))
	for n := range s.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Version describes one saved version of a skill (Store.Log).
type Version struct {
	Version int       `json:"version"`
	Saved   time.Time `json:"saved"`
	// Removed marks the version that removed the skill.
	Removed bool `json:"removed,omitempty"`
	// Note says how the version was made ("mount", "cli", "restored
	// from version 2").
	Note string `json:"note,omitempty"`
	// Files lists the version's files.
	Files []string `json:"files,omitempty"`
}

// Errors of the package.
var (
	// ErrInvalid marks a refused save; the error is a *ValidationError.
	ErrInvalid = errors.New("invalid skill")
	// ErrNotFound marks a skill or version that does not exist.
	ErrNotFound = errors.New("no such skill")
	// ErrInUse marks a skill other skills import.
	ErrInUse = errors.New("skill is imported by other skills")
)

// ValidationError is why a save was refused.
type ValidationError struct {
	Skill string
	// Problems are what is wrong, each at a position of one of the
	// skill's files ("skills/<name>/<file>") when it has one.
	Problems []check.Error
}

// Error lists the problems, one per line after a heading.
func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "skill %q is not valid", e.Skill)
	for _, p := range e.Problems {
		b.WriteString("\n")
		b.WriteString(p.Error())
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *ValidationError) Unwrap() error { return ErrInvalid }

// goKeywords cannot be package names.
var goKeywords = map[string]bool{
	"break": true, "case": true, "chan": true, "const": true, "continue": true, "default": true,
	"defer": true, "else": true, "fallthrough": true, "for": true, "func": true, "go": true,
	"goto": true, "if": true, "import": true, "interface": true, "map": true, "package": true,
	"range": true, "return": true, "select": true, "struct": true, "switch": true, "type": true,
	"var": true, "main": true,
}

// CheckName reports why name cannot name a skill, or nil. A skill name is
// a Go package name: a lower-case letter, then lower-case letters, digits
// and underscores, at most MaxNameLen bytes.
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New("the skill name is empty")
	case len(name) > MaxNameLen:
		return fmt.Errorf("skill name %q is longer than %d bytes", name, MaxNameLen)
	case goKeywords[name]:
		return fmt.Errorf("skill name %q is reserved in Go; choose another", name)
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r == '_' && i > 0 || r >= '0' && r <= '9' && i > 0
		if !ok {
			return fmt.Errorf("skill name %q: use a lower-case letter, then lower-case letters, digits or _ (it is the Go package name)", name)
		}
	}
	return nil
}

// IsSkillFile reports whether a file of that name is part of a skill:
// SKILL.md, Go files and Markdown files. Anything else in a skill folder
// (hidden files, editor backups and swap files, other extensions) is
// scratch: never saved.
func IsSkillFile(name string) bool {
	if name == "" || name != path.Base(name) || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "#") ||
		strings.HasSuffix(name, "~") || name == ErrorsFile {
		return false
	}
	return name == SkillFile || strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".md")
}

// ErrorsFile is the file a skill folder of the mount shows when its last
// save was refused. It is never part of a skill.
const ErrorsFile = "ERRORS.txt"

// cloneFiles copies a file map.
func cloneFiles(files map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(files))
	for k, v := range files {
		out[k] = append([]byte(nil), v...)
	}
	return out
}

// ForTree returns skills as an mcpfs tree shows them (fs.Options.Skills).
func ForTree(list []Skill) []mcpfs.Skill {
	out := make([]mcpfs.Skill, len(list))
	for i, s := range list {
		out[i] = mcpfs.Skill{Name: s.Name, Description: s.Description, HasRun: s.HasRun(), Saved: s.Saved, Files: s.Files}
	}
	return out
}
