package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/format"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mcpfs/mcpfs/discovery"
)

// input is the format of testdata/input/*.json: the raw initialize and
// tools/list results of a server, and optionally how its snapshot differs.
type input struct {
	Initialize struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name    string `json:"name"`
			Title   string `json:"title"`
			Version string `json:"version"`
		} `json:"serverInfo"`
		Instructions string `json:"instructions"`
	} `json:"initialize"`
	ToolsList struct {
		Tools []json.RawMessage `json:"tools"`
	} `json:"tools/list"`
	Snapshot struct {
		Name      string `json:"name"`
		Key       string `json:"key"`
		Transport string `json:"transport"`
		State     string `json:"state"`
		Err       string `json:"err"`
		Truncated bool   `json:"truncated"`
	} `json:"snapshot"`
}

// loadSnapshot reads testdata/input/<name>.json as a server snapshot.
func loadSnapshot(t testing.TB, name string) discovery.ServerSnapshot {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "input", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var in input
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatalf("testdata/input/%s.json: %v", name, err)
	}
	s := discovery.ServerSnapshot{
		Name:            name,
		Key:             name,
		Transport:       "stdio",
		State:           discovery.StateReady,
		ServerName:      in.Initialize.ServerInfo.Name,
		ServerTitle:     in.Initialize.ServerInfo.Title,
		ServerVersion:   in.Initialize.ServerInfo.Version,
		ProtocolVersion: in.Initialize.ProtocolVersion,
		Instructions:    in.Initialize.Instructions,
		ToolsTruncated:  in.Snapshot.Truncated,
	}
	if in.Snapshot.Name != "" {
		s.Name = in.Snapshot.Name
	}
	if in.Snapshot.Key != "" {
		s.Key = in.Snapshot.Key
	}
	if in.Snapshot.Transport != "" {
		s.Transport = in.Snapshot.Transport
	}
	if in.Snapshot.State != "" {
		s.State = discovery.State(in.Snapshot.State)
	}
	s.Err = in.Snapshot.Err
	for _, raw := range in.ToolsList.Tools {
		var head struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(raw, &head) // a hostile tool may not be an object
		s.Tools = append(s.Tools, discovery.Tool{Name: head.Name, Raw: raw})
	}
	return s
}

// checker type-checks generated packages against the generated runtime.
type checker struct {
	fset    *token.FileSet
	std     types.Importer
	runtime *types.Package
}

var (
	sharedChecker     *checker
	sharedCheckerErr  error
	sharedCheckerOnce sync.Once
)

// newChecker returns a checker shared by the tests of this package: the
// standard library is imported from source once.
func newChecker(t testing.TB) *checker {
	t.Helper()
	sharedCheckerOnce.Do(func() {
		fset := token.NewFileSet()
		c := &checker{fset: fset, std: importer.ForCompiler(fset, "source", nil)}
		var files []File
		for _, f := range Root(nil) {
			if strings.HasPrefix(f.Path, "mcp/") {
				files = append(files, f)
			}
		}
		c.runtime, sharedCheckerErr = c.check("mcpfs/mcp", files)
		sharedChecker = c
	})
	if sharedCheckerErr != nil {
		t.Fatalf("type-check the runtime package: %v", sharedCheckerErr)
	}
	return sharedChecker
}

func (c *checker) Import(p string) (*types.Package, error) {
	if p == "mcpfs/mcp" && c.runtime != nil {
		return c.runtime, nil
	}
	return c.std.Import(p)
}

// check parses and type-checks the Go files as one package.
func (c *checker) check(importPath string, files []File) (*types.Package, error) {
	var asts []*ast.File
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".go") {
			continue
		}
		af, err := parser.ParseFile(c.fset, f.Path, f.Data, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parse: %w", err)
		}
		asts = append(asts, af)
	}
	conf := types.Config{Importer: c}
	return conf.Check(importPath, c.fset, asts, nil)
}

// checkServer asserts everything that must hold for any output of Server:
// safe, unique paths; sorted; parseable, gofmt-stable Go that type-checks
// with the runtime; the standard header; no directives.
func checkServer(t testing.TB, s discovery.ServerSnapshot, files []File) {
	t.Helper()
	pkg := files[0].Path
	pkg = strings.TrimPrefix(path.Dir(pkg), "servers/")
	seen := map[string]bool{}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
		dir, base := path.Split(f.Path)
		if dir != "servers/"+pkg+"/" {
			t.Errorf("%q is outside servers/%s/", f.Path, pkg)
		}
		if !safeGoFileName(base) {
			t.Errorf("unsafe file name %q", f.Path)
		}
		if seen[strings.ToLower(base)] {
			t.Errorf("file name %q is not unique (case-insensitive)", f.Path)
		}
		seen[strings.ToLower(base)] = true
		if fmtd, err := format.Source(f.Data); err != nil {
			t.Errorf("%s does not parse: %v", f.Path, err)
		} else if !bytes.Equal(fmtd, f.Data) {
			t.Errorf("%s is not gofmt-stable", f.Path)
		}
		if path.Base(f.Path) == "doc.go" && !bytes.HasPrefix(f.Data, []byte("// Code generated by mcpfs. DO NOT EDIT.\n")) {
			t.Errorf("%s lacks the generated-code header", f.Path)
		}
		for i, line := range bytes.Split(f.Data, []byte("\n")) {
			l := bytes.TrimSpace(line)
			if bytes.HasPrefix(l, []byte("//go:")) || bytes.HasPrefix(l, []byte("//line")) || bytes.HasPrefix(l, []byte("// +build")) {
				t.Errorf("%s:%d: directive-like comment %q", f.Path, i+1, l)
			}
		}
	}
	if !sort.StringsAreSorted(paths) {
		t.Errorf("files are not sorted by path: %q", paths)
	}
	if want := len(s.Tools) + 1; len(files) != want {
		t.Errorf("got %d files, want %d (one per tool + doc.go)", len(files), want)
	}
	c := newChecker(t)
	if _, err := c.check("mcpfs/servers/"+pkg, files); err != nil {
		t.Errorf("type-check servers/%s: %v", pkg, err)
	}
}

// safeGoFileName reports whether the go command builds base as a plain,
// always-included source file.
func safeGoFileName(base string) bool {
	name, ok := strings.CutSuffix(base, ".go")
	if !ok || name == "" || name[0] == '_' || name[0] == '.' || len(base) > 255 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	// go/build's rules: the parts after the first "_"; a trailing "test";
	// then GOOS, GOARCH or GOOS_GOARCH at the end.
	i := strings.Index(name, "_")
	if i < 0 {
		return true
	}
	l := strings.Split(name[i:], "_")
	if l[len(l)-1] == "test" {
		return false
	}
	n := len(l)
	if n >= 1 && (testOS[l[n-1]] || testArch[l[n-1]]) {
		return false
	}
	return true
}

var testOS = map[string]bool{"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true, "hurd": true, "illumos": true, "ios": true, "js": true, "linux": true, "nacl": true, "netbsd": true, "openbsd": true, "plan9": true, "solaris": true, "wasip1": true, "windows": true, "zos": true}

var testArch = map[string]bool{"386": true, "amd64": true, "amd64p32": true, "arm": true, "armbe": true, "arm64": true, "arm64be": true, "loong64": true, "mips": true, "mipsle": true, "mips64": true, "mips64le": true, "mips64p32": true, "mips64p32le": true, "ppc": true, "ppc64": true, "ppc64le": true, "riscv": true, "riscv64": true, "s390": true, "s390x": true, "sparc": true, "sparc64": true, "wasm": true}
