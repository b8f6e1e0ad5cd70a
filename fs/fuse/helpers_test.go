package fuse

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/discovery"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// childEnv makes the test binary a child that mounts a tree at the named
// directory, says "mounted" and waits to be killed (TestStaleMount).
const childEnv = "MCPFS_FUSE_TEST_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		runChild(dir)
		return
	}
	if role := os.Getenv(roleEnv); role != "" {
		os.Exit(runRole(role, os.Getenv(roleDirEnv)))
	}
	// Every temp dir of this run (t.TempDir included) is under a folder of
	// its own, so the check below sees only this package's mounts, never
	// those of another package's tests running at the same time.
	base, err := os.MkdirTemp("", "mcpfs-fuse-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "temp dir:", err)
		os.Exit(1)
	}
	os.Chmod(base, 0o755) // the tests that mount as nobody reach their dirs through it
	os.Setenv("TMPDIR", base)
	code := m.Run()
	if left := tempMounts(base); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: tests left mcpfs mounts behind: %s\n", strings.Join(left, ", "))
		for _, dir := range left {
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
		code = 1
	}
	os.RemoveAll(base)
	os.Exit(code)
}

// tempMounts lists the mcpfs mount points under base.
func tempMounts(base string) []string {
	all, _ := readMountInfo()
	var out []string
	for _, mt := range all {
		if mt.fsType == "fuse.mcpfs" && strings.HasPrefix(mt.point, base+"/") {
			out = append(out, mt.point)
		}
	}
	return out
}

func runChild(dir string) {
	m, err := Mount(dir, mcpfs.New(catalog(server("alpha", "one", "two")), mcpfs.Options{}), Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	fmt.Println("mounted")
	m.Wait()
	os.Exit(0)
}

// testMount mounts t at a fresh temporary directory and unmounts it when
// the test ends. It skips the test when this machine cannot mount FUSE.
func testMount(tb testing.TB, t *mcpfs.Tree) *Mounted {
	tb.Helper()
	skipWithoutFuse(tb)
	dir := tb.TempDir()
	m, err := Mount(dir, t, Options{})
	if err != nil {
		if errors.Is(err, syscall.EPERM) {
			tb.Skipf("cannot mount FUSE here (no CAP_SYS_ADMIN?): %v", err)
		}
		tb.Fatalf("Mount(%s): %v", dir, err)
	}
	tb.Cleanup(func() {
		if err := m.Unmount(); err != nil {
			tb.Errorf("Unmount: %v", err)
		}
		m.Wait()
	})
	return m
}

func skipWithoutFuse(tb testing.TB) {
	tb.Helper()
	if os.Geteuid() != 0 {
		// fusermount3 opens /dev/fuse itself, as root.
		if _, err := os.Stat("/dev/fuse"); err != nil {
			tb.Skipf("FUSE tests skipped: no /dev/fuse: %v", err)
		}
		if fusermount() == "" {
			tb.Skip("FUSE tests skipped: not root and no fusermount3 (apt-get install fuse3)")
		}
		return
	}
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		tb.Skipf("FUSE tests skipped: /dev/fuse is not usable: %v", err)
	}
	f.Close()
}

// server is a ready server snapshot whose tools take one string argument.
func server(name string, tools ...string) discovery.ServerSnapshot {
	s := discovery.ServerSnapshot{
		Name: name, Key: name, Transport: "stdio", State: discovery.StateReady,
		ServerName: name + "-server", ServerVersion: "1.0.0", ProtocolVersion: "2025-06-18",
		Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	}
	for _, tool := range tools {
		s.Tools = append(s.Tools, discovery.Tool{Name: tool, Raw: toolJSON(tool, "Does "+tool+".")})
	}
	return s
}

func toolJSON(name, description string) json.RawMessage {
	raw, err := json.Marshal(map[string]any{
		"name":        name,
		"description": description,
		"inputSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{"query": map[string]any{"type": "string", "description": "What to look for."}},
			"required":   []string{"query"},
		},
	})
	if err != nil {
		panic(err)
	}
	return raw
}

// withDescription returns s with one tool's description replaced.
func withDescription(s discovery.ServerSnapshot, tool, description string) discovery.ServerSnapshot {
	tools := make([]discovery.Tool, len(s.Tools))
	copy(tools, s.Tools)
	for i, t := range tools {
		if t.Name == tool {
			tools[i].Raw = toolJSON(tool, description)
		}
	}
	s.Tools = tools
	return s
}

var catalogVersion uint64

func catalog(servers ...discovery.ServerSnapshot) *discovery.Catalog {
	catalogVersion++
	return &discovery.Catalog{Version: catalogVersion, Servers: servers}
}

func tree(servers ...discovery.ServerSnapshot) *mcpfs.Tree {
	return mcpfs.New(catalog(servers...), mcpfs.Options{})
}

// eventually polls check until it returns nil, failing after a deadline.
func eventually(tb testing.TB, what string, check func() error) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s: still failing after 5s: %v", what, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readLine reads one line from the child's stdout.
func readLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	return strings.TrimSpace(line), err
}

// fixtureServer loads a real server's recorded initialize and tools/list
// from the generator's test inputs.
func fixtureServer(name string) (discovery.ServerSnapshot, error) {
	data, err := os.ReadFile(filepath.Join("..", "gen", "testdata", "input", name+".json"))
	if err != nil {
		return discovery.ServerSnapshot{}, err
	}
	var rec struct {
		Initialize struct {
			ProtocolVersion string `json:"protocolVersion"`
			ServerInfo      struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"serverInfo"`
			Instructions string `json:"instructions"`
		} `json:"initialize"`
		ToolsList struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"tools/list"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return discovery.ServerSnapshot{}, fmt.Errorf("%s: %w", name, err)
	}
	s := server(name)
	s.ServerName = rec.Initialize.ServerInfo.Name
	s.ServerVersion = rec.Initialize.ServerInfo.Version
	s.ProtocolVersion = rec.Initialize.ProtocolVersion
	s.Instructions = rec.Initialize.Instructions
	for _, raw := range rec.ToolsList.Tools {
		var head struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return discovery.ServerSnapshot{}, fmt.Errorf("%s: %w", name, err)
		}
		s.Tools = append(s.Tools, discovery.Tool{Name: head.Name, Raw: raw})
	}
	return s, nil
}

// commandIn runs a command in dir. A process must not start a child with
// its working directory inside a FUSE mount it serves itself: the child's
// chdir runs between fork and exec, its FUSE request can then wait on the
// Go runtime of the parent, which waits for the exec, and both hang. So
// the shell changes directory after exec.
func commandIn(dir string, args ...string) *osexec.Cmd {
	return osexec.Command("/bin/sh", append([]string{"-c", `cd "$0" && exec "$@"`, dir}, args...)...)
}
