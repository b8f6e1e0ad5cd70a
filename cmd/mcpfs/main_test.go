package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpfs/mcpfs/testenv"
)

func TestMain(m *testing.M) {
	testscript.Main(noMountsLeft{m}, map[string]func(){
		"mcpfs": func() {
			os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// noMountsLeft runs the tests with every temp dir under a folder of their
// own and fails the run if an mcpfs mount is left there, unmounting it.
type noMountsLeft struct{ m *testing.M }

func (n noMountsLeft) Run() int {
	base, err := os.MkdirTemp("", "mcpfs-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "temp dir:", err)
		return 1
	}
	os.Setenv("TMPDIR", base)
	// Tests run mcpfs in process; the resident engine's own tests run the
	// real binary without this.
	os.Setenv(noEngineEnv, "1")
	code := n.m.Run()
	info, _ := os.ReadFile("/proc/self/mountinfo")
	var left []string
	for _, line := range strings.Split(string(info), "\n") {
		// id parent major:minor root point options... - fstype source ...
		fields := strings.Fields(line)
		if len(fields) < 5 || !strings.HasPrefix(fields[4], base+"/") || !strings.Contains(line, " - fuse.mcpfs ") {
			continue
		}
		left = append(left, fields[4])
	}
	if len(left) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: tests left mcpfs mounts behind: %s\n", strings.Join(left, ", "))
		for i := len(left) - 1; i >= 0; i-- { // servers/ before its parent
			_ = syscall.Unmount(left[i], syscall.MNT_DETACH)
		}
		code = 1
	}
	os.RemoveAll(base)
	return code
}

// TestScripts runs the end-to-end scripts in testdata/script: each one a
// txtar archive of files and mcpfs commands, the way cmd/go tests itself.
func TestScripts(t *testing.T) {
	bin := filepath.Join(testenv.Dir(), "node_modules", ".bin")
	_, npmErr := os.Stat(filepath.Join(bin, "mcp-server-everything"))
	_, nodeErr := exec.LookPath("node")
	haveNPM := npmErr == nil && nodeErr == nil && os.Getenv(testenv.IntegrationEnv) != ""
	if !haveNPM {
		t.Logf("scripts that need the npm test servers will skip: run ./test.sh once, or npm ci --prefix %s", testenv.Dir())
	}
	goEnv := map[string]string{}
	if out, err := exec.Command("go", "env", "GOCACHE", "GOPATH", "GOROOT").Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) == 3 {
			goEnv["GOCACHE"], goEnv["GOPATH"], goEnv["GOROOT"] = lines[0], lines[1], lines[2]
		}
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("TESTENV", bin)
			// Keep the default data dir (the cache) inside the script's
			// work dir, never in a real home.
			env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, ".cache"))
			env.Setenv("XDG_DATA_HOME", filepath.Join(env.WorkDir, ".local", "share"))
			for k, v := range goEnv {
				env.Setenv(k, v)
			}
			env.Setenv("GOTOOLCHAIN", "local")
			env.Setenv(noEngineEnv, "1") // in process; resident_test.go runs the engine
			env.Setenv("GOFLAGS", "-mod=mod")
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "npm":
				return haveNPM, nil
			}
			return false, nil
		},
		RequireExplicitExec: true,
	})
}
