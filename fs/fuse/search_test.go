package fuse

import (
	"errors"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSearchDir reads search/<query> of a real mount from another process:
// each name is answered with what Search gives for its words, README.md
// explains the folder, and nothing can be written.
func TestSearchDir(t *testing.T) {
	skipWithoutFuse(t)
	dir := t.TempDir()
	m, err := Mount(dir, tree(server("docs", "read_document")), Options{Search: func(q string) []byte {
		return []byte("hits for " + q + "\n")
	}})
	if err != nil {
		if errors.Is(err, syscall.EPERM) {
			t.Skipf("cannot mount FUSE here: %v", err)
		}
		t.Fatal(err)
	}
	defer func() { m.Unmount(); m.Wait() }()

	cat := func(p string) (string, error) {
		c := osexec.Command("cat", filepath.Join(dir, p))
		c.Dir = "/"
		out, err := c.Output()
		return string(out), err
	}
	for _, tt := range []struct{ name, want string }{
		{"search/save text to a file", "hits for save text to a file\n"},
		{"search/list-open_pull+requests", "hits for list open pull requests\n"},
	} {
		got, err := cat(tt.name)
		if err != nil || got != tt.want {
			t.Errorf("cat %s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	if got, err := cat("search/README.md"); err != nil || !strings.Contains(got, "best first") {
		t.Errorf("search/README.md: %q, %v", got, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range entries {
		found = found || (e.Name() == SearchDir && e.IsDir())
	}
	if !found {
		t.Errorf("the mount's root does not list search/: %v", entries)
	}
	if err := os.WriteFile(filepath.Join(dir, "search", "x"), []byte("y"), 0o644); err == nil {
		t.Errorf("writing in search/ succeeded")
	}
}
