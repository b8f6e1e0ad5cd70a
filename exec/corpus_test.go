package exec

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/mcpfs/mcpfs/exec/check"
	"github.com/mcpfs/mcpfs/fs/gen"
)

var updateCorpus = flag.Bool("update", false, "record the corpus outputs (testdata/corpus/*.txtar) from go run")

// corpusProgram is one program of the differential corpus: its source and
// what real Go printed for it (stdout, then "panic: <message>" when it
// panicked).
type corpusProgram struct {
	file, name string
	src        []byte
	want       []byte
}

// Outcomes of a corpus program on the snippet path.
const (
	outcomePass    = "pass"    // printed exactly what Go printed
	outcomeRefused = "refused" // the check refused it with a message
	outcomeFailed  = "failed"  // the run failed loudly where Go did not
	outcomeSilent  = "silent"  // ran and printed something else: never allowed
)

// TestCorpus runs every program of testdata/corpus through the snippet
// path (exec/check, then the sandboxed worker) and compares what it
// printed, byte for byte, with what real Go printed (recorded in the
// txtar next to the program by -update, which runs go run on each). A
// silent difference fails the test; refusals and loud failures are
// counted, and the pass rate must stay at or above the figure in
// docs/BENCHMARKS.md.
func TestCorpus(t *testing.T) {
	if raceEnabled {
		t.Skip("-race: the corpus runs in the worker without the race detector (test.sh runs it)")
	}
	progs := loadCorpus(t)
	if *updateCorpus {
		recordCorpus(t, progs)
	}
	r := newRunner(t, Options{Timeout: 20 * time.Second, PoolSize: 2})
	tree := fstest.MapFS{"mcp/mcp.go": &fstest.MapFile{Data: []byte("package mcp\n")}}

	type result struct {
		outcome, detail string
	}
	results := make([]result, len(progs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, p := range progs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			outcome, detail := runCorpusProgram(r, tree, p)
			results[i] = result{outcome, detail}
		}()
	}
	wg.Wait()

	counts := map[string]int{}
	perFile := map[string][2]int{} // file → pass, total
	for i, p := range progs {
		res := results[i]
		counts[res.outcome]++
		pf := perFile[p.file]
		pf[1]++
		if res.outcome == outcomePass {
			pf[0]++
		}
		perFile[p.file] = pf
		switch res.outcome {
		case outcomeSilent:
			t.Errorf("%s/%s: SILENT difference:\n%s", p.file, p.name, res.detail)
		case outcomeRefused, outcomeFailed:
			t.Logf("%s/%s: %s:\n%s", p.file, p.name, res.outcome, res.detail)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(perFile)) {
		t.Logf("%-22s %3d/%3d pass", f, perFile[f][0], perFile[f][1])
	}
	pass := counts[outcomePass]
	rate := 100 * float64(pass) / float64(len(progs))
	t.Logf("corpus: %d programs: %d pass (%.1f%%), %d refused by the check, %d failed loudly, %d silent differences",
		len(progs), pass, rate, counts[outcomeRefused], counts[outcomeFailed], counts[outcomeSilent])
	if len(progs) < 300 {
		t.Errorf("the corpus has %d programs, want at least 300", len(progs))
	}
	if rate < corpusMinPassRate {
		t.Errorf("pass rate %.1f%%, want at least %.1f%%", rate, corpusMinPassRate)
	}
}

// corpusMinPassRate is the pass rate the corpus must keep (percent): the
// figure in docs/BENCHMARKS.md. The fifth natural round's programs
// (round5.txtar, written before they were run) brought it from 98.4% to
// 96.2% (96.3% with the probes written while fixing it). Fixing its loud
// failures and refusals in the interpreter fork (interp_fixes.txtar), named
// types in interfaces, generic results declared with var and value error
// types found in errors (iface_identity*.txtar, generic_var_results.txtar)
// brought it back up: what is left is listed there. The sixth round
// (round6.txtar, sixty programs written before they were run) left it at
// 97.6% after its silent differences and three of its loud failures and
// refusals were fixed (round6_probes.txtar): the figure in
// docs/BENCHMARKS.md is to be measured again with it. The ninth round
// (round9.txtar, sixty-eight programs written before they were run) took
// it from 98.6% to 96.2%; fixing its silent difference, its loud failures
// and five of its refusals (round9_probes.txtar, with neighbours and two
// programs the check now refuses: template data of map[string]any
// holding values whose methods the template would use, and a generic
// type's value with a String method printed from an any) left it at
// 97.6%: what is left of round9 is refused by design (os, io/fs and
// math/big imports, wrong fmt verbs, a break that ends a switch inside a
// loop). Letting snippets write to os.Stdout and os.Stderr took it to
// 98.2%: five programs refused only for those now pass, and three more
// are refused for the methods their templates call, which the refused
// import of os used to hide.
const corpusMinPassRate = 97.5

// runCorpusProgram checks and runs p and classifies the result.
func runCorpusProgram(r *Runner, tree fstest.MapFS, p corpusProgram) (outcome, detail string) {
	prog, err := check.Check("snippet.go", p.src, tree, check.Options{})
	if err != nil {
		var el check.ErrorList
		if !errors.As(err, &el) {
			return outcomeFailed, "check: " + err.Error()
		}
		return outcomeRefused, err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := r.Run(ctx, Request{Source: prog.Source, Tree: tree, Packages: prog.TreePackages, Files: prog.Files})
	var got []byte
	if res != nil {
		got = append(got, res.Stdout...)
	}
	wantPanic := ""
	if i := bytes.LastIndex(p.want, []byte("panic: ")); i >= 0 && (i == 0 || p.want[i-1] == '\n') && bytes.HasSuffix(p.want, []byte("\n")) && !bytes.Contains(p.want[i:len(p.want)-1], []byte("\n")) {
		wantPanic = string(p.want[i+len("panic: ") : len(p.want)-1])
	}
	wantOut := p.want
	if wantPanic != "" {
		wantOut = p.want[:len(p.want)-len("panic: ")-len(wantPanic)-1]
	}
	var re *RunError
	switch {
	case err == nil && wantPanic == "":
		if bytes.Equal(got, wantOut) {
			return outcomePass, ""
		}
		return outcomeSilent, diffText(got, wantOut, prog.Source)
	case err == nil:
		return outcomeSilent, fmt.Sprintf("Go panicked with %q, the snippet ran to the end\n%s", wantPanic, diffText(got, wantOut, prog.Source))
	case errors.As(err, &re) && re.Kind == ErrPanic && wantPanic != "":
		if !bytes.Equal(got, wantOut) {
			return outcomeSilent, diffText(got, wantOut, prog.Source)
		}
		if re.Msg == wantPanic || strings.HasPrefix(re.Msg, wantPanic+" (") || strings.Contains(re.Msg, ": "+wantPanic) {
			return outcomePass, ""
		}
		return outcomeFailed, fmt.Sprintf("panic message %q, Go's is %q", re.Msg, wantPanic)
	default:
		if !bytes.HasPrefix(wantOut, got) {
			// Printed something Go did not print before failing.
			return outcomeSilent, fmt.Sprintf("failed with %v after printing what Go does not\n%s", err, diffText(got, wantOut, prog.Source))
		}
		return outcomeFailed, fmt.Sprintf("%v\nrewritten source:\n%s", err, numberedSource(prog.Source))
	}
}

func diffText(got, want, src []byte) string {
	return fmt.Sprintf("got:\n%s\nwant (go run):\n%s\nrewritten source:\n%s", got, want, numberedSource(src))
}

func numberedSource(src []byte) string {
	var b strings.Builder
	for i, l := range strings.Split(string(src), "\n") {
		fmt.Fprintf(&b, "%3d  %s\n", i+1, l)
	}
	return b.String()
}

// loadCorpus reads testdata/corpus/*.txtar: sections "NAME.go" hold
// programs, "NAME.out" what Go printed.
func loadCorpus(t *testing.T) []corpusProgram {
	t.Helper()
	files, err := filepath.Glob("testdata/corpus/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus under testdata/corpus: %v", err)
	}
	var progs []corpusProgram
	seen := map[string]bool{}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		outs := map[string][]byte{}
		for _, f := range ar.Files {
			if name, ok := strings.CutSuffix(f.Name, ".out"); ok {
				outs[name] = decodeOut(f.Data)
			}
		}
		for _, f := range ar.Files {
			name, ok := strings.CutSuffix(f.Name, ".go")
			if !ok {
				continue
			}
			key := filepath.Base(file) + "/" + name
			if seen[key] {
				t.Fatalf("%s: two programs named %s", file, name)
			}
			seen[key] = true
			want, ok := outs[name]
			if !ok && !*updateCorpus {
				t.Fatalf("%s: %s has no recorded output: run go test ./exec -run TestCorpus -update", file, name)
			}
			progs = append(progs, corpusProgram{file: filepath.Base(file), name: name, src: f.Data, want: want})
		}
	}
	return progs
}

// recordCorpus builds every program with the Go toolchain in one go
// build, runs each, and writes what it printed into the txtar files.
func recordCorpus(t *testing.T, progs []corpusProgram) {
	t.Helper()
	outs := goOutputs(t, progs)
	byFile := map[string]map[string][]byte{}
	for i, p := range progs {
		if byFile[p.file] == nil {
			byFile[p.file] = map[string][]byte{}
		}
		byFile[p.file][p.name] = outs[i]
		progs[i].want = outs[i]
	}
	for file, out := range byFile {
		path := filepath.Join("testdata/corpus", file)
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var files []txtar.File
		for _, f := range ar.Files {
			if strings.HasSuffix(f.Name, ".out") {
				continue
			}
			files = append(files, f)
			if name, ok := strings.CutSuffix(f.Name, ".go"); ok {
				files = append(files, txtar.File{Name: name + ".out", Data: encodeOut(out[name])})
			}
		}
		ar.Files = files
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// noNewline ends a recorded output that does not end in a newline (a
// txtar file's sections always do).
const noNewline = "\\ no newline at end of output\n"

func encodeOut(b []byte) []byte {
	if len(b) == 0 || bytes.HasSuffix(b, []byte("\n")) {
		return b
	}
	return append(append(append([]byte(nil), b...), '\n'), noNewline...)
}

func decodeOut(b []byte) []byte {
	if s, ok := bytes.CutSuffix(b, []byte("\n"+noNewline)); ok {
		return s
	}
	return b
}

var goPanic = regexp.MustCompile(`(?m)^panic: (.*?)(?: \[recovered.*\])?$`)

// goOutputs builds and runs progs with the Go toolchain: stdout, then
// "panic: <message>" when a program panicked.
func goOutputs(t *testing.T, progs []corpusProgram) [][]byte {
	t.Helper()
	goBin, err := osexec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain: cannot record the corpus")
	}
	dir := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module corpus\n\ngo 1.26\n"), 0o644))
	pkgs := make([]string, len(progs))
	for i, p := range progs {
		pkgs[i] = fmt.Sprintf("p%03d", i)
		must(os.MkdirAll(filepath.Join(dir, pkgs[i]), 0o755))
		must(os.WriteFile(filepath.Join(dir, pkgs[i], "main.go"), p.src, 0o644))
	}
	bin := filepath.Join(dir, "bin")
	must(os.MkdirAll(bin, 0o755))
	cmd := osexec.Command(goBin, append([]string{"build", "-o", bin + "/"}, prefixed("./", pkgs)...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of the corpus: %v\n%s", err, out)
	}
	outs := make([][]byte, len(progs))
	for i := range progs {
		var stdout, stderr bytes.Buffer
		cmd := osexec.Command(filepath.Join(bin, pkgs[i]))
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Env = []string{"TZ=UTC"}
		err := cmd.Run()
		out := stdout.Bytes()
		if err != nil {
			m := goPanic.FindSubmatch(stderr.Bytes())
			if m == nil {
				t.Fatalf("%s/%s: %v\n%s", progs[i].file, progs[i].name, err, stderr.Bytes())
			}
			out = append(out, "panic: "+string(m[1])+"\n"...)
		}
		outs[i] = out
	}
	return outs
}

func prefixed(prefix string, s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = prefix + x
	}
	sort.Strings(out)
	return out
}

// TestGoModVersion: the tree's go.mod states the language version the
// check accepts, so that go vet and gopls in an exported tree accept what
// mcpfs runs.
func TestGoModVersion(t *testing.T) {
	want := "go " + strings.TrimPrefix(check.GoVersion, "go") + "\n"
	if !strings.Contains(gen.GoMod, "\n"+want) {
		t.Errorf("fs/gen.GoMod is %q, want a line %q (check.GoVersion)", gen.GoMod, want)
	}
}

// TestGoroutinePanicShort: a panic that ends a goroutine is reported like
// any other, at the snippet's line, without the Go runtime's traceback of
// the interpreter in stderr.
func TestGoroutinePanicShort(t *testing.T) {
	if raceEnabled {
		t.Skip("-race: goroutine programs run without the race detector (test.sh)")
	}
	r := newRunner(t, Options{})
	tree := fstest.MapFS{"mcp/mcp.go": &fstest.MapFile{Data: []byte("package mcp\n")}}
	src := "package main\n\nimport (\n\t\"fmt\"\n\t\"time\"\n)\n\nfunc main() {\n\tgo func() {\n\t\tpanic(\"boom\")\n\t}()\n\ttime.Sleep(5 * time.Second)\n\tfmt.Println(\"late\")\n}\n"
	prog, err := check.Check("snippet.go", []byte(src), tree, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), Request{Source: prog.Source, Tree: tree})
	if err == nil || !strings.Contains(err.Error(), "in a goroutine: snippet.go:10: boom") {
		t.Errorf("got error %v, want one containing %q", err, "in a goroutine: snippet.go:10: boom")
	}
	if res != nil && (bytes.Contains(res.Stderr, []byte("goroutine ")) || len(res.Stderr) > 200) {
		t.Errorf("stderr has the runtime's traceback (%d bytes):\n%s", len(res.Stderr), res.Stderr)
	}
}
