// Package testenv finds the real MCP servers and clients that the
// integration tests run. They are npm packages at pinned versions
// (testenv/package.json), installed by the README's test command into the
// git-ignored testenv/node_modules. A test that needs one and does not find it
// is skipped with a message saying how to install it.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the absolute path of the testenv folder.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Bin returns the path of an installed npm executable (for example
// "mcp-server-everything"), skipping the test when it or node is missing.
func Bin(t testing.TB, name string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("skipping: node is not installed (needed to run %s)", name)
	}
	p := filepath.Join(Dir(), "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("skipping: %s is not installed; run ./test.sh once, or: npm ci --prefix %s", name, Dir())
	}
	return p
}
