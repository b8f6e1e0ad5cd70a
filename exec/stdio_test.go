package exec

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcpfs/mcpfs/exec/check"
)

// stdioTree is a tree with nothing but the runtime package.
var stdioTree = fstest.MapFS{"mcp/mcp.go": &fstest.MapFile{Data: []byte("package mcp\n")}}

// runStdio checks and runs src on r, streaming its output to stdout and
// stderr when they are not nil.
func runStdio(t *testing.T, r *Runner, src string, stdout, stderr *lines) *Result {
	t.Helper()
	prog, err := check.Check("snippet.go", []byte(src), stdioTree, check.Options{})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	req := Request{Source: prog.Source, Tree: stdioTree}
	if stdout != nil {
		req.Stdout = stdout
	}
	if stderr != nil {
		req.Stderr = stderr
	}
	res, err := r.Run(context.Background(), req)
	if err != nil {
		t.Fatalf("run: %v\nstdout: %s\nstderr: %s", err, res.Stdout, res.Stderr)
	}
	return res
}

// TestOSWriters: os.Stdout and os.Stderr write to the run's own stdout
// and stderr, in order with fmt.Print's output, through a tabwriter, a
// json.Encoder and a template as well, streamed as they are written; %T
// of a writer holding one says *os.File, as in Go.
func TestOSWriters(t *testing.T) {
	if raceEnabled {
		t.Skip("-race: snippets run in the worker without the race detector (test.sh runs it)")
	}
	r := newRunner(t, Options{})
	src := `package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
)

func main() {
	fmt.Println("one")
	fmt.Fprintln(os.Stdout, "two")
	fmt.Fprintln(os.Stderr, "warn 1")
	fmt.Print("three ")
	os.Stdout.WriteString("four\n")
	fmt.Printf("%d\n", 5)
	fmt.Fprintf(os.Stdout, "%d\n", 6)
	fmt.Fprintln(os.Stderr, "warn 2")

	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tN")
	fmt.Fprintln(tw, "alpha\t10")
	fmt.Println("before the flush")
	tw.Flush()

	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	enc.Encode(map[string]int{"b": 2, "a": 1})
	var w io.Writer = os.Stderr
	io.WriteString(w, "warn 3\n")
	fmt.Printf("%T\n", w)
	fmt.Println("end")
}
`
	var out, errs lines
	res := runStdio(t, r, src, &out, &errs)
	wantOut := "one\ntwo\nthree four\n5\n6\nbefore the flush\nNAME   N\nalpha  10\n{\n \"a\": 1,\n \"b\": 2\n}\n*os.File\nend\n"
	if string(res.Stdout) != wantOut {
		t.Errorf("stdout:\n%s\nwant:\n%s", res.Stdout, wantOut)
	}
	if want := "warn 1\nwarn 2\nwarn 3\n"; string(res.Stderr) != want {
		t.Errorf("stderr: %q, want %q", res.Stderr, want)
	}
	if got := out.text.String(); got != wantOut {
		t.Errorf("streamed stdout %q, want %q", got, wantOut)
	}
	if got := errs.text.String(); got != "warn 1\nwarn 2\nwarn 3\n" {
		t.Errorf("streamed stderr %q", got)
	}
}

// TestOSWriterLimit: output written to os.Stdout is cut at MaxOutput as
// fmt.Print's is, counted together with it.
func TestOSWriterLimit(t *testing.T) {
	if raceEnabled {
		t.Skip("-race: snippets run in the worker without the race detector (test.sh runs it)")
	}
	r := newRunner(t, Options{MaxOutput: 64})
	for _, print := range []string{`fmt.Print(strings.Repeat("y", 60))`, `fmt.Fprint(os.Stdout, strings.Repeat("y", 60))`} {
		src := "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"strings\"\n)\n\nfunc main() {\n\tfmt.Fprint(os.Stdout, strings.Repeat(\"x\", 40))\n\t" + print + "\n\t_ = os.Stderr\n}\n"
		res := runStdio(t, r, src, nil, nil)
		want := strings.Repeat("x", 40) + strings.Repeat("y", 24)
		if !strings.HasPrefix(string(res.Stdout), want) || !strings.Contains(string(res.Stdout), "stdout truncated: 64 of 100 bytes shown") {
			t.Errorf("%s: stdout %q, want %q then the truncation note", print, res.Stdout, want)
		}
	}
}
