// Command mkstd writes the gc export data of the standard packages that
// snippets may import (check.DefaultAllow and check.Optional, read from
// allow.go) and of those
// the tree's runtime package imports, as a zip archive (each package deflated on its own, so that a
// check unpacks only the packages it imports). Run
// it with `go generate ./exec/check`; it needs the Go toolchain that builds
// mcpfs, since the export data format belongs to that toolchain.
package main

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

func main() {
	out := flag.String("o", "stdexport.zip", "output archive")
	allow := flag.String("allow", "allow.go", "Go file declaring DefaultAllow and Optional")
	runtimeDir := flag.String("runtime", "../../fs/gen/runtime/mcp", "directory of the tree's runtime package, whose imports are added")
	flag.Parse()
	if err := run(*out, *allow, *runtimeDir); err != nil {
		fmt.Fprintln(os.Stderr, "mkstd:", err)
		os.Exit(1)
	}
}

func run(out, allowFile, runtimeDir string) error {
	pkgs, err := allowList(allowFile)
	if err != nil {
		return err
	}
	more, err := imports(runtimeDir)
	if err != nil {
		return err
	}
	pkgs = append(pkgs, more...)
	slices.Sort(pkgs)
	pkgs = slices.Compact(pkgs)

	args := append([]string{"list", "-export", "-f", "{{.ImportPath}}\t{{.Export}}"}, pkgs...)
	cmd := osexec.Command("go", args...)
	cmd.Stderr = os.Stderr
	list, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list -export: %w", err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	for _, line := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		path, file, ok := strings.Cut(line, "\t")
		if !ok || file == "" {
			return fmt.Errorf("go list gave no export data for %q", path)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("read export data of %q: %w", path, err)
		}
		// No modification time: the archive is deterministic.
		w, err := zw.CreateHeader(&zip.FileHeader{Name: path, Method: zip.Deflate})
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// allowList returns the strings of the DefaultAllow and Optional composite
// literals in file.
func allowList(file string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		return nil, err
	}
	var pkgs []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || (vs.Names[0].Name != "DefaultAllow" && vs.Names[0].Name != "Optional") || len(vs.Values) != 1 {
			return true
		}
		lit, ok := vs.Values[0].(*ast.CompositeLit)
		if !ok {
			return true
		}
		for _, e := range lit.Elts {
			if bl, ok := e.(*ast.BasicLit); ok {
				if s, err := strconv.Unquote(bl.Value); err == nil {
					pkgs = append(pkgs, s)
				}
			}
		}
		return false
	})
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("%s: no DefaultAllow list found", file)
	}
	return pkgs, nil
}

// imports returns the standard imports of the non-test Go files in dir.
func imports(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if !strings.Contains(strings.Split(p, "/")[0], ".") && !strings.HasPrefix(p, "mcpfs/") {
				pkgs = append(pkgs, p)
			}
		}
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("%s: no runtime package sources found", dir)
	}
	return pkgs, nil
}
