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

// IntegrationEnv, set to 1, runs the slow tests: the ones that start the
// npm servers and clients, build and run the real mcpfs binary, or run
// the benchmark suite. ./test.sh sets it; a plain `go test ./...` leaves
// them out and stays quick.
const IntegrationEnv = "MCPFS_INTEGRATION"

// Integration skips the test, saying why, unless IntegrationEnv is set.
func Integration(t testing.TB) {
	t.Helper()
	if os.Getenv(IntegrationEnv) == "" {
		t.Skipf("skipping a slow integration test: set %s=1 (./test.sh does) to run it", IntegrationEnv)
	}
}

// Dir returns the absolute path of the testenv folder.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Bin returns the path of an installed npm executable (for example
// "mcp-server-everything"), skipping the test when it or node is missing.
func Bin(t testing.TB, name string) string {
	t.Helper()
	Integration(t)
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("skipping: node is not installed (needed to run %s)", name)
	}
	p := filepath.Join(Dir(), "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("skipping: %s is not installed; run ./test.sh once, or: npm ci --prefix %s", name, Dir())
	}
	return p
}

// Node22 returns the path of the pinned node 22 (the npm package "node",
// installed under testenv/node_modules), which clients needing node ≥ 22
// run on; it skips the test when it is missing.
func Node22(t testing.TB) string {
	t.Helper()
	Integration(t)
	p := filepath.Join(Dir(), "node_modules", "node", "bin", "node")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("skipping: node 22 is not installed in testenv; run ./test.sh once, or: npm ci --prefix %s", Dir())
	}
	return p
}

// Module returns the path of a file inside an installed npm package (for
// example "@modelcontextprotocol/conformance/dist/index.js"), skipping the
// test when it is missing.
func Module(t testing.TB, rel string) string {
	t.Helper()
	Integration(t)
	p := filepath.Join(Dir(), "node_modules", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Skipf("skipping: %s is not installed; run ./test.sh once, or: npm ci --prefix %s", rel, Dir())
	}
	return p
}
