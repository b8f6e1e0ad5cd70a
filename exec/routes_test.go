package exec

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpfs/mcpfs/exec/check"
	"github.com/mcpfs/mcpfs/exec/internal/sandbox"
)

// fileRoutes are snippets, within the default allowlist, that reach a
// function reading files by a route the checker cannot follow: text/template
// calling methods of its data, an interface the snippet defines, a method
// value. Each prints what it read.
var fileRoutes = []struct{ name, src string }{
	// The package functions are not in the worker's symbols at all.
	{"the package function", `package main

import (
	"fmt"
	"text/template"
)

func main() {
	_, err := template.ParseFiles("/etc/passwd")
	fmt.Println(err)
}
`},
	{"template calls a method of its data", `package main

import (
	"fmt"
	"strings"
	"text/template"
)

func main() {
	t := template.Must(template.New("x").Parse(` + "`" + `{{with .ParseFiles "/etc/passwd"}}{{.ExecuteTemplate $ "passwd" nil}}{{end}}` + "`" + `))
	var b strings.Builder
	err := t.Execute(&b, template.New("data"))
	fmt.Println(b.String(), err)
}
`},
	{"template globs through its data", `package main

import (
	"fmt"
	"strings"
	"text/template"
)

func main() {
	t := template.Must(template.New("x").Parse(` + "`" + `{{.ParseGlob "/etc/pass*"}}` + "`" + `))
	var b strings.Builder
	err := t.Execute(&b, template.New("data"))
	fmt.Println(b.String(), err)
}
`},
	{"an interface the snippet defines", `package main

import (
	"fmt"
	"strings"
	"text/template"
)

type parser interface {
	ParseFiles(names ...string) (*template.Template, error)
}

func main() {
	var p parser = template.New("x")
	t, err := p.ParseFiles("/etc/passwd")
	if err != nil {
		fmt.Println(err)
		return
	}
	var b strings.Builder
	t.ExecuteTemplate(&b, "passwd", nil)
	fmt.Println(b.String())
}
`},
	{"a method value", `package main

import (
	"fmt"
	"strings"
	"text/template"
)

func main() {
	parse := template.New("x").ParseFiles
	t, err := parse("/etc/passwd")
	if err != nil {
		fmt.Println(err)
		return
	}
	var b strings.Builder
	t.ExecuteTemplate(&b, "passwd", nil)
	fmt.Println(b.String())
}
`},
	{"template call of a method value", `package main

import (
	"fmt"
	"strings"
	"text/template"
)

func main() {
	data := map[string]any{"F": template.New("x").ParseFiles}
	t := template.Must(template.New("x").Parse(` + "`" + `{{with call .F "/etc/passwd"}}{{.ExecuteTemplate $ "passwd" nil}}{{end}}` + "`" + `))
	var b strings.Builder
	err := t.Execute(&b, data)
	fmt.Println(b.String(), err)
}
`},
}

// TestFileRoutes runs every route in the worker, past the checker (which
// refuses some), with the whole sandbox and again without Landlock, as on
// a kernel that lacks it: the seccomp filter alone must refuse the open.
func TestFileRoutes(t *testing.T) {
	e := newEngine(t)
	for _, skip := range [][]string{nil, {sandbox.LayerLandlock}} {
		r := newRunner(t, Options{Timeout: 10e9, PoolSize: -1})
		r.cfg.Skip = skip
		name := "whole sandbox"
		if skip != nil {
			name = "without landlock"
		}
		t.Run(name, func(t *testing.T) {
			for _, tt := range fileRoutes {
				t.Run(tt.name, func(t *testing.T) {
					if _, err := check.Check("snippet.go", []byte(tt.src), e.tree, check.Options{}); err != nil {
						t.Logf("the checker refuses it: %v", err)
					} else {
						t.Logf("the checker lets it through")
					}
					res, err := r.Run(context.Background(), Request{Source: []byte(tt.src), Tree: e.tree})
					if res == nil {
						t.Fatalf("no result: %v", err)
					}
					out := string(res.Stdout) + string(res.Stderr)
					if strings.Contains(out, "root:") {
						t.Fatalf("the snippet read /etc/passwd:\n%s", out)
					}
					// A glob that cannot list the directory matches nothing.
					if !strings.Contains(out, "permission denied") && !strings.Contains(out, "matches no files") &&
						!strings.Contains(fmt.Sprint(err), "has no symbol ParseFiles") {
						t.Errorf("got %q (%v), want the open refused with permission denied", out, err)
					}
					if skip != nil {
						for _, l := range res.Layers {
							if l.Name == sandbox.LayerLandlock && l.Active {
								t.Errorf("landlock is on")
							}
						}
					}
				})
			}
		})
	}
}
