package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

const listSnippet = `package main

import (
	"fmt"

	"mcpfs/servers/docstore"
)

func main() {
	list, err := docstore.ListDocuments(docstore.ListDocumentsArgs{})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(len(list.Documents), "documents")
}
`

func TestTools(t *testing.T) {
	_, _, c := newTestServer(t, Options{MaxOutput: 64})
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		want    []string // regexps the text must match
		notWant string   // a regexp it must not match
		isError bool
	}{
		{name: "exec ok", tool: ToolExec, args: map[string]any{"code": listSnippet},
			want: []string{`(?m)^5 documents$`, `\[ok, 1 tool call: docstore\.list_documents; took `}},
		{name: "exec check error", tool: ToolExec, args: map[string]any{"code": "package main\n\nfunc main() {\n\tundefinedThing()\n}\n"},
			want: []string{`\[error\] snippet\.go:4:2: undefined: undefinedThing`, `\[failed, 0 tool calls`}, isError: true},
		{name: "exec panic", tool: ToolExec, args: map[string]any{"code": "package main\n\nfunc main() {\n\tpanic(\"boom\")\n}\n"},
			want: []string{`\[error\] the snippet panicked: snippet\.go:4: boom`}, isError: true},
		{name: "exec long output", tool: ToolExec, args: map[string]any{"code": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfor i := 0; i < 100; i++ {\n\t\tfmt.Println(\"line\", i)\n\t}\n}\n"},
			want: []string{`^line 0\n`, `\[stdout cut: \d+ of 790 bytes shown; the rest: read_file path="[^"]+/run-[^"]+\.stdout" offset=\d+\]`}, notWant: `line 99`},
		{name: "exec empty", tool: ToolExec, args: map[string]any{"code": " "}, want: []string{`"code" is empty`}, isError: true},
		{name: "exec timeout string", tool: ToolExec, args: map[string]any{"code": listSnippet, "timeout": "5"}, want: []string{`5 documents`}},
		{name: "exec timeout too long", tool: ToolExec, args: map[string]any{"code": listSnippet, "timeout": 100000}, want: []string{`over the limit`}, isError: true},
		{name: "exec code not string", tool: ToolExec, args: map[string]any{"code": 3}, want: []string{`argument "code": want a string, got a number`}, isError: true},
		{name: "search summary", tool: ToolSearch, args: map[string]any{"query": "count words"},
			want: []string{`^docstore\.WordCount — Count the lines, words`}},
		{name: "search names", tool: ToolSearch, args: map[string]any{"query": "csv rows", "detail": "names", "limit": 1},
			want: []string{`^docstore\.QueryRows\n\[1 of \d+ matches shown`}},
		{name: "search signature", tool: ToolSearch, args: map[string]any{"query": "read document", "detail": "signature", "limit": 1},
			want:    []string{`// docstore\.ReadDocument \(servers/docstore/read_document\.go\)`, `func ReadDocument\(args ReadDocumentArgs\) \(out ReadDocumentResult, err error\)\n`, `type ReadDocumentArgs struct`},
			notWant: `mcp\.Call\(`},
		{name: "search nothing", tool: ToolSearch, args: map[string]any{"query": "zebra"}, want: []string{`Nothing matches "zebra" among 6 tools`}},
		{name: "search bad detail", tool: ToolSearch, args: map[string]any{"query": "x", "detail": "all"}, want: []string{`detail must be names, summary or signature`}, isError: true},
		{name: "search bad limit", tool: ToolSearch, args: map[string]any{"query": "x", "limit": 500}, want: []string{`limit must be between 1 and 50`}, isError: true},
		{name: "list root", tool: ToolListDir, args: map[string]any{}, want: []string{`(?m)^README\.md +\d+ bytes$`, `(?m)^servers/$`}},
		{name: "list servers", tool: ToolListDir, args: map[string]any{"path": "/servers/"}, want: []string{`(?m)^docstore/ +ready, 6 tools$`}},
		{name: "list missing", tool: ToolListDir, args: map[string]any{"path": "servers/nope"}, want: []string{`servers/nope: no such file or folder \(list_dir "servers" shows what exists\)`}, isError: true},
		{name: "list a file", tool: ToolListDir, args: map[string]any{"path": "README.md"}, want: []string{`README\.md is a file: use read_file`}, isError: true},
		{name: "read doc", tool: ToolReadFile, args: map[string]any{"path": "servers/docstore/doc.go"}, want: []string{`(?m)^package docstore$`}},
		{name: "read range", tool: ToolReadFile, args: map[string]any{"path": "servers/docstore/doc.go", "offset": 2, "limit": 1},
			want: []string{`^// Package docstore is`, `\[servers/docstore/doc\.go continues: read_file path="servers/docstore/doc\.go" offset=3\]`}},
		{name: "read past end", tool: ToolReadFile, args: map[string]any{"path": "go.mod", "offset": 1000}, want: []string{`offset 1000 is past the end`}},
		{name: "read a folder", tool: ToolReadFile, args: map[string]any{"path": "servers"}, want: []string{`servers is a folder: use list_dir`}, isError: true},
		{name: "read outside", tool: ToolReadFile, args: map[string]any{"path": "/etc/passwd"}, want: []string{`no such file or folder`}, isError: true},
		{name: "read dotdot", tool: ToolReadFile, args: map[string]any{"path": "../../etc/passwd"}, want: []string{`no such file or folder`}, isError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, text := call(t, c, tt.tool, tt.args)
			if res.IsError != tt.isError {
				t.Errorf("isError: got %v, want %v; text:\n%s", res.IsError, tt.isError, text)
			}
			for _, w := range tt.want {
				if !regexp.MustCompile(w).MatchString(text) {
					t.Errorf("text does not match %q:\n%s", w, text)
				}
			}
			if tt.notWant != "" && regexp.MustCompile(tt.notWant).MatchString(text) {
				t.Errorf("text matches %q, it should not:\n%s", tt.notWant, text)
			}
		})
	}
}

// TestExecOutput checks the structured result and that a cut output is
// saved whole and readable with read_file, while nothing else in the
// output folder is.
func TestExecOutput(t *testing.T) {
	dir := t.TempDir()
	_, _, c := newTestServer(t, Options{MaxOutput: 100, OutputDir: dir})
	code := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfor i := 0; i < 50; i++ {\n\t\tfmt.Println(\"line\", i)\n\t}\n}\n"
	res, text := call(t, c, ToolExec, map[string]any{"code": code})
	if res.StructuredContent != nil {
		t.Errorf("exec declares no output schema, yet its result has structured content: %v", res.StructuredContent)
	}
	m := regexp.MustCompile(`(?s)^(.*)\[stdout cut: (\d+) of 390 bytes shown; the rest: read_file path="([^"]+)" offset=(\d+)\]\n\[ok, `).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("got %q, want a head, a note that 390 bytes were cut with the file that keeps them, and ok", text)
	}
	head := m[1]
	next, _ := strconv.Atoi(m[4])
	out := struct {
		StdoutFile     string
		StdoutNextLine int
	}{m[3], next}
	if len(head) > 100 || !strings.HasSuffix(head, "\n") || m[2] != strconv.Itoa(len(head)) {
		t.Fatalf("head %q: want at most 100 bytes ending in a newline, and the note to give its size", head)
	}
	if filepath.Dir(out.StdoutFile) != dir {
		t.Errorf("saved in %s, want %s", out.StdoutFile, dir)
	}
	_, rest := call(t, c, ToolReadFile, map[string]any{"path": out.StdoutFile, "offset": out.StdoutNextLine, "limit": 2})
	wantRest := "line " + itoa(out.StdoutNextLine) + "\nline " + itoa(out.StdoutNextLine+1) + "\n"
	if !strings.HasPrefix(rest, wantRest) || !strings.Contains(rest, "continues: read_file") {
		t.Errorf("read_file of the rest: got %q, want it to start with %q and say it continues", rest, wantRest)
	}

	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "run-link.stdout")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{secret, filepath.Join(dir, "run-link.stdout"), filepath.Join(dir, "run-missing.stdout")} {
		res, text := call(t, c, ToolReadFile, map[string]any{"path": p})
		if !res.IsError || strings.Contains(text, "root:") {
			t.Errorf("read_file %s: got %q (isError %v), want a refusal", p, text, res.IsError)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestResourcesAndCompletion(t *testing.T) {
	_, _, c := newTestServer(t, Options{})
	ctx := context.Background()
	rr := mcp.ReadResourceRequest{}
	rr.Params.URI = ResourcePrefix + "servers/docstore/doc.go"
	res, err := c.ReadResource(ctx, rr)
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := res.Contents[0].(mcp.TextResourceContents); !ok || !strings.Contains(tc.Text, "package docstore") || tc.MIMEType != "text/x-go" {
		t.Errorf("got %+v, want the doc.go text as text/x-go", res.Contents[0])
	}
	rr.Params.URI = ResourcePrefix + "nope.go"
	if _, err := c.ReadResource(ctx, rr); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing resource: got %v, want no such file", err)
	}

	cr := mcp.CompleteRequest{}
	cr.Params.Ref = mcp.ResourceReference{Type: "ref/resource", URI: ResourcePrefix + "{+path}"}
	cr.Params.Argument.Name = "path"
	cr.Params.Argument.Value = "servers/do"
	comp, err := c.Complete(ctx, cr)
	if err != nil {
		t.Fatal(err)
	}
	if got := comp.Completion.Values; len(got) != 1 || got[0] != "servers/docstore/" {
		t.Errorf("completion: got %q, want [servers/docstore/]", got)
	}
}
