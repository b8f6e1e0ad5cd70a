package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/testenv"
)

// The resident engine's tests run the real mcpfs binary, built once, the
// way a user's shell and AI clients do.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// mcpfsBinary builds cmd/mcpfs into a temp dir once per test run.
func mcpfsBinary(t *testing.T) string {
	t.Helper()
	testenv.Integration(t)
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpfs-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "mcpfs")
		out, err := osexec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// residentEnv is a user's world for one test: a home, a private runtime
// folder, a config file and the environment the binary runs with (the
// resident engine on).
type residentEnv struct {
	t      *testing.T
	bin    string
	home   string
	runDir string
	cfg    string
	env    []string
}

func newResidentEnv(t *testing.T, config string) *residentEnv {
	t.Helper()
	home := t.TempDir()
	// A short runtime folder: socket paths are bounded.
	run, err := os.MkdirTemp("/tmp", "mcpfs-rt-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	r := &residentEnv{t: t, bin: mcpfsBinary(t), home: home, runDir: run}
	r.env = []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"),
		"XDG_RUNTIME_DIR=" + run,
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"TMPDIR=" + os.TempDir(),
	}
	if config != "" {
		r.cfg = filepath.Join(home, "servers.json")
		r.writeConfig(config)
		r.env = append(r.env, "MCPFS_CONFIG="+r.cfg)
	}
	t.Cleanup(r.stopEngines)
	return r
}

func (r *residentEnv) writeConfig(config string) {
	r.t.Helper()
	config = strings.ReplaceAll(config, "$MCPFS", r.bin)
	if err := os.WriteFile(r.cfg, []byte(config), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// stopEngines stops every engine the test started, so none outlives it.
func (r *residentEnv) stopEngines() {
	out, _ := r.cmd("engine", "status", "--all", "--json").Output()
	var infos []engineInfo
	json.Unmarshal(out, &infos)
	r.cmd("engine", "stop", "--all").Run()
	for _, in := range infos {
		waitGone(r.t, in.PID)
	}
}

func (r *residentEnv) cmd(args ...string) *osexec.Cmd {
	c := osexec.Command(r.bin, args...)
	c.Env = r.env
	c.Dir = r.home
	return c
}

// run runs mcpfs with args and returns its stdout, stderr and exit code.
func (r *residentEnv) run(stdin string, args ...string) (string, string, int) {
	r.t.Helper()
	c := r.cmd(args...)
	c.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	code := 0
	if ee, ok := err.(*osexec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("mcpfs %s: %v", strings.Join(args, " "), err)
	}
	return stdout.String(), stderr.String(), code
}

// status returns the engine's status, or nil when none runs.
func (r *residentEnv) status() *engineStatus {
	r.t.Helper()
	out, stderr, code := r.run("", "engine", "status", "--json")
	if code != 0 {
		r.t.Fatalf("engine status: exit %d: %s", code, stderr)
	}
	var st *engineStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		r.t.Fatalf("engine status --json: %v: %q", err, out)
	}
	return st
}

// children returns the command lines of the processes whose parent is pid.
func children(pid int) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		rest := string(stat[bytes.LastIndexByte(stat, ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 2 || f[1] != strconv.Itoa(pid) || f[0] == "Z" {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(n), "cmdline"))
		out = append(out, strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " ")))
	}
	return out
}

// countMatching counts the lines that contain sub.
func countMatching(lines []string, sub string) int {
	n := 0
	for _, l := range lines {
		if strings.Contains(l, sub) {
			n++
		}
	}
	return n
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			t.Errorf("process %d still runs", pid)
			syscall.Kill(pid, syscall.SIGKILL)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

const helloSnippet = "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"

// docstoreStdio is a config whose one server is the built-in docstore
// run over stdio by the mcpfs binary: a real child process per engine.
const docstoreStdio = `{"mcpServers": {"docs": {"command": "$MCPFS", "args": ["builtin", "docstore"]}}}`

// TestResidentShared runs two `mcpfs serve` clients over stdio and a
// `mcpfs run` at once: one engine serves all three, with one process per
// configured server.
func TestResidentShared(t *testing.T) {
	r := newResidentEnv(t, docstoreStdio)
	if out, stderr, code := r.run("", "-v", "ls", "servers"); code != 0 || !strings.Contains(out, "docs/") {
		t.Fatalf("ls servers: exit %d, stdout %q, stderr %s", code, out, stderr)
	}
	st := r.status()
	if st == nil {
		t.Fatal("no engine runs after ls")
	}

	type client struct {
		cmd *osexec.Cmd
		in  io.WriteCloser
		out *bufio.Reader
	}
	var clients []client
	for range 2 {
		c := r.cmd("serve")
		in, _ := c.StdinPipe()
		outp, _ := c.StdoutPipe()
		c.Stderr = io.Discard
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { in.Close(); c.Wait() })
		clients = append(clients, client{c, in, bufio.NewReader(outp)})
	}
	for i, c := range clients {
		fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t%d","version":"1"}}}`+"\n", i)
		line, err := c.out.ReadString('\n')
		if err != nil || !strings.Contains(line, `"serverInfo"`) {
			t.Fatalf("client %d initialize: %v %q", i, err, line)
		}
		fmt.Fprint(c.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		fmt.Fprint(c.in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"exec","arguments":{"code":"package main\n\nimport (\n\t\"fmt\"\n\n\t\"mcpfs/servers/docs\"\n)\n\nfunc main() {\n\tl, err := docs.ListDocuments(docs.ListDocumentsArgs{})\n\tfmt.Println(len(l.Documents), err)\n}\n"}}}`+"\n")
		line, err = c.out.ReadString('\n')
		if err != nil || !strings.Contains(line, `5 \u003cnil\u003e`) && !strings.Contains(line, `5 <nil>`) {
			t.Fatalf("client %d exec: %v %q", i, err, line)
		}
	}
	out, stderr, code := r.run(helloSnippet, "run", "-")
	if code != 0 || out != "hello\n" {
		t.Fatalf("run: exit %d, stdout %q, stderr %s", code, out, stderr)
	}

	st2 := r.status()
	if st2 == nil || st2.PID != st.PID {
		t.Fatalf("engine changed: %+v then %+v", st, st2)
	}
	if st2.Commands != 2 {
		t.Errorf("commands running = %d, want the 2 serve clients", st2.Commands)
	}
	if n := countMatching(children(st.PID), "builtin docstore"); n != 1 {
		t.Errorf("docstore server processes under the engine = %d, want 1: %q", n, children(st.PID))
	}
	if !strings.HasPrefix(st2.Cache, r.home) {
		t.Errorf("engine cache = %q, want one in the home", st2.Cache)
	}
}

// TestResidentReadmeFirst: the first command a newcomer runs may be
// `cat README.md` on an engine that has just started. The README lists
// the servers, so it waits for them as `ls servers` does: it says how
// many tools the server has, not "connecting".
func TestResidentReadmeFirst(t *testing.T) {
	r := newResidentEnv(t, docstoreStdio)
	out, stderr, code := r.run("", "cat", "README.md")
	if code != 0 {
		t.Fatalf("cat README.md: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "- docs: ") || strings.Contains(out, "connecting") {
		t.Fatalf("cat README.md on a new engine: want the docs server listed with its tools, not connecting:\n%s", out)
	}
	if r.status() == nil {
		t.Fatal("no engine runs after cat README.md")
	}
}

// TestResidentIdle: an engine stops by itself after its idle time, and
// the next command starts a new one.
func TestResidentIdle(t *testing.T) {
	r := newResidentEnv(t, "")
	if out, _, code := r.run(helloSnippet, "--engine-idle", "300ms", "run", "-"); code != 0 || out != "hello\n" {
		t.Fatalf("run: exit %d, stdout %q", code, out)
	}
	// The engine's pid, from its info file.
	infos := (&globals{env: r.env}).engineInfos(filepath.Join(r.runDir, "mcpfs"))
	if len(infos) != 1 {
		t.Fatalf("engines = %d, want 1", len(infos))
	}
	waitGone(t, infos[0].PID)
	if st := r.status(); st != nil {
		t.Errorf("an engine still answers after idling out: %+v", st)
	}
	if out, _, code := r.run(helloSnippet, "run", "-"); code != 0 || out != "hello\n" {
		t.Fatalf("run after idle-out: exit %d, stdout %q", code, out)
	}
}

// TestResidentKilled: kill -9 of the engine loses nothing; the next
// command starts a new engine over the stale socket and works.
func TestResidentKilled(t *testing.T) {
	r := newResidentEnv(t, "")
	if _, _, code := r.run("", "ls", "servers"); code != 0 {
		t.Fatal("ls failed")
	}
	st := r.status()
	if st == nil {
		t.Fatal("no engine")
	}
	syscall.Kill(st.PID, syscall.SIGKILL)
	waitGone(t, st.PID)
	if _, err := os.Lstat(st.Socket); err != nil {
		t.Fatalf("the killed engine's socket file should be left: %v", err)
	}
	out, stderr, code := r.run("", "cat", "servers/docstore/doc.go")
	if code != 0 || !strings.Contains(out, "package docstore") {
		t.Fatalf("cat after kill: exit %d, stderr %s", code, stderr)
	}
	st2 := r.status()
	if st2 == nil || st2.PID == st.PID {
		t.Fatalf("want a new engine, got %+v", st2)
	}
}

// TestResidentInterrupted: Ctrl-C of `mcpfs run` stops the run on the
// engine, which stays up.
func TestResidentInterrupted(t *testing.T) {
	r := newResidentEnv(t, "")
	c := r.cmd("run", "-")
	c.Stdin = strings.NewReader("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"looping\")\n\tfor {\n\t}\n}\n")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// The snippet prints once it runs, then loops.
	line, eof := make(chan string, 1), make(chan struct{})
	go func() {
		defer close(eof)
		br := bufio.NewReader(stdout)
		l, _ := br.ReadString('\n')
		line <- l
		io.Copy(io.Discard, br)
	}()
	select {
	case l := <-line:
		if l != "looping\n" {
			t.Fatalf("the run's first line: %q, want \"looping\"; stderr:\n%s", l, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the run never started on the engine")
	}
	if st := r.status(); st == nil || st.Commands != 1 {
		t.Fatalf("engine status while the run loops: %+v, want 1 command", st)
	}
	c.Process.Signal(os.Interrupt)
	<-eof // Wait closes the pipe: read it to its end first
	err = c.Wait()
	if err == nil {
		t.Fatalf("an interrupted run exited 0: %s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") && !strings.Contains(stderr.String(), "cancel") {
		t.Errorf("stderr does not say the run was interrupted:\n%s", stderr.String())
	}
	deadline := time.Now().Add(30 * time.Second)
	for r.status().Commands != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the engine still runs the interrupted command")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestResidentSelfInConfig: a config that lists mcpfs itself (as a
// client's config does once mcpfs is added to it) lists its other servers
// and starts no nested mcpfs; an mcpfs started as a server refuses to
// start servers.
func TestResidentSelfInConfig(t *testing.T) {
	r := newResidentEnv(t, `{"mcpServers": {
		"mcpfs": {"command": "$MCPFS", "args": ["serve"]},
		"docs": {"command": "$MCPFS", "args": ["builtin", "docstore"]}}}`)
	out, stderr, code := r.run("", "-v", "ls", "servers")
	if code != 0 || !strings.Contains(out, "docs/") || strings.Contains(out, "mcpfs/") {
		t.Fatalf("ls servers: exit %d, stdout %q, stderr %s", code, out, stderr)
	}
	st := r.status()
	if st == nil {
		t.Fatalf("no engine runs after ls; its stderr:\n%s", stderr)
	}
	if n := countMatching(children(st.PID), " serve"); n != 0 {
		t.Errorf("nested mcpfs serve processes: %q", children(st.PID))
	}
	// A nested one refuses.
	c := r.cmd("ls", "servers")
	c.Env = append(c.Env, engine.ServedByEnv+"="+r.cfg)
	b, err := c.CombinedOutput()
	if err == nil || !strings.Contains(string(b), "starts no servers of its own") {
		t.Errorf("nested mcpfs: err %v, output %s", err, b)
	}
}

// TestResidentFailedImport: a snippet importing a server that failed gets
// one line saying so, while a snippet importing a fast server finishes
// while a slow one is still starting.
func TestResidentFailedImport(t *testing.T) {
	r := newResidentEnv(t, `{"mcpServers": {
		"broken": {"command": "/nonexistent/mcp-server"},
		"slow": {"command": "sh", "args": ["-c", "sleep 20"]},
		"docs": {"command": "$MCPFS", "args": ["builtin", "docstore"]}}}`)
	snippet := "package main\n\nimport (\n\t\"fmt\"\n\n\t\"mcpfs/servers/%s\"\n)\n\nfunc main() {\n\tl, err := %s.ListDocuments(%s.ListDocumentsArgs{})\n\tfmt.Println(len(l.Documents), err)\n}\n"
	start := time.Now()
	out, stderr, code := r.run(fmt.Sprintf(snippet, "docs", "docs", "docs"), "run", "-")
	if code != 0 || out != "5 <nil>\n" {
		t.Fatalf("docs snippet: exit %d, stdout %q, stderr %s", code, out, stderr)
	}
	if el := time.Since(start); el > 15*time.Second {
		t.Errorf("the docs snippet took %v: it waited for the slow server", el)
	}
	_, stderr, code = r.run(fmt.Sprintf(snippet, "broken", "broken", "broken"), "run", "-")
	if code == 0 {
		t.Fatal("a snippet importing a failed server exited 0")
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) > 3 || !strings.HasPrefix(lines[0], "servers/broken: failed: ") || strings.Contains(stderr, "undefined") {
		t.Errorf("stderr, want one line naming the failed server:\n%s", stderr)
	}
}

// A config's ${VAR}s take the values of the command's environment, not
// the engine's: a command that sets a variable the file names gets servers
// started with it, even when an engine already serves the config.
func TestResidentConfigVariables(t *testing.T) {
	r := newResidentEnv(t, `{"mcpServers": {"docs": {"command": "${env:MCPFS_TEST_BIN}", "args": ["builtin", "docstore"]}}}`)
	out, _, _ := r.run("", "ls", "servers")
	if !strings.Contains(out, "MCPFS_TEST_BIN") {
		t.Fatalf("ls servers with $MCPFS_TEST_BIN unset: want the docs server failed on it:\n%s", out)
	}
	r.env = append(r.env, "MCPFS_TEST_BIN="+r.bin)
	snippet := "package main\n\nimport (\n\t\"fmt\"\n\n\t\"mcpfs/servers/docs\"\n)\n\nfunc main() {\n\tl, err := docs.ListDocuments(docs.ListDocumentsArgs{})\n\tfmt.Println(len(l.Documents), err)\n}\n"
	out, stderr, code := r.run(snippet, "run", "-")
	if code != 0 || out != "5 <nil>\n" {
		t.Fatalf("with $MCPFS_TEST_BIN set: exit %d, stdout %q, stderr %s", code, out, stderr)
	}
	if st := r.status(); st == nil || len(st.Configs) != 1 {
		t.Errorf("engine status: want one config served, got %+v", st)
	}
}

// TestResidentGeneratedCached: the next engine reads the tool files the
// last one generated from the cache, and exports the same files.
func TestResidentGeneratedCached(t *testing.T) {
	r := newResidentEnv(t, "")
	first, second := filepath.Join(r.home, "first"), filepath.Join(r.home, "second")
	if _, stderr, code := r.run("", "export", first); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	st := r.status()
	if st == nil || st.Tree == nil || st.Tree.Generated == 0 || st.Tree.Loaded != 0 {
		t.Fatalf("first engine: %+v; want packages generated, none read", st)
	}
	if _, stderr, code := r.run("", "engine", "stop"); code != 0 {
		t.Fatalf("engine stop: exit %d: %s", code, stderr)
	}
	waitGone(t, st.PID)
	if _, stderr, code := r.run("", "export", second); code != 0 {
		t.Fatalf("second export: exit %d: %s", code, stderr)
	}
	st2 := r.status()
	if st2 == nil || st2.Tree == nil || st2.Tree.Loaded != st.Tree.Generated || st2.Tree.Generated != 0 {
		t.Fatalf("second engine: %+v; want the %d packages read from the cache, none generated", st2.Tree, st.Tree.Generated)
	}
	a, b := readDir(t, first), readDir(t, second)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("exports: %d and %d files", len(a), len(b))
	}
	// Tool files are the same; doc.go and the README say the servers'
	// state, which may be "connecting" while the new engine starts.
	tools := 0
	for p, data := range a {
		if filepath.Base(p) == "doc.go" || !strings.HasPrefix(p, "servers/") {
			continue
		}
		tools++
		if !bytes.Equal(b[p], data) {
			t.Errorf("%s differs between the exports:\n%s\n----\n%s", p, data, b[p])
		}
	}
	if tools == 0 {
		t.Error("the exports have no tool files")
	}
	out, _, code := r.run("", "cache", "stats", "--json")
	var cs struct {
		Generated int `json:"generated_packages"`
	}
	if json.Unmarshal([]byte(out), &cs); code != 0 || cs.Generated != int(st.Tree.Generated) {
		t.Errorf("cache stats: exit %d, %s; want %d generated packages", code, out, st.Tree.Generated)
	}
}

// readDir returns every file under dir by its path relative to dir.
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
