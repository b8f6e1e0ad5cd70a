package check

import (
	"go/ast"
	"go/token"
	"go/types"
)

// osPath is the import path the rewrite gives a snippet's import of "os":
// a package with os.Stdout and os.Stderr only (exec/internal/shim's
// OSSymbols), writing to the run's own output as fmt.Print does.
const osPath = "mcpfs/internal/os"

// osWriters are the members of os a snippet may use: writers over the
// run's output.
var osWriters = map[string]bool{"Stdout": true, "Stderr": true}

// osWriterMethods are the methods of os.Stdout and os.Stderr in snippets.
var osWriterMethods = map[string]bool{"Write": true, "WriteString": true}

// osFiles are members of os that reach files.
var osFiles = map[string]bool{
	"Open": true, "OpenFile": true, "Create": true, "ReadFile": true, "WriteFile": true,
	"ReadDir": true, "Stat": true, "Lstat": true, "Mkdir": true, "MkdirAll": true,
	"MkdirTemp": true, "CreateTemp": true, "TempDir": true, "Remove": true, "RemoveAll": true,
	"Rename": true, "Getwd": true, "Chdir": true, "DirFS": true, "Truncate": true,
	"Chmod": true, "Chtimes": true, "Symlink": true, "Readlink": true, "CopyFS": true,
	"IsNotExist": true, "IsExist": true, "IsPermission": true,
	"ErrNotExist": true, "ErrExist": true, "ErrPermission": true, "ErrClosed": true,
	"FileInfo": true, "FileMode": true, "DirEntry": true, "UserHomeDir": true,
}

// osHint says what a snippet writes instead of os.name.
func osHint(name string) string {
	if h, ok := insteadOfMember["os."+name]; ok && !osWriters[name] {
		return h
	}
	switch {
	case osFiles[name]:
		return "for files use the tools of a filesystem server (mcpfs/servers/...); a snippet's os has only os.Stdout and os.Stderr, to write to"
	case name == "Getenv" || name == "LookupEnv" || name == "Environ" || name == "Setenv" || name == "ExpandEnv" || name == "Hostname":
		return "a snippet has no environment: write the value in the snippet"
	case name == "Stdin":
		return "a snippet has no input: write the data in the snippet, or get it from a server's tools"
	case name == "File":
		return `take an io.Writer (import "io"): os.Stdout and os.Stderr are writers in snippets`
	}
	return "a snippet's os has only os.Stdout and os.Stderr, to write to; for files use the tools of a filesystem server (mcpfs/servers/...)"
}

// checkOSImport lets a snippet import os for os.Stdout and os.Stderr, used
// as writers (their Write and WriteString methods, or passed where an
// io.Writer is wanted), and refuses every other member of os and every
// other method of those two, at its use, with what to write instead. It
// runs before type-checking: the type checker sees os as snippetOS, where
// the members refused here are undefined.
func (c *checker) checkOSImport(im *ast.ImportSpec) {
	name := "os"
	if im.Name != nil {
		name = im.Name.Name
	}
	switch name {
	case ".":
		c.errorf(im.Name.Pos(), `write import "os" and os.Stdout, os.Stderr`, `import . "os" is not allowed in snippets: a snippet uses os.Stdout and os.Stderr by name`)
		return
	case "_":
		return
	}
	ast.Inspect(c.file, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if inner, ok := sel.X.(*ast.SelectorExpr); ok {
			// os.Stdout.Method
			if x, ok := inner.X.(*ast.Ident); ok && x.Name == name && osWriters[inner.Sel.Name] && !osWriterMethods[sel.Sel.Name] {
				hint := "pass " + name + "." + inner.Sel.Name + " where an io.Writer is wanted (fmt.Fprintln, tabwriter.NewWriter, json.NewEncoder, a template's Execute, io.Copy), or call its Write or WriteString"
				switch sel.Sel.Name {
				case "Close":
					hint = "drop the call: the output is closed when main returns"
				case "Sync":
					hint = "drop the call: the output is written as it is printed"
				}
				c.errorf(sel.Sel.Pos(), hint, "%s.%s.%s is not available in snippets: os.%s is a writer there (Write, WriteString)", name, inner.Sel.Name, sel.Sel.Name, inner.Sel.Name)
			}
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || x.Name != name || osWriters[sel.Sel.Name] {
			return true
		}
		c.errorf(sel.Sel.Pos(), osHint(sel.Sel.Name), "%s.%s is not available in snippets: of package os, a snippet has os.Stdout and os.Stderr only", name, sel.Sel.Name)
		return true
	})
}

// checkOSValues refuses os.Stdout and os.Stderr where they become an
// empty interface (printed, or kept in an any): their type in a snippet is
// named os.File (%T agrees) but is not *os.File, so %v and type
// assertions would differ from Go.
func (c *checker) checkOSValues() {
	if !c.imports["os"] {
		return
	}
	parents := parentsOf(c.file)
	var uses []ast.Expr
	ast.Inspect(c.file, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok && c.isOSWriter(e) {
			uses = append(uses, e)
		}
		return true
	})
	for _, e := range uses {
		x := e
		for {
			p, ok := parents[x].(*ast.ParenExpr)
			if !ok {
				break
			}
			x = p
		}
		switch p := parents[x].(type) {
		case *ast.AssignStmt:
			for _, l := range p.Lhs {
				if l == x {
					c.errorf(e.Pos(), "write to another writer instead: var w io.Writer = "+c.text(e)+", then assign w", "%s cannot be assigned in snippets: there it is the run's own output", c.text(e))
				}
			}
		case *ast.UnaryExpr:
			if p.Op == token.AND {
				c.errorf(e.Pos(), "pass "+c.text(e)+" itself where an io.Writer is wanted", "the address of %s is not supported in snippets", c.text(e))
			}
		}
		t := c.targetType(x, parents)
		if t == nil {
			continue
		}
		if it, ok := t.Underlying().(*types.Interface); ok && it.NumMethods() == 0 {
			w := c.text(e)
			c.errorf(e.Pos(), "pass it only where an io.Writer is wanted: fmt.Fprintln("+w+", ...), tabwriter.NewWriter("+w+", ...), json.NewEncoder("+w+")",
				"%s as a value of type %s is not supported in snippets: there it is a writer, not an *os.File", w, c.typeString(t))
		}
	}
}

// isOSWriter reports whether e is os.Stdout or os.Stderr.
func (c *checker) isOSWriter(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	v, ok := c.info.Uses[sel.Sel].(*types.Var)
	return ok && v.Pkg() != nil && v.Pkg().Path() == "os" && osWriters[v.Name()]
}

// osFileMethods are the methods of *os.File.
var osFileMethods = map[string]bool{
	"Chdir": true, "Chmod": true, "Chown": true, "Close": true, "Fd": true, "Name": true,
	"Read": true, "ReadAt": true, "ReadDir": true, "ReadFrom": true, "Readdir": true,
	"Readdirnames": true, "Seek": true, "SetDeadline": true, "SetReadDeadline": true,
	"SetWriteDeadline": true, "Stat": true, "Sync": true, "SyscallConn": true,
	"Truncate": true, "Write": true, "WriteAt": true, "WriteString": true, "WriteTo": true,
}

// checkOSAssertions refuses, in a snippet that uses os.Stdout or
// os.Stderr, type assertions and type switch cases from a writer (or an
// any) to an interface that *os.File implements and the snippet's
// os.Stdout does not (io.Closer, io.ReaderFrom, interface{ Fd() uintptr
// }, ...): Go's would succeed on os.Stdout, the snippet's would fail.
func (c *checker) checkOSAssertions() {
	used := false
	for _, obj := range c.info.Uses {
		if v, ok := obj.(*types.Var); ok && v.Pkg() != nil && v.Pkg().Path() == "os" && osWriters[v.Name()] {
			used = true
			break
		}
	}
	if !used {
		return
	}
	check := func(x, typ ast.Expr) {
		if x == nil || typ == nil {
			return
		}
		xt, tt := c.info.TypeOf(x), c.info.TypeOf(typ)
		if xt == nil || tt == nil {
			return
		}
		xi, ok := xt.Underlying().(*types.Interface)
		if !ok {
			return
		}
		if xi.NumMethods() > 0 {
			writer := false
			for i := 0; i < xi.NumMethods(); i++ {
				writer = writer || osWriterMethods[xi.Method(i).Name()]
			}
			if !writer {
				return
			}
		}
		ti, ok := tt.Underlying().(*types.Interface)
		if !ok || ti.NumMethods() == 0 {
			return
		}
		extra := ""
		for i := 0; i < ti.NumMethods(); i++ {
			name := ti.Method(i).Name()
			if !osFileMethods[name] {
				return
			}
			if !osWriterMethods[name] && extra == "" {
				extra = name
			}
		}
		if extra != "" {
			c.errorf(typ.Pos(), "pass os.Stdout where only Write or WriteString is needed, and keep such assertions to writers of your own (a *strings.Builder, a *bytes.Buffer)",
				"a type assertion to %s is not supported in snippets that use os.Stdout or os.Stderr: there they are writers only (Write, WriteString), without %s, so it would fail where Go's succeeds", c.typeString(tt), extra)
		}
	}
	ast.Inspect(c.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TypeAssertExpr:
			check(n.X, n.Type)
		case *ast.TypeSwitchStmt:
			var ta *ast.TypeAssertExpr
			switch a := n.Assign.(type) {
			case *ast.ExprStmt:
				ta, _ = a.X.(*ast.TypeAssertExpr)
			case *ast.AssignStmt:
				if len(a.Rhs) == 1 {
					ta, _ = a.Rhs[0].(*ast.TypeAssertExpr)
				}
			}
			if ta == nil {
				return true
			}
			for _, s := range n.Body.List {
				if cc, ok := s.(*ast.CaseClause); ok {
					for _, t := range cc.List {
						check(ta.X, t)
					}
				}
			}
		}
		return true
	})
}
