package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// liveServerEnv, set to a folder, makes this test binary a stdio MCP server
// (see runLiveServer) instead of running tests. The mount tests name the
// binary in their config with this variable in the server's env.
const liveServerEnv = "MCPFS_TEST_LIVE_SERVER"

func init() {
	if dir := os.Getenv(liveServerEnv); dir != "" {
		os.Exit(runLiveServer(dir))
	}
}

// runLiveServer serves MCP on stdin and stdout with one tool, greet. It
// writes its pid to dir/pid, and adds a tool, extra (which sends
// notifications/tools/list_changed), once the file dir/add exists.
func runLiveServer(dir string) int {
	tmp := filepath.Join(dir, "pid."+strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "live server: write pid:", err)
		return 2
	}
	if err := os.Rename(tmp, filepath.Join(dir, "pid")); err != nil {
		fmt.Fprintln(os.Stderr, "live server: write pid:", err)
		return 2
	}
	s := server.NewMCPServer("live", "1.0.0", server.WithToolCapabilities(true))
	text := func(s string) server.ToolHandlerFunc {
		return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(s), nil
		}
	}
	s.AddTool(mcp.NewTool("greet", mcp.WithDescription("Greets someone."), mcp.WithString("name")), text("hello"))
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(dir, "add")); err == nil {
				s.AddTool(mcp.NewTool("extra", mcp.WithDescription("Added while running.")), text("extra"))
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, "live server:", err)
		return 1
	}
	return 0
}

// livePID returns the pid the live server serving dir last wrote, 0 if none.
func livePID(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, "pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(string(b))
	return pid
}

// alive reports whether a process with pid exists (a zombie counts).
func alive(pid int) bool {
	return pid > 0 && !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// TestMountLive runs `mcpfs mount DIR` with two stdio servers and checks,
// through the kernel, that the tree follows them: a tool one of them adds
// while running appears, and when one is killed the mount stays usable, its
// doc.go says it failed, its tool files stay, the other server is left
// alone, and it is ready again after the restart.
func TestMountLive(t *testing.T) {
	home := mountHome(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatalf("find the test binary: %v", err)
	}

	liveDir, otherDir := t.TempDir(), t.TempDir()
	// Whatever happens, no server process outlives the test.
	t.Cleanup(func() {
		for _, d := range []string{liveDir, otherDir} {
			if pid := livePID(d); alive(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	servers := map[string]any{}
	for name, d := range map[string]string{"live": liveDir, "other": otherDir} {
		servers[name] = map[string]any{
			"command": self,
			"args":    []string{"-test.run=^$"},
			"env":     map[string]string{liveServerEnv: d},
		}
	}
	cfg, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(home, "servers.json")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}

	m := startMount(t, "--config", cfgPath, "--data-dir", filepath.Join(home, "data"))
	dir, waitFor := m.dir, m.waitFor

	serverDir := func(name string) string { return filepath.Join(dir, "servers", name) }
	doc := func(name string) string {
		b, err := os.ReadFile(filepath.Join(serverDir(name), "doc.go"))
		if err != nil {
			return "read error: " + err.Error()
		}
		return string(b)
	}
	// files lists a server's folder through the kernel.
	files := func(name string) []string {
		ents, err := os.ReadDir(serverDir(name))
		if err != nil {
			return []string{"read error: " + err.Error()}
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return names
	}
	// ready says what keeps server name from being ready with want files.
	ready := func(name string, want ...string) func() string {
		return func() string {
			if d := doc(name); !strings.Contains(d, "State: ready") || strings.Contains(d, "Listing: not live") {
				return fmt.Sprintf("servers/%s/doc.go is not ready and live:\n%s", name, d)
			}
			got := files(name)
			for _, w := range want {
				if !slices.Contains(got, w) {
					return fmt.Sprintf("servers/%s has %v, want %s in it", name, got, w)
				}
			}
			return ""
		}
	}
	waitFor(t, "both servers ready", func() string {
		if s := ready("live", "doc.go", "greet.go")(); s != "" {
			return s
		}
		return ready("other", "doc.go", "greet.go")()
	})
	livePID0, otherPID := livePID(liveDir), livePID(otherDir)
	if !alive(livePID0) || !alive(otherPID) {
		t.Fatalf("server pids %d (live) and %d (other): want both running", livePID0, otherPID)
	}

	t.Run("list_changed", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(liveDir, "add"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "servers/live/extra.go appears after list_changed", ready("live", "greet.go", "extra.go"))
		if d := doc("live"); !strings.Contains(d, "Tools: 2") {
			t.Errorf("servers/live/doc.go after the change: want \"Tools: 2\":\n%s", d)
		}
		src, err := os.ReadFile(filepath.Join(serverDir("live"), "extra.go"))
		if err != nil || !bytes.Contains(src, []byte("package live")) || !bytes.Contains(src, []byte("Added while running.")) {
			t.Errorf("servers/live/extra.go: %v\n%s", err, src)
		}
		if pid := livePID(liveDir); pid != livePID0 {
			t.Errorf("live server pid changed from %d to %d: the change came by a restart, not by list_changed", livePID0, pid)
		}
		if got := files("other"); slices.Contains(got, "extra.go") {
			t.Errorf("servers/other has %v: the other server gained live's tool", got)
		}
	})

	t.Run("killed", func(t *testing.T) {
		if err := syscall.Kill(livePID0, syscall.SIGKILL); err != nil {
			t.Fatalf("kill live server %d: %v", livePID0, err)
		}
		// Failed, then connecting again with the failure kept in doc.go,
		// until the restart after the 0.5 s backoff: either shows the kill.
		var downDoc string
		waitFor(t, "servers/live/doc.go says the server failed", func() string {
			d := doc("live")
			if strings.Contains(d, "State: failed") || strings.Contains(d, "State: connecting: ") {
				downDoc = d
				return ""
			}
			return "servers/live/doc.go:\n" + d
		})
		t.Logf("servers/live/doc.go after the kill:\n%s", downDoc)
		if !strings.Contains(downDoc, "Listing: not live") || !strings.Contains(downDoc, "Tools: 2") {
			t.Errorf("servers/live/doc.go of the killed server: want a stale listing of 2 tools:\n%s", downDoc)
		}
		if got := files("live"); !slices.Contains(got, "greet.go") || !slices.Contains(got, "extra.go") {
			t.Errorf("servers/live after the kill has %v, want greet.go and extra.go kept", got)
		}
		if src, err := os.ReadFile(filepath.Join(serverDir("live"), "greet.go")); err != nil || !bytes.Contains(src, []byte("package live")) {
			t.Errorf("servers/live/greet.go after the kill: %v\n%s", err, src)
		}
		// The rest of the mount is untouched.
		ents, err := os.ReadDir(filepath.Join(dir, "servers"))
		if err != nil {
			t.Fatalf("ls servers after the kill: %v", err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if !slices.Contains(names, "live") || !slices.Contains(names, "other") {
			t.Errorf("servers/ after the kill has %v, want live and other", names)
		}
		if s := ready("other", "greet.go")(); s != "" {
			t.Errorf("other server after live was killed: %s", s)
		}
		if pid := livePID(otherDir); pid != otherPID || !alive(pid) {
			t.Errorf("other server pid %d (alive %v), want %d still running", pid, alive(pid), otherPID)
		}

		waitFor(t, "the live server restarts and is ready", func() string {
			if pid := livePID(liveDir); pid == livePID0 {
				return "no new live server process yet"
			}
			return ready("live", "greet.go", "extra.go")()
		})
		if alive(livePID0) {
			t.Errorf("killed server %d was not reaped", livePID0)
		}
	})

	livePID1 := livePID(liveDir)
	m.stop()
	for _, pid := range []int{livePID1, otherPID} {
		if alive(pid) {
			t.Errorf("server process %d is still running after the mount ended", pid)
		}
	}
}
