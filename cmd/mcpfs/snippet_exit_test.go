package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// exitSnippetSrc calls a tool of SERVER, prints, then ends with
// mcp.Exit(CODE): the deferred print and the line after the call must not
// run.
const exitSnippetSrc = `package main

import (
	"fmt"

	"mcpfs/mcp"
	"mcpfs/servers/SERVER"
)

func main() {
	defer fmt.Println("deferred")
	l, err := SERVER.ListDocuments(SERVER.ListDocumentsArgs{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(l.Documents), "documents")
	mcp.Exit(CODE)
	fmt.Println("after Exit")
}
`

func exitSource(server, code string) string {
	return strings.NewReplacer("SERVER", server, "CODE", code).Replace(exitSnippetSrc)
}

func checkExitOutput(t *testing.T, stdout string) {
	t.Helper()
	if strings.Contains(stdout, "after Exit") || strings.Contains(stdout, "deferred") {
		t.Errorf("stdout: got %q: the snippet ran on after mcp.Exit", stdout)
	}
}

// TestSnippetExit: mcp.Exit(code) ends `mcpfs run` with the snippet's
// code and nothing more on stderr; Exit(0) is a success; --json reports
// the code too.
func TestSnippetExit(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	write := func(name, code string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(exitSource("docstore", code)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
	}{
		{"code 42", []string{"run", write("exit42.go", "42")}, 42, "5 documents\n"},
		{"code 0", []string{"run", write("exit0.go", "0")}, 0, "5 documents\n"},
		{"json", []string{"run", "--json", write("exit9.go", "9")}, 9, `"exit_code": 9`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"--data-dir", data, "--config", "builtin"}, tt.args...), strings.NewReader(""), &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit code: got %d, want %d (stderr: %s)", code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantOut) {
				t.Errorf("stdout: got %q, want it to contain %q", stdout.String(), tt.wantOut)
			}
			checkExitOutput(t, stdout.String())
			if stderr.Len() > 0 {
				t.Errorf("stderr: got %q, want nothing", stderr.String())
			}
		})
	}
}

// TestResidentSnippetExit: the real binary on the resident engine passes
// a snippet's mcp.Exit code from the worker through the engine to its own
// exit status, after a tool call to a server in its own process.
func TestResidentSnippetExit(t *testing.T) {
	r := newResidentEnv(t, docstoreStdio)
	for _, code := range []int{0, 3, 42} {
		out, stderr, got := r.run(exitSource("docs", strconv.Itoa(code)), "run", "-")
		if got != code {
			t.Errorf("mcp.Exit(%d): exit %d, stderr %s", code, got, stderr)
		}
		if out != "5 documents\n" {
			t.Errorf("mcp.Exit(%d): stdout %q, want %q", code, out, "5 documents\n")
		}
		checkExitOutput(t, out)
		if stderr != "" {
			t.Errorf("mcp.Exit(%d): stderr %q, want nothing", code, stderr)
		}
	}
}
