package check

import (
	"errors"
	"fmt"
	"go/token"
	iofs "io/fs"
	"sort"
	"strings"
)

// maxErrors bounds the errors one Check reports.
const maxErrors = 10

// Options configure Check. The zero value is ready to use.
type Options struct {
	// Allow lists the standard library import paths a snippet may use.
	// Nil means DefaultAllow.
	Allow []string
}

// Program is a snippet that passed Check.
type Program struct {
	// Source is the snippet rewritten to Go that the interpreter runs
	// correctly. Line numbers of the original are kept; helpers the rewrite
	// needs are appended at the end of the file.
	Source []byte
	// Imports is every import path the snippet uses, tree packages
	// (mcpfs/...) and standard ones, sorted.
	Imports []string
	// TreePackages is the tree packages (mcpfs/...) the snippet needs,
	// directly or through other tree packages, sorted.
	TreePackages []string
	// Files holds the skill files among TreePackages that the interpreter
	// needs rewritten, by tree path ("skills/<name>/<file>.go"); the run
	// sends these instead of the tree's. Nil when there are none.
	Files map[string][]byte
}

// Error is one problem in a snippet, at a position of the original source,
// or in a skill, at a position of one of its files
// ("skills/<name>/<file>"; skills.ValidationError lists them).
type Error struct {
	Pos  token.Position
	Msg  string
	Hint string // what to do instead; may be empty
}

// Error returns "file:line:col: msg" ("msg" when there is no position),
// followed by "\n\thint: ..." when there is a hint.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Pos.Filename != "" || e.Pos.IsValid() {
		b.WriteString(e.Pos.String())
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString("\n\thint: ")
		b.WriteString(strings.ReplaceAll(e.Hint, "\n", "\n\t      "))
	}
	return b.String()
}

// ErrorList is the problems Check found, sorted by position.
type ErrorList []*Error

// Error joins the errors, one per line.
func (l ErrorList) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Unwrap lets errors.As find the first *Error.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

func (l ErrorList) sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// Check parses and type-checks the snippet src (named filename in errors)
// against the packages of tree (an mcpfs tree: mcp/, servers/<s>/,
// skills/<s>/) and the allowed standard packages, and returns it rewritten
// for the interpreter. A problem in the snippet is returned as an
// ErrorList.
func Check(filename string, src []byte, tree iofs.FS, opts Options) (prog *Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			prog, err = nil, fmt.Errorf("check %s: %w: %v", filename, ErrInternal, r)
		}
	}()
	return check(filename, src, tree, opts)
}

// ErrInternal marks a failure of the checker itself rather than of the
// snippet.
var ErrInternal = errors.New("internal error in the snippet checker")
