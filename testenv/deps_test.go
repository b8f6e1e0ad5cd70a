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

// netAndKernel are packages that reach the network, the kernel's file
// systems, MCP servers or the cache; kernelAndNet adds processes. The
// pure layers must not depend on them. The type checker and what uses it
// get os/exec through go/build (behind go/importer), so they have the
// narrower rule.
var (
	netAndKernel = []string{"net", "net/http", "github.com/hanwen/go-fuse/v2/fuse", "github.com/hanwen/go-fuse/v2/fs", "github.com/mark3labs/mcp-go/client", "github.com/mark3labs/mcp-go/server", "github.com/dgraph-io/badger/v4"}
	kernelAndNet = append([]string{"os/exec"}, netAndKernel...)
)

// The tree's layers, as allowed sets: each includes what the layer below
// it may use.
var (
	leaves   = []string{"discovery/catalog", "discovery/naming", "discovery/jsonvalue"}
	genLayer = append([]string{"fs/gen", "fs/gen/runtime/mcp"}, leaves...)
	fsLayer  = append([]string{"fs"}, genLayer...)
	// skillsLayer is skills and what it checks skills with.
	skillsLayer = append([]string{"skills", "exec/check", "exec/check/..."}, fsLayer...)
)

// rules says, per package, which packages of mcpfs it may depend on,
// directly or not (a trailing "/..." allows a subtree), and which others
// it must not. docs/ARCHITECTURE.md's package map shows the same arrows.
// Every package of the module has a rule (TestEveryPackageHasARule).
var rules = []struct {
	pkg     string
	mcpfs   []string // allowed mcpfs packages; nil: none
	denyAll []string // other packages it must not depend on
}{
	// Leaves: the catalog, names and rules, with no I/O of their own.
	{pkg: "discovery/catalog", denyAll: kernelAndNet},
	{pkg: "discovery/naming", denyAll: kernelAndNet},
	{pkg: "discovery/jsonvalue", denyAll: kernelAndNet},
	{pkg: "discovery/policy", denyAll: kernelAndNet},
	{pkg: "cmd/internal/audit", denyAll: kernelAndNet},
	{pkg: "fs/gen/runtime/mcp", denyAll: kernelAndNet},
	{pkg: "fs/gen/shape", denyAll: kernelAndNet},
	{pkg: "exec/check", denyAll: netAndKernel},
	{pkg: "exec/check/internal/mkstd"},
	{pkg: "exec/internal/shim/osfile", denyAll: kernelAndNet},
	{pkg: "exec/internal/shim", mcpfs: []string{"exec/internal/shim/osfile"}, denyAll: netAndKernel},
	{pkg: "exec/internal/stdsyms", denyAll: kernelAndNet},
	{pkg: "exec/internal/sandbox"},

	// Discovery: connections and calls; it knows nothing of the tree.
	{pkg: "discovery", mcpfs: []string{"discovery/..."}},
	{pkg: "discovery/builtin", mcpfs: []string{"discovery/..."}},
	{pkg: "cmd/internal/trust", mcpfs: []string{"discovery/..."}},
	{pkg: "discovery/internal/faultserver", mcpfs: []string{"discovery/..."}},
	{pkg: "cache", mcpfs: []string{"discovery/catalog"}},

	// The tree: pure, from the catalog to files.
	{pkg: "fs/gen", mcpfs: genLayer, denyAll: kernelAndNet},
	{pkg: "fs", mcpfs: fsLayer, denyAll: kernelAndNet},
	{pkg: "fs/search", mcpfs: fsLayer, denyAll: kernelAndNet},
	{pkg: "fs/search/internal/mkwordnet", denyAll: kernelAndNet},
	{pkg: "fs/search/internal/mkvectors", denyAll: kernelAndNet},
	{pkg: "skills", mcpfs: skillsLayer, denyAll: netAndKernel},

	// The writable folders' rules without the kernel, and the FUSE
	// adapter over them; none of them runs snippets or calls servers.
	{pkg: "fs/internal/jobs", denyAll: kernelAndNet},
	{pkg: "fs/internal/workcopy", mcpfs: skillsLayer, denyAll: netAndKernel},
	{pkg: "fs/fuse", mcpfs: append([]string{"fs/internal/..."}, skillsLayer...)},

	// Running snippets.
	{pkg: "exec/worker", mcpfs: []string{"exec/check", "exec/check/...", "exec/internal/shim", "exec/internal/shim/osfile", "exec/internal/stdsyms", "exec/internal/sandbox", "fs/gen/runtime/mcp"}},
	{pkg: "exec", mcpfs: append([]string{"exec/..."}, fsLayer...)},
	{pkg: "cmd/internal/mcpserver", mcpfs: []string{"discovery/...", "fs", "fs/...", "exec", "exec/...", "skills", "cache"}},

	// The commands' shared packages: the engine wires everything but the
	// kernel adapter; the page sees the engine through an interface.
	{pkg: "cmd/internal/tokens", denyAll: kernelAndNet},
	{pkg: "cmd/internal/runlog", mcpfs: append([]string{"exec", "exec/..."}, fsLayer...)},
	{pkg: "cmd/internal/engine", mcpfs: []string{"discovery/...", "cache", "fs", "fs/gen/...", "fs/search", "skills", "exec", "exec/...", "cmd/internal/runlog", "cmd/internal/audit", "cmd/internal/trust"}},
	{pkg: "cmd/internal/ui", mcpfs: []string{"discovery/...", "fs", "fs/gen/...", "skills", "exec", "exec/...", "cmd/internal/runlog", "cmd/internal/tokens", "cmd/internal/audit"}},
	{pkg: "cmd/internal/thirdparty/...", mcpfs: []string{"cmd/internal/thirdparty/..."}},
	{pkg: "testenv"},
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
			if rel, ok := strings.CutPrefix(dep, module+"/"); ok && allowed(rel, []string{r.pkg}) {
				continue // itself (or, for a subtree rule, its own subtree)
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

// TestEveryPackageHasARule keeps the rules complete: a new package
// needs a rule, and so a line in ARCHITECTURE.md's package map.
func TestEveryPackageHasARule(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("skipping: the go command is not installed (the packages are listed with go list)")
	}
	root := filepath.Dir(Dir())
	out, err := exec.Command("go", "list", "-C", root, "./...").Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	ruled := make([]string, 0, len(rules))
	for _, r := range rules {
		ruled = append(ruled, r.pkg)
	}
	for _, pkg := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(pkg, module+"/")
		if strings.HasPrefix(rel, "cmd/") && !strings.HasPrefix(rel, "cmd/internal/") {
			continue // commands: they wire everything
		}
		if !allowed(rel, ruled) {
			t.Errorf("%s has no import rule in deps_test.go: add one, and a line in docs/ARCHITECTURE.md", rel)
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
