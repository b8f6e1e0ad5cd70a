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

// TestMountCommand runs `mcpfs mount DIR` with the built-in default server,
// reads the tree through the kernel, and interrupts it.
// waitMounted waits until the mount command running in this process says
// "mounted at": only then are both its FUSE connections (the tree's and the
// stacked servers/ one) past go-fuse's poll hack. Before that, a file this
// process opens in the mount can deadlock it: Go adds every opened file to
// its epoll set, the kernel asks FUSE whether the file can be polled, and
// with the runtime's poller blocked on that question and every P held by a
// thread in a system call, nothing runs the goroutine that would answer.
// Other processes are never at risk; the tests read their own mount.
func waitMounted(t *testing.T, stderr *syncBuffer, done chan error) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(stderr.String(), "mcpfs: mounted at "); time.Sleep(5 * time.Millisecond) {
		select {
		case err := <-done:
			done <- err // for whoever waits for the command
			t.Fatalf("mount ended before it was mounted: %v\nstderr:\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("mount did not say it was mounted within 20s\nstderr:\n%s", stderr.String())
		}
	}
}

func TestMountCommand(t *testing.T) {
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
	// No config anywhere: the built-in docstore server, in process.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("MCPFS_CONFIG", "")
	t.Setenv("MCP_SERVERS_CONFIG", "")
	t.Chdir(home)

	dir := t.TempDir()
	var stdout, stderr syncBuffer
	g := &globals{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
	root := newRoot(g)
	root.SetArgs([]string{"mount", dir})
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	waitMounted(t, &stderr, done)

	doc := filepath.Join(dir, "servers", "docstore", "search.go")
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(doc); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("mount ended early: %v\nstderr:\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			<-done
			t.Fatalf("%s did not appear within 20s\nstderr:\n%s", doc, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	data, err := os.ReadFile(filepath.Join(dir, "servers", "docstore", "doc.go"))
	if err != nil || !bytes.Contains(data, []byte("package docstore")) {
		t.Errorf("servers/docstore/doc.go: %v\n%s", err, data)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("x"), 0o644); err == nil {
		t.Error("writing README.md through the mount succeeded")
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("mount returned %v after interrupt", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("mount did not return within 20s of the interrupt")
	}
	for _, want := range []string{"mcpfs: mounted at " + dir, "servers/docstore: ready, ", "mcpfs: unmounted " + dir} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	mountinfo, _ := os.ReadFile("/proc/self/mountinfo")
	if bytes.Contains(mountinfo, []byte(" "+dir+" ")) {
		t.Errorf("%s is still mounted after the command returned", dir)
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
