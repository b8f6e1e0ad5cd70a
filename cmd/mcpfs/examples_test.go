package main

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpfs/mcpfs/testenv"
)

// postgresEnv names the connection URL of the PostgreSQL that test.sh
// starts for the data-analyst example.
const postgresEnv = "MCPFS_TEST_POSTGRES_URL"

// TestExamples runs the snippets, skills and configs of examples/ against
// real servers: the built-in docstore, the npm servers of testenv, and
// PostgreSQL through @modelcontextprotocol/server-postgres. The scripts in
// testdata/examples copy what they run from $EXAMPLES.
func TestExamples(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	examples := filepath.Join(filepath.Dir(file), "..", "..", "examples")
	bin := filepath.Join(testenv.Dir(), "node_modules", ".bin")
	_, nodeErr := osexec.LookPath("node")
	_, npmErr := os.Stat(filepath.Join(bin, "mcp-server-filesystem"))
	_, pgErr := os.Stat(filepath.Join(bin, "mcp-server-postgres"))
	pgURL := os.Getenv(postgresEnv)
	switch {
	case nodeErr != nil || npmErr != nil:
		t.Logf("examples with npm servers will skip: run ./test.sh once, or npm ci --prefix %s", testenv.Dir())
	case pgErr != nil:
		t.Logf("the data-analyst example will skip: %s is missing; add \"@modelcontextprotocol/server-postgres\": \"0.6.2\" to testenv/package.json and run ./test.sh", filepath.Join(bin, "mcp-server-postgres"))
	case pgURL == "":
		t.Logf("the data-analyst example will skip: $%s is not set (./test.sh starts PostgreSQL and sets it)", postgresEnv)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/examples",
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			env.Setenv("TESTENV", bin)
			env.Setenv("DATABASE_URL", pgURL)
			env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, ".cache"))
			env.Setenv(noEngineEnv, "1") // in process; resident_test.go runs the engine
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "npm":
				return nodeErr == nil && npmErr == nil, nil
			case "postgres":
				return nodeErr == nil && pgErr == nil && pgURL != "", nil
			}
			return false, nil
		},
		RequireExplicitExec: true,
	})
}
