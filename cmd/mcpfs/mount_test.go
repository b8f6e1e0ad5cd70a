package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// mountHome skips the test unless this machine can mount FUSE, and gives
// it a home and working directory of its own with no config anywhere (so
// mcpfs uses the built-in docstore). It returns the home.
func mountHome(t *testing.T) string {
	t.Helper()
	if f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0); err != nil {
		t.Skipf("mount test skipped: /dev/fuse is not usable: %v", err)
	} else {
		f.Close()
	}
	if os.Geteuid() != 0 {
		if _, err := osexec.LookPath("fusermount3"); err != nil {
			t.Skip("mount test skipped: not root and no fusermount3 (apt-get install fuse3)")
		}
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("MCPFS_CONFIG", "")
	t.Setenv("MCP_SERVERS_CONFIG", "")
	t.Chdir(home)
	return home
}

// mountCmd is `mcpfs [flags] mount DIR` running in the test's process.
type mountCmd struct {
	t      *testing.T
	dir    string
	stderr syncBuffer
	cancel context.CancelFunc
	done   chan error
	ended  bool // done has been received
}

// startMount runs `mcpfs <flags> mount DIR` on a fresh directory and
// returns once the command says it is mounted; the test's end stops it.
//
// Only then are both its FUSE connections (the tree's and the stacked
// servers/ one) past go-fuse's poll hack. Before that, a file this process
// opens in the mount can deadlock it: Go adds every opened file to its
// epoll set, the kernel asks FUSE whether the file can be polled, and with
// the runtime's poller blocked on that question and every P held by a
// thread in a system call, nothing runs the goroutine that would answer.
// Other processes are never at risk; the tests read their own mount.
func startMount(t *testing.T, flags ...string) *mountCmd {
	t.Helper()
	m := &mountCmd{t: t, dir: t.TempDir(), done: make(chan error, 1)}
	var stdout syncBuffer
	g := &globals{stdin: strings.NewReader(""), stdout: &stdout, stderr: &m.stderr}
	root := newRoot(g)
	root.SetArgs(append(append([]string{}, flags...), "mount", m.dir))
	root.SetOut(&stdout)
	root.SetErr(&m.stderr)
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	go func() { m.done <- root.ExecuteContext(ctx) }()
	t.Cleanup(m.stop)
	m.waitFor(t, "mcpfs says it is mounted", func() string {
		if !strings.Contains(m.stderr.String(), "mcpfs: mounted at ") {
			return "no \"mounted at\" line yet"
		}
		return ""
	})
	return m
}

// waitFor polls until ok returns "", failing t after 20 s with the last
// thing ok said was missing, or at once if the command ended.
func (m *mountCmd) waitFor(t *testing.T, what string, ok func() string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		missing := ok()
		if missing == "" {
			return
		}
		select {
		case err := <-m.done:
			m.ended = true
			t.Fatalf("mount ended early: %v\nstderr:\n%s", err, m.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20s: %s\nstderr:\n%s", what, missing, m.stderr.String())
		}
	}
}

// exists is a waitFor condition: the file p exists (stat, which opens
// nothing).
func exists(p string) func() string {
	return func() string {
		if _, err := os.Stat(p); err != nil {
			return err.Error()
		}
		return ""
	}
}

// stop interrupts the command and checks that it returns nil within 20 s
// and leaves nothing mounted. Calling it again does nothing.
func (m *mountCmd) stop() {
	if m.ended {
		return
	}
	m.ended = true
	m.cancel()
	select {
	case err := <-m.done:
		if err != nil {
			m.t.Errorf("mount returned %v after interrupt", err)
		}
	case <-time.After(20 * time.Second):
		m.t.Error("mount did not return within 20s of the interrupt")
		return
	}
	mountinfo, _ := os.ReadFile("/proc/self/mountinfo")
	if bytes.Contains(mountinfo, []byte(" "+m.dir+" ")) {
		m.t.Errorf("%s is still mounted after the command returned", m.dir)
	}
}

// TestMountCommand runs `mcpfs mount DIR` with the built-in default server,
// reads the tree through the kernel, and interrupts it.
func TestMountCommand(t *testing.T) {
	mountHome(t)
	m := startMount(t)
	dir := m.dir
	m.waitFor(t, "servers/docstore appears", exists(filepath.Join(dir, "servers", "docstore", "search.go")))
	data, err := os.ReadFile(filepath.Join(dir, "servers", "docstore", "doc.go"))
	if err != nil || !bytes.Contains(data, []byte("package docstore")) {
		t.Errorf("servers/docstore/doc.go: %v\n%s", err, data)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("x"), 0o644); err == nil {
		t.Error("writing README.md through the mount succeeded")
	}

	m.stop()
	for _, want := range []string{"mcpfs: mounted at " + dir, "servers/docstore: ready, ", "mcpfs: unmounted " + dir} {
		if !strings.Contains(m.stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, m.stderr.String())
		}
	}
}

// TestMountCommandErrors checks the usage errors that start nothing.
func TestMountCommandErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"mount"}, "accepts 1 arg"},
		{[]string{"mount", filepath.Join(t.TempDir(), "missing")}, "missing"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.args), func(t *testing.T) {
			var out bytes.Buffer
			code := Main(tt.args, strings.NewReader(""), &out, &out)
			if code == exitOK || !strings.Contains(out.String(), tt.want) {
				t.Errorf("mcpfs %v: exit %d, output:\n%s\nwant a failure mentioning %q", tt.args, code, out.String(), tt.want)
			}
		})
	}
}
