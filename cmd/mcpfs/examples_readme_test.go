package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpfs/mcpfs/testenv"
)

// TestExamplesREADME runs the command lines of examples/README.md as they
// are written, from the repository's root, through the real binary on a
// resident engine, in a fresh home: what a new user pastes into a shell.
// Two stand-ins keep it offline and pinned: `npx -y pkg@version` runs
// testenv's copy of that package (and fails if testenv pins another
// version), and the README's database URL becomes a fresh database on the
// PostgreSQL that test.sh starts.
func TestExamplesREADME(t *testing.T) {
	r := newResidentEnv(t, "")
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	lines := readmeCommands(t, filepath.Join(root, "examples", "README.md"))
	if len(lines) < 4 {
		t.Fatalf("examples/README.md: found %d command lines in its sh block, want the examples' commands", len(lines))
	}

	bin := t.TempDir()
	if err := os.Symlink(r.bin, filepath.Join(bin, "mcpfs")); err != nil {
		t.Fatal(err)
	}
	_, nodeErr := osexec.LookPath("node")
	modules := filepath.Join(testenv.Dir(), "node_modules")
	_, npmErr := os.Stat(filepath.Join(modules, "@modelcontextprotocol", "server-filesystem"))
	npx := nodeErr == nil && npmErr == nil
	if npx {
		writeNpxStandIn(t, filepath.Join(bin, "npx"), modules)
	}
	pgURL, pgWhy := readmeDatabase(t, bin)

	env := append([]string(nil), r.env...)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + bin + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}

	const readmeURL = "postgresql://localhost/shop"
	for i, line := range lines {
		t.Run(fmt.Sprintf("%d", i+1), func(t *testing.T) {
			switch {
			case strings.Contains(line, "npx") || strings.Contains(line, "configs/researcher.json"):
				if !npx {
					t.Skip("needs node and the pinned servers in testenv/node_modules (run ./test.sh): " + line)
				}
			case strings.Contains(line, readmeURL):
				if pgURL == "" {
					t.Skip(pgWhy + ": " + line)
				}
				line = strings.ReplaceAll(line, readmeURL, pgURL)
			}
			c := osexec.Command("sh", "-c", line)
			c.Dir, c.Env = root, env
			var stdout, stderr bytes.Buffer
			c.Stdout, c.Stderr = &stdout, &stderr
			if err := c.Run(); err != nil {
				t.Fatalf("%s\n%v\nstdout:\n%s\nstderr:\n%s", line, err, stdout.String(), stderr.String())
			}
			if strings.Contains(line, " run examples/") && strings.TrimSpace(stdout.String()) == "" {
				t.Errorf("%s printed nothing; stderr:\n%s", line, stderr.String())
			}
			t.Logf("%s\n%s", line, stdout.String())
		})
	}
}

// readmeCommands returns the lines of the first sh code block of a README.
func readmeCommands(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case !in && line == "```sh":
			in = true
		case in && line == "```":
			return lines
		case in && line != "" && !strings.HasPrefix(line, "#"):
			lines = append(lines, line)
		}
	}
	t.Fatalf("%s: no ```sh block", path)
	return nil
}

// writeNpxStandIn writes an npx that runs a package pinned in testenv
// instead of fetching it, and refuses any other version.
func writeNpxStandIn(t *testing.T, path, modules string) {
	t.Helper()
	script := `#!/bin/sh
[ "$1" = "-y" ] && shift
pkg="$1"; shift
name="${pkg%@*}"; want="${pkg##*@}"
dir="` + modules + `/$name"
[ -f "$dir/package.json" ] || { echo "npx stand-in: $name is not pinned in testenv/package.json" >&2; exit 1; }
have=$(node -p "require('$dir/package.json').version")
[ "$have" = "$want" ] || { echo "npx stand-in: $name@$want wanted, testenv pins $have" >&2; exit 1; }
main=$(node -p "const b = require('$dir/package.json').bin; typeof b == 'string' ? b : Object.values(b)[0]")
exec node "$dir/$main" "$@"
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// readmeDatabase creates a database for the analyst lines on test.sh's
// PostgreSQL and puts psql on the PATH in bin. It returns the database's
// URL, or "" and why not.
func readmeDatabase(t *testing.T, bin string) (string, string) {
	t.Helper()
	base := os.Getenv(postgresEnv)
	if base == "" {
		return "", "needs PostgreSQL ($" + postgresEnv + ", set by ./test.sh)"
	}
	psql, err := osexec.LookPath("psql")
	if err != nil {
		found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/psql")
		if len(found) == 0 {
			return "", "needs psql on the PATH"
		}
		psql = found[len(found)-1]
		if err := os.Symlink(psql, filepath.Join(bin, "psql")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(testenv.Dir(), "node_modules", "@modelcontextprotocol", "server-postgres")); err != nil {
		return "", "needs @modelcontextprotocol/server-postgres in testenv/node_modules (run ./test.sh)"
	}
	name := fmt.Sprintf("mcpfs_readme_%d", os.Getpid())
	if out, err := osexec.Command(psql, base, "-q", "-c", "CREATE DATABASE "+name).CombinedOutput(); err != nil {
		t.Fatalf("create database %s: %v\n%s", name, err, out)
	}
	t.Cleanup(func() {
		osexec.Command(psql, base, "-q", "-c", "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)").Run()
	})
	return base[:strings.LastIndex(base, "/")+1] + name, ""
}
