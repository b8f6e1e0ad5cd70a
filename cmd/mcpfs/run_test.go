package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadSnippet(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "count.go")
	if err := os.WriteFile(file, []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", maxSnippet+1)
	tests := []struct {
		name      string
		arg       string
		stdin     string
		wantName  string
		wantSrc   string
		wantErr   string
		wantUsage bool
	}{
		{name: "file", arg: file, wantName: "count.go", wantSrc: "package main\n"},
		{name: "stdin", arg: "-", stdin: "package main\n\nfunc main() {}\n", wantName: "snippet.go", wantSrc: "package main\n\nfunc main() {}\n"},
		{name: "missing file", arg: filepath.Join(dir, "nope.go"), wantErr: "no such file", wantUsage: true},
		{name: "too large", arg: "-", stdin: big, wantErr: "over 4 MiB", wantUsage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, src, err := readSnippet(tt.arg, strings.NewReader(tt.stdin))
			if tt.wantErr != "" {
				var ue usageError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || errors.As(err, &ue) != tt.wantUsage {
					t.Fatalf("got %v, want a usage error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if name != tt.wantName || string(src) != tt.wantSrc {
				t.Errorf("got %q %q, want %q %q", name, src, tt.wantName, tt.wantSrc)
			}
		})
	}
}
