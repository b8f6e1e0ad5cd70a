package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpfs/mcpfs/skills"
)

// TestSkillRunSnippet runs a saved skill's entry point the way mcpfs
// serve offers it as a tool: skills.RunSnippet, checked and run like any
// snippet, then skills.DecodeRunOutput.
func TestSkillRunSnippet(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("MCPFS_CONFIG", "")
	t.Setenv("MCP_SERVERS_CONFIG", "")
	t.Chdir(home)
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "examples", "skills", "errorrate")
	data := t.TempDir()

	var out bytes.Buffer
	if code := Main([]string{"--data-dir", data, "skills", "add", dir}, strings.NewReader(""), &out, &out); code != exitOK {
		t.Fatalf("skills add: exit %d\n%s", code, out.String())
	}
	store, err := skills.Open(filepath.Join(data, "skills"), skills.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sk, ok := store.Get("errorrate")
	if !ok || !sk.HasRun() {
		t.Fatalf("errorrate: saved %v, has Run %v", ok, sk.HasRun())
	}
	var schema struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(sk.Run.InputSchema, &schema); err != nil || schema.Properties["column"] == nil || strings.Join(schema.Required, ",") != "column" {
		t.Errorf("input schema %s (%v)", sk.Run.InputSchema, err)
	}

	tests := []struct {
		args    string
		wantErr string
	}{
		{`{"column": "region", "top": 2}`, ""},
		{`{"column": "planet"}`, `the access log has no column "planet"`},
	}
	for _, tt := range tests {
		src, err := skills.RunSnippet(sk, json.RawMessage(tt.args))
		if err != nil {
			t.Fatal(err)
		}
		snippet := filepath.Join(t.TempDir(), "run.go")
		os.WriteFile(snippet, src, 0o644)
		var stdout, stderr bytes.Buffer
		if code := Main([]string{"--data-dir", data, "run", snippet}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("run %s: exit %d\n%s\nsnippet:\n%s", tt.args, code, stderr.String(), src)
		}
		res, err := skills.DecodeRunOutput(stdout.Bytes())
		if err != nil {
			t.Fatalf("%s: %v\n%s", tt.args, err, stdout.String())
		}
		if res.Err != tt.wantErr && !strings.Contains(res.Err, tt.wantErr) || (tt.wantErr == "") != (res.Err == "") {
			t.Errorf("%s: error %q, want %q", tt.args, res.Err, tt.wantErr)
		}
		if tt.wantErr == "" {
			var rates []struct {
				Key      string  `json:"key"`
				Requests int     `json:"requests"`
				Rate     float64 `json:"rate"`
			}
			if err := json.Unmarshal(res.Result, &rates); err != nil || len(rates) != 2 || rates[0].Requests == 0 || rates[0].Rate < rates[1].Rate {
				t.Errorf("%s: result %s (%v)", tt.args, res.Result, err)
			}
		}
	}
}
