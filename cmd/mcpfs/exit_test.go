package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitCodes checks the exit status and message of commands that fail:
// before anything starts (2), and each way a snippet fails (the README's
// table).
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	marker := filepath.Join(dir, "started")
	// A config that is invalid in its second server: the first one, which
	// would create the marker file, must never start.
	badArgs := write("bad.json", `{"mcpServers": {
  "a": {"command": "sh", "args": ["-c", "touch `+marker+`"]},
  "b": {"command": "x", "args": "not-an-array"}
}}`)
	truncated := write("truncated.json", `{"mcpServers": {"a": {"command": "x"`)
	typo := write("typo.go", "package main\n\nimport \"mcpfs/servers/docstore\"\n\nfunc main() { docstore.ListDocument(docstore.ListDocumentsArgs{}) }\n")
	panics := write("panic.go", "package main\n\nfunc main() {\n\tvar m map[string]int\n\tm[\"x\"] = 1\n}\n")
	loop := write("loop.go", "package main\n\nfunc main() {\n\tfor {\n\t}\n}\n")
	down := write("down.json", `{"mcpServers": {"gone": {"command": "/nonexistent/mcp-server"}}}`)
	imports := write("imports.go", "package main\n\nimport \"mcpfs/servers/gone\"\n\nfunc main() { gone.Anything() }\n")
	data := filepath.Join(dir, "data")

	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"bad config", []string{"--config", badArgs, "ls"}, exitUsage, "mcpServers.b.args: want an array of strings, got a string"},
		{"truncated config", []string{"--config", truncated, "ls"}, exitUsage, "truncated.json:1:"},
		{"missing config", []string{"--config", filepath.Join(dir, "nope.json"), "ls"}, exitUsage, "nope.json"},
		{"config is a folder", []string{"--config", dir, "ls"}, exitUsage, dir},
		{"unknown flag", []string{"ls", "--nosuch"}, exitUsage, "unknown flag: --nosuch"},
		{"bad timeout", []string{"--connect-timeout", "-1s", "ls"}, exitUsage, "--connect-timeout must be positive"},
		{"unknown builtin", []string{"builtin", "nosuch"}, exitUsage, "built-in servers: docstore"},
		{"version", []string{"version"}, exitOK, ""},
		{"--version", []string{"--version"}, exitOK, ""},
		{"check failed", []string{"--data-dir", data, "run", typo}, exitCheck, "did not pass the check"},
		{"panic", []string{"--data-dir", data, "run", panics}, exitSnippet, "panicked"},
		{"timeout", []string{"--data-dir", data, "run", "--timeout", "1s", loop}, exitTimeout, "ran out of time"},
		{"server down", []string{"--data-dir", data, "--config", down, "run", imports}, exitServer, "servers/gone: failed: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit code: got %d, want %d (stderr: %s)", code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr: got %q, want it to contain %q", stderr.String(), tt.wantErr)
			}
		})
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a server was started although the config was invalid")
	}
}
