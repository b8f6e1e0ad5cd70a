package discovery

import (
	"context"
	"encoding/json"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/testenv"
)

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// runHTTPServer starts the npm server-everything in mode (streamableHttp or
// sse) on a free port, waits until it accepts connections, and stops it
// when the test ends. It returns the port.
func runHTTPServer(t *testing.T, bin, mode string) int {
	t.Helper()
	port := freePort(t)
	cmd := osexec.Command(bin, mode)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s %s: %v", bin, mode, err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for end := time.Now().Add(15 * time.Second); ; time.Sleep(25 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return port
		}
		if time.Now().After(end) {
			t.Fatalf("%s %s did not listen on %s within 15s: %v", bin, mode, addr, err)
		}
	}
}

// TestNPMServers connects to the reference servers from npm over stdio,
// streamable HTTP and SSE at once, and calls a tool on each.
func TestNPMServers(t *testing.T) {
	everything := testenv.Bin(t, "mcp-server-everything")
	filesystem := testenv.Bin(t, "mcp-server-filesystem")
	memory := testenv.Bin(t, "mcp-server-memory")
	noLeaks(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello from the test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	httpPort := runHTTPServer(t, everything, "streamableHttp")
	ssePort := runHTTPServer(t, everything, "sse")

	servers := []ServerConfig{
		{Name: "everything", Transport: "stdio", Command: everything, Args: []string{"stdio"}},
		{Name: "filesystem", Transport: "stdio", Command: filesystem, Args: []string{dir}},
		{Name: "memory", Transport: "stdio", Command: memory, Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}},
		{Name: "everythinghttp", Transport: "http", URL: "http://127.0.0.1:" + strconv.Itoa(httpPort) + "/mcp"},
		{Name: "everythingsse", Transport: "sse", URL: "http://127.0.0.1:" + strconv.Itoa(ssePort) + "/sse"},
	}
	began := time.Now()
	s, h := startSupervisor(t, Options{}, servers...)
	c := settle(t, s)
	t.Logf("all %d servers settled in %v (each one's time is in its \"server ready\" line)", len(servers), time.Since(began))

	for _, sc := range servers {
		ss := mustServer(t, c, sc.Name, StateReady)
		if len(ss.Tools) == 0 {
			t.Errorf("%s: no tools", sc.Name)
		}
		withInput, withOutput := 0, 0
		for _, tool := range ss.Tools {
			var keys map[string]json.RawMessage
			if err := json.Unmarshal(tool.Raw, &keys); err != nil {
				t.Fatalf("%s/%s: raw tool is not an object: %v", sc.Name, tool.Name, err)
			}
			if _, ok := keys["inputSchema"]; ok {
				withInput++
			}
			if _, ok := keys["outputSchema"]; ok {
				withOutput++
			}
		}
		t.Logf("%s: %s %s over %s, protocol %s, %d tools (%d with inputSchema, %d with outputSchema)",
			sc.Name, ss.ServerName, ss.ServerVersion, sc.Transport, ss.ProtocolVersion, len(ss.Tools), withInput, withOutput)
		if withInput != len(ss.Tools) {
			t.Errorf("%s: %d of %d tools have inputSchema, want all", sc.Name, withInput, len(ss.Tools))
		}
		if (sc.Name == "filesystem" || sc.Name == "memory") && withOutput != len(ss.Tools) {
			t.Errorf("%s: %d of %d tools have outputSchema, want all", sc.Name, withOutput, len(ss.Tools))
		}
	}
	if !h.has("server stderr", "server=filesystem") {
		t.Error("filesystem's stderr was not logged")
	}

	ctx := context.Background()
	call := func(server, tool, args string) string {
		t.Helper()
		res, err := s.CallTool(ctx, server, tool, json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s/%s: %v", server, tool, err)
		}
		if strings.Contains(string(res), `"isError":true`) {
			t.Fatalf("%s/%s: tool error: %s", server, tool, res)
		}
		return string(res)
	}
	for _, server := range []string{"everything", "everythinghttp", "everythingsse"} {
		if res := call(server, "echo", `{"message":"round trip"}`); !strings.Contains(res, "round trip") {
			t.Errorf("%s echo: got %s", server, res)
		}
	}
	if res := call("filesystem", "read_text_file", `{"path":`+strconv.Quote(filepath.Join(dir, "hello.txt"))+`}`); !strings.Contains(res, "hello from the test") {
		t.Errorf("read_text_file: got %s", res)
	}
	call("memory", "create_entities", `{"entities":[{"name":"mcpfs","entityType":"project","observations":["lists tools as Go"]}]}`)
	if res := call("memory", "read_graph", `{}`); !strings.Contains(res, "lists tools as Go") || !strings.Contains(res, "structuredContent") {
		t.Errorf("read_graph: got %s, want the entity and structuredContent", res)
	}
}
