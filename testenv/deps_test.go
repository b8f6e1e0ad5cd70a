package testenv

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The import rules of docs/ARCHITECTURE.md, checked the way the standard
// library's go/build deps_test.go checks its own: each package of mcpfs
// may depend (directly or not) only on what its rule allows. A new arrow
// fails here; change the rule knowingly, with ARCHITECTURE.md.
const module = "github.com/mcpfs/mcpfs"

// kernelAndNet are packages that reach processes, the network or the
// kernel's file systems; the pure layers must not depend on them.
var kernelAndNet = []string{"net", "net/http", "os/exec", "github.com/hanwen/go-fuse/v2/fuse", "github.com/mark3labs/mcp-go/client", "github.com/mark3labs/mcp-go/server", "github.com/dgraph-io/badger/v4"}

// rules says, per package, which packages of mcpfs it may depend on (a
// trailing "/..." allows a subtree) and which others it must not.
var rules = []struct {
	pkg     string
	mcpfs   []string // allowed mcpfs packages; nil: none
	denyAll []string // other packages it must not depend on
}{
	{pkg: "discovery/catalog", denyAll: kernelAndNet},
	{pkg: "discovery/naming", denyAll: kernelAndNet},
	{pkg: "discovery/policy", mcpfs: []string{"discovery/catalog", "discovery/naming"}, denyAll: kernelAndNet},
	{pkg: "fs/gen", mcpfs: []string{"discovery/catalog", "discovery/naming", "fs/gen/runtime/mcp"}, denyAll: kernelAndNet},
	{pkg: "fs/gen/shape", denyAll: kernelAndNet},
	{pkg: "fs", mcpfs: []string{"discovery/catalog", "discovery/naming", "fs/gen", "fs/gen/runtime/mcp"}, denyAll: kernelAndNet},
	{pkg: "fs/search", mcpfs: []string{"discovery/catalog", "discovery/naming", "fs", "fs/gen", "fs/gen/runtime/mcp"}, denyAll: kernelAndNet},
	{pkg: "cache", mcpfs: []string{"discovery/catalog"}},
	{pkg: "discovery", mcpfs: []string{"discovery/..."}},
	{pkg: "fs/fuse", mcpfs: []string{"discovery/catalog", "discovery/naming", "fs", "fs/gen", "fs/gen/runtime/mcp", "skills", "exec/check", "exec/check/..."}},
	{pkg: "skills", mcpfs: []string{"discovery/catalog", "discovery/naming", "fs", "fs/gen", "fs/gen/runtime/mcp", "exec/check", "exec/check/..."}},
	{pkg: "exec", mcpfs: []string{"discovery/catalog", "discovery/naming", "fs", "fs/gen", "fs/gen/runtime/mcp", "exec/..."}},
	{pkg: "exec/mcpserver", mcpfs: []string{"discovery/...", "fs", "fs/...", "exec", "exec/...", "skills", "cache"}},
}

func TestImportRules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("skipping: the go command is not installed (the rules are read with go list)")
	}
	root := filepath.Dir(Dir())
	for _, r := range rules {
		out, err := exec.Command("go", "list", "-C", root, "-deps", "./"+r.pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps ./%s: %v", r.pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == module+"/"+r.pkg {
				continue
			}
			if rel, ok := strings.CutPrefix(dep, module+"/"); ok {
				if !allowed(rel, r.mcpfs) {
					t.Errorf("%s depends on %s, which its rule does not allow", r.pkg, rel)
				}
				continue
			}
			for _, d := range r.denyAll {
				if dep == d {
					t.Errorf("%s depends on %s (processes, network or kernel), which its rule forbids", r.pkg, dep)
				}
			}
		}
	}
	// Nothing but the commands imports the commands' packages.
	out, err := exec.Command("go", "list", "-C", root, "-f", `{{.ImportPath}}: {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		if strings.HasPrefix(pkg, module+"/cmd/") {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, module+"/cmd/") {
				t.Errorf("%s imports %s: only commands may", pkg, imp)
			}
		}
	}
}

func allowed(rel string, allow []string) bool {
	for _, a := range allow {
		if a == rel {
			return true
		}
		if sub, ok := strings.CutSuffix(a, "/..."); ok && (rel == sub || strings.HasPrefix(rel, sub+"/")) {
			return true
		}
	}
	return false
}
