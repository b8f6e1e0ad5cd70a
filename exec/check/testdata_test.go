package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/mcpfs/mcpfs/exec/internal/shim"
)

// TestPrograms checks and runs each program under testdata. A program ends
// in a comment block: `// Output:` followed by the stdout it must print
// when its rewritten source runs in yaegi (and, for programs that import
// no tree package, when the original runs with `go run`), or `// Error:`
// followed by text that Check's error must contain.
func TestPrograms(t *testing.T) {
	files, err := filepath.Glob("testdata/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no programs in testdata: %v", err)
	}
	tree := docstoreTree(t)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".go"), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			kind, want := expectation(t, src)
			prog, err := Check("snippet.go", src, tree, Options{})
			if kind == "Error" {
				if err == nil {
					t.Fatalf("Check succeeded, want an error containing:\n%s\nsource:\n%s", want, prog.Source)
				}
				if !strings.Contains(err.Error(), want) {
					t.Fatalf("got error:\n%v\nwant one containing:\n%s", err, want)
				}
				var el ErrorList
				if !errors.As(err, &el) || len(el) == 0 {
					t.Fatalf("got %T, want an ErrorList", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if err := typeCheckRewrite(prog.Source, tree); err != nil {
				t.Fatalf("the rewrite is not valid Go: %v\n%s", err, numbered(prog.Source))
			}
			if raceEnabled && bytes.Contains(src, []byte("go func")) {
				// test.sh runs this package without -race too, where it runs.
				t.Logf("not interpreted under -race: yaegi's own goroutine closures race (interp/run.go); checked and compared with go run only")
			} else {
				got, err := runYaegi(t, tree, prog.Source)
				if err != nil {
					t.Fatalf("yaegi: %v\noutput so far:\n%s\nrewritten source:\n%s", err, got, numbered(prog.Source))
				}
				if trimLines(got) != want {
					t.Errorf("yaegi printed:\n%s\nwant:\n%s\nrewritten source:\n%s", got, want, numbered(prog.Source))
				}
			}
			if len(prog.TreePackages) > 0 {
				return
			}
			goOut, err := goRun(t, src)
			if err != nil {
				t.Fatalf("go run of the original: %v\n%s", err, goOut)
			}
			if trimLines(goOut) != want {
				t.Errorf("go run printed:\n%s\nwant:\n%s", goOut, want)
			}
		})
	}
}

// expectation returns "Output" or "Error" and the expected text of the
// program's final comment block.
func expectation(t *testing.T, src []byte) (kind, text string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(string(src), "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "// Output:" || l == "// Error:" {
			var out []string
			for _, e := range lines[i+1:] {
				e = strings.TrimPrefix(strings.TrimPrefix(e, "//"), " ")
				out = append(out, e)
			}
			text = strings.Join(out, "\n")
			if l == "// Output:" {
				return "Output", text + "\n"
			}
			return "Error", text
		}
		if !strings.HasPrefix(l, "//") {
			break
		}
	}
	t.Fatal("the program ends in no // Output: or // Error: block")
	return "", ""
}

// trimLines drops the spaces at the ends of lines, which gofmt removes
// from the expected output in comments.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}

func numbered(src []byte) string {
	var b strings.Builder
	for i, l := range strings.Split(string(src), "\n") {
		fmt.Fprintf(&b, "%3d  %s\n", i+1, l)
	}
	return b.String()
}

var (
	srcOnce sync.Once
	srcFS   fstest.MapFS
)

// runYaegi runs src in a fresh interpreter that imports the tree's
// packages as the worker does: from src/mcpfs/... of a file system.
func runYaegi(t *testing.T, tree iofs.FS, src []byte) (out string, err error) {
	t.Helper()
	srcOnce.Do(func() {
		srcFS = fstest.MapFS{}
		err := iofs.WalkDir(tree, ".", func(p string, d iofs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p == "run" || p == "skills" {
				return iofs.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, ".go") {
				data, err := iofs.ReadFile(tree, p)
				if err != nil {
					return err
				}
				srcFS["src/mcpfs/"+p] = &fstest.MapFile{Data: data}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("copy the tree: %v", err)
		}
	})
	var stdout, stderr bytes.Buffer
	defer func() {
		if r := recover(); r != nil {
			out, err = stdout.String(), fmt.Errorf("interpreter panic: %v", r)
		}
	}()
	i := interp.New(interp.Options{GoPath: ".", SourcecodeFilesystem: srcFS, Stdout: &stdout, Stderr: &stderr})
	if err := i.Use(stdlib.Symbols); err != nil {
		return "", err
	}
	if err := i.Use(shim.Symbols); err != nil {
		return "", err
	}
	if err := i.Use(shim.OSSymbols(&stdout, &stderr)); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = i.EvalWithContext(ctx, string(src))
	if err != nil {
		return stdout.String(), fmt.Errorf("%w\nstderr: %s", err, stderr.String())
	}
	return stdout.String(), nil
}

// goRun runs the original program with the Go toolchain, to prove the
// rewrite keeps its meaning. It skips when there is no toolchain.
func goRun(t *testing.T, src []byte) (string, error) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: not comparing with go run")
	}
	goBin, err := osexec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain in PATH: not comparing with go run")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module snippet\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := osexec.Command(goBin, "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stderr.String(), err
	}
	return stdout.String(), nil
}
