package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/exec"
)

// socketEnv keeps config look-up away from the real home: with no config
// file anywhere, the built-in docstore default is used.
func socketEnv(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	t.Setenv("MCPFS_CONFIG", "")
	t.Setenv("MCP_SERVERS_CONFIG", "")
}

// startSocketEngine starts an engine of the default config with its
// socket in dataDir, as mount and serve do.
func startSocketEngine(t *testing.T, dataDir string) (*engine, *socketServer) {
	t.Helper()
	logs := &lockedBuffer{}
	g := &globals{dataDir: dataDir, connectTimeout: 20 * time.Second,
		stdin: strings.NewReader(""), stdout: io.Discard, stderr: logs}
	g.log = newLogger(logs, 2)
	cfg, err := g.loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	e := startEngine(context.Background(), g, cfg, engineOptions{})
	t.Cleanup(e.Close)
	path, ok, err := g.engineSocketPath()
	if err != nil || !ok {
		t.Fatalf("engine socket path: %q %v %v", path, ok, err)
	}
	s, err := listenEngineSocket(context.Background(), e, path, g.log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return e, s
}

const socketSnippet = `package main

import (
	"fmt"

	"mcpfs/servers/docstore"
)

func main() {
	list, err := docstore.ListDocuments(docstore.ListDocumentsArgs{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(list.Documents), "documents")
}
`

// TestSocketRun runs snippets with `mcpfs run` while an engine of the
// same data dir and config is running: they go through its socket, with
// the output, check problems and run errors a local run gives, and
// --no-engine or another config starts servers instead.
func TestSocketRun(t *testing.T) {
	socketEnv(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	_, srv := startSocketEngine(t, data)

	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok.go", socketSnippet)
	bad := write("bad.go", strings.Replace(socketSnippet, "ListDocuments(", "ListDocument(", 1))
	panics := write("panic.go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"before\")\n\tvar m map[string]int\n\tm[\"x\"] = 1\n}\n")
	hello := write("hello.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n")
	other := write("other.json", `{"mcpServers": {"one": {"command": "nosuch-mcpfs-test-server"}}}`)
	engineLine := fmt.Sprintf("using the running engine (pid %d)", os.Getpid())

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr []string
		viaEngine  bool
	}{
		{name: "ok", args: []string{"--data-dir", data, "-v", "run", ok},
			wantStdout: "5 documents\n", wantStderr: []string{engineLine, "run finished", "tool_calls=1"}, viaEngine: true},
		{name: "check problem", args: []string{"--data-dir", data, "run", bad}, wantCode: exitFailed,
			wantStderr: []string{"bad.go:10:24: ", "ListDocument", "bad.go did not pass the check (1 problem): fix it and run again"}, viaEngine: true},
		{name: "panic", args: []string{"--data-dir", data, "run", panics}, wantCode: exitFailed,
			wantStdout: "before\n", wantStderr: []string{"mcpfs: the snippet panicked: assignment to entry in nil map", "whose body starts at panic.go:"}, viaEngine: true},
		{name: "no engine", args: []string{"--data-dir", data, "-v", "run", "--no-engine", ok},
			wantStdout: "5 documents\n", wantStderr: []string{"run finished"}},
		{name: "other config", args: []string{"--data-dir", data, "--config", other, "-v", "run", hello},
			wantStdout: "hello\n", wantStderr: []string{"starting servers: the running engine (pid", "uses another config (the built-in default)"}},
		{name: "strict", args: []string{"--data-dir", data, "-v", "run", "--sandbox", "strict", hello},
			wantStderr: []string{"does not run with --sandbox=strict"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := srv.Runs()
			var stdout, stderr bytes.Buffer
			code := Main(tt.args, strings.NewReader(""), &stdout, &stderr)
			if tt.name == "strict" {
				// Whether strict runs depends on the kernel; only where it
				// ran matters here.
				code, tt.wantCode, tt.wantStdout = 0, 0, stdout.String()
			}
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.wantCode, stderr.String())
			}
			if stdout.String() != tt.wantStdout {
				t.Errorf("stdout %q, want %q", stdout.String(), tt.wantStdout)
			}
			for _, w := range tt.wantStderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr does not contain %q:\n%s", w, stderr.String())
				}
			}
			if via := srv.Runs() > before; via != tt.viaEngine {
				t.Errorf("ran through the engine: %v, want %v; stderr:\n%s", via, tt.viaEngine, stderr.String())
			}
			if !tt.viaEngine && strings.Contains(stderr.String(), engineLine) {
				t.Errorf("stderr says it used the engine:\n%s", stderr.String())
			}
		})
	}
}

// TestSocketRunErrorKind checks that a run error keeps its kind across
// the socket.
func TestSocketRunErrorKind(t *testing.T) {
	tests := []struct {
		resp socketResponse
		kind error
		text string
	}{
		{socketResponse{RunKind: exec.ErrTimeout.Error(), RunMsg: "after 1s"}, exec.ErrTimeout, "the snippet ran out of time: after 1s"},
		{socketResponse{RunKind: "a kind from a newer mcpfs", RunMsg: "m"}, nil, "a kind from a newer mcpfs: m"},
		{socketResponse{Error: "run x.go: the runner is closed"}, nil, "run x.go: the runner is closed"},
		{socketResponse{}, nil, ""},
	}
	for _, tt := range tests {
		err := (&engineRun{resp: tt.resp}).err()
		if tt.text == "" {
			if err != nil {
				t.Errorf("%+v: got %v, want no error", tt.resp, err)
			}
			continue
		}
		if err == nil || err.Error() != tt.text {
			t.Errorf("%+v: got %v, want %q", tt.resp, err, tt.text)
		}
		if tt.kind != nil && !errors.Is(err, tt.kind) {
			t.Errorf("%+v: %v does not match %v", tt.resp, err, tt.kind)
		}
	}
}

// TestSocketFile checks the socket file: mode 0600, a stale one left by a
// killed engine replaced, a live one left alone, an unsafe folder refused,
// and the file removed on Close.
func TestSocketFile(t *testing.T) {
	socketEnv(t)
	dir := t.TempDir()
	path := filepath.Join(dir, engineSocketName)

	// A stale socket: bound, then its listener gone without removing it.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("the stale socket file should exist: %v", err)
	}
	// mcpfs run does not use it: it starts its own servers.
	var stdout, stderr bytes.Buffer
	hello := filepath.Join(dir, "hello.go")
	if err := os.WriteFile(hello, []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := Main([]string{"--data-dir", dir, "-v", "run", hello}, strings.NewReader(""), &stdout, &stderr); code != 0 || stdout.String() != "hello\n" {
		t.Fatalf("run with a stale socket: exit %d, stdout %q, stderr:\n%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "starting servers: no engine is running") {
		t.Errorf("stderr does not say why servers were started:\n%s", stderr.String())
	}

	s, err := listenEngineSocket(context.Background(), nil, path, nil)
	if err != nil {
		t.Fatalf("listen over a stale socket: %v", err)
	}
	info, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Type() != os.ModeSocket || info.Mode().Perm() != 0o600 {
		t.Errorf("socket file mode %v, want a socket with mode 0600", info.Mode())
	}
	if !socketAlive(path) {
		t.Errorf("the new socket does not accept connections")
	}
	if _, err := listenEngineSocket(context.Background(), nil, path, nil); !errors.Is(err, errEngineRunning) {
		t.Errorf("a second engine on a live socket: got %v, want %v", err, errEngineRunning)
	}
	if entries, _ := filepath.Glob(filepath.Join(dir, ".engine-sock-*")); len(entries) > 0 {
		t.Errorf("private bind folders left behind: %v", entries)
	}
	s.Close()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket file after Close: %v, want it removed", err)
	}

	// A folder others can write in is refused.
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := listenEngineSocket(context.Background(), nil, filepath.Join(open, engineSocketName), nil); err == nil || !strings.Contains(err.Error(), "can be written by other users") {
		t.Errorf("listen in a folder others can write: got %v, want a refusal", err)
	}
	// A path too long for a unix socket is refused with a hint.
	long := filepath.Join(dir, strings.Repeat("d", 120), engineSocketName)
	if _, err := listenEngineSocket(context.Background(), nil, long, nil); err == nil || !strings.Contains(err.Error(), "shorter --data-dir") {
		t.Errorf("listen at a too long path: got %v, want a refusal", err)
	}
}

// TestSocketRunInterrupted interrupts `mcpfs run` during a run on the
// engine: the engine cancels the run, and run says it was interrupted.
func TestSocketRunInterrupted(t *testing.T) {
	socketEnv(t)
	data := filepath.Join(t.TempDir(), "data")
	_, srv := startSocketEngine(t, data)
	g := &globals{dataDir: data, connectTimeout: 20 * time.Second, stdout: io.Discard, stderr: io.Discard}
	g.log = newLogger(io.Discard, 0)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		used bool
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		_, used, err := g.runOnEngine(ctx, "loop.go", []byte("package main\n\nfunc main() {\n\tfor {\n\t}\n}\n"), time.Minute, false, nil)
		done <- outcome{used, err}
	}()
	waitUntil(t, "the engine to start the run", func() bool { return srv.Runs() == 1 })
	cancel()
	got := <-done
	if !got.used || got.err == nil || !strings.Contains(got.err.Error(), "interrupted") {
		t.Errorf("got used=%v err=%v, want an interrupted run on the engine", got.used, got.err)
	}
	waitUntil(t, "the engine to end the run", func() bool { return len(srv.sem) == 0 })
}

// waitUntil polls cond until it holds, failing after a generous deadline.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: gave up", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
