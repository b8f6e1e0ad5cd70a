package discovery

import (
	"os"
	osexec "os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/testenv"
)

// TestHTTPServerGone stops a ready streamable-HTTP server (the npm
// server-everything) without a word: the pings notice, the server is
// published failed with its tools kept as stale, and once it listens again
// it comes back ready without help.
func TestHTTPServerGone(t *testing.T) {
	everything := testenv.Bin(t, "mcp-server-everything")
	port := freePort(t)
	start := func() *osexec.Cmd {
		cmd := osexec.Command(everything, "streamableHttp")
		cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatalf("start server-everything: %v", err)
		}
		return cmd
	}
	stop := func(cmd *osexec.Cmd) {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	}
	cmd := start()
	t.Cleanup(func() { stop(cmd) })

	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	s, _ := startSupervisor(t, Options{PingInterval: 100 * time.Millisecond, ConnectTimeout: 15 * time.Second, RestartMinDelay: 200 * time.Millisecond, RestartMaxDelay: 500 * time.Millisecond},
		ServerConfig{Name: "remote", Transport: "http", URL: url})
	c := waitForCatalog(t, s, "remote ready", func(c *Catalog) bool {
		ss, _ := c.Server("remote")
		return ss.State == StateReady
	})
	ss, _ := c.Server("remote")
	tools := len(ss.Tools)

	stop(cmd)
	c = waitForCatalog(t, s, "remote failed after it stopped answering", func(c *Catalog) bool {
		ss, _ := c.Server("remote")
		return ss.State == StateFailed
	})
	ss, _ = c.Server("remote")
	if !ss.Stale || len(ss.Tools) != tools {
		t.Errorf("failed server: stale=%v with %d tools, want its %d tools kept as stale", ss.Stale, len(ss.Tools), tools)
	}
	if !strings.Contains(ss.Err, "stopped answering") && !strings.Contains(ss.Err, "connection refused") {
		t.Errorf("failed server's error = %q, want it to say it stopped answering", ss.Err)
	}
	t.Logf("after the server stopped: %s", ss.Err)

	cmd = start()
	waitForCatalog(t, s, "remote ready again", func(c *Catalog) bool {
		ss, _ := c.Server("remote")
		return ss.State == StateReady && !ss.Stale
	})
}
