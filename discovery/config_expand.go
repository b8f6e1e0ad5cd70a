package discovery

import (
	"fmt"
	"path/filepath"
	"strings"
)

// expander expands variable references in one server's values, the way
// Claude Code and VS Code do:
//
//	${VAR}            the environment variable VAR
//	${env:VAR}        the same (VS Code spelling)
//	${VAR:-default}   VAR, or default when VAR is unset or empty
//
// A reference runs to the first }, so a default cannot hold one. "${" with no
// closing } is left as written. VS Code prompts (${input:id}) and other
// editor-only references (${config:...}, ${command:...}) cannot be resolved
// and count as unset. In VS Code files, ${workspaceFolder},
// ${workspaceFolderBasename}, ${userHome} and ${pathSeparator} are known.
//
// An unset variable without a default expands to "" and sets sc.Err (the
// first one only), so the server is reported as failed and never started.
type expander struct {
	lookupEnv func(string) (string, bool)
	sc        *ServerConfig
	vsCode    bool   // the file is a VS Code mcp.json
	dir       string // the config file's directory
}

func (x *expander) expand(v *jsonValue, path string) string {
	s := v.Str
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+2:], '}')
		if j < 0 {
			break // no closing brace: literal text
		}
		b.WriteString(s[:i])
		b.WriteString(x.resolve(s[i+2:i+2+j], path))
		s = s[i+2+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// resolve returns the value of the reference ${body}.
func (x *expander) resolve(body, path string) string {
	ref, def, hasDef := strings.Cut(body, ":-")
	name := ref
	if n, ok := strings.CutPrefix(ref, "env:"); ok {
		name = n
	} else if kind, _, ok := strings.Cut(ref, ":"); ok && kind != "" {
		if hasDef {
			return def
		}
		x.fail(fmt.Sprintf("%s: ${%s} is an editor-only reference (a VS Code %s), which cannot be resolved here; export a variable and write ${VAR} instead", path, body, kind))
		return ""
	} else if x.vsCode {
		if val, ok := x.predefined(name); ok {
			return val
		}
	}
	if val, ok := x.lookupEnv(name); ok && (val != "" || !hasDef) {
		return val
	}
	if hasDef {
		return def
	}
	if name == "" {
		x.fail(fmt.Sprintf("%s: ${%s} names no variable; write ${VAR}", path, body))
		return ""
	}
	x.fail(fmt.Sprintf("%s: ${%s} is not set; export it or write ${%s:-default}", path, body, ref))
	return ""
}

// predefined resolves VS Code's predefined variables that make sense here.
func (x *expander) predefined(name string) (string, bool) {
	switch name {
	case "workspaceFolder", "workspaceFolderBasename":
		// The file is <workspace>/.vscode/mcp.json.
		ws := x.dir
		if filepath.Base(ws) == ".vscode" {
			ws = filepath.Dir(ws)
		}
		if name == "workspaceFolderBasename" {
			return filepath.Base(ws), true
		}
		return ws, true
	case "userHome":
		if h, ok := x.lookupEnv("HOME"); ok && h != "" {
			return h, true
		}
		return x.lookupEnv("USERPROFILE")
	case "pathSeparator", "/":
		return string(filepath.Separator), true
	}
	return "", false
}

func (x *expander) fail(msg string) {
	if x.sc.Err == "" {
		x.sc.Err = msg
	}
}
