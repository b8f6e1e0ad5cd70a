package fuse

import (
	"fmt"
	"log/slog"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestMountWhileForking mounts and unmounts again and again while other
// goroutines start child processes, as an engine starts stdio servers
// while a mount comes up. A descriptor of the new mount that leaks into a
// child between fork and exec hangs the child and the mount (see
// waitMount); the mounting runs in a child process so that a hang fails
// this test instead of the run.
func TestMountWhileForking(t *testing.T) {
	skipWithoutFuse(t)
	if os.Geteuid() != 0 {
		t.Skip("mounts directly as root only; fusermount3 forks with its own care")
	}
	dir := t.TempDir()
	cmd := osexec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), roleEnv+"=mount-while-forking", roleDirEnv+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Output to a file: a hung grandchild holding a pipe would keep Wait
	// waiting.
	outFile := filepath.Join(t.TempDir(), "out")
	f, err := os.Create(outFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	output := func() string { b, _ := os.ReadFile(outFile); return strings.TrimSpace(string(b)) }
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("mounting while forking: %v\n%s", err, output())
		}
		t.Log(output())
	case <-time.After(30 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		abortConnections(dir, slog.New(slog.DiscardHandler))
		for _, m := range tempMounts(dir) {
			_ = syscall.Unmount(m, syscall.MNT_DETACH)
		}
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		t.Fatalf("mounting while forking hung: a child stuck between fork and exec on a descriptor of the mount (see waitMount)\n%s", output())
	}
}

// mountWhileForking is the child of TestMountWhileForking.
func mountWhileForking(dir string) int {
	const mounts = 200
	var stop atomic.Bool
	var wg sync.WaitGroup
	var started atomic.Int64
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				// Extra descriptors make Go's child code move descriptors
				// around before exec, closing what sits at the numbers it
				// takes.
				r, w, err := os.Pipe()
				if err != nil {
					continue
				}
				c := osexec.Command("/bin/true")
				c.ExtraFiles = []*os.File{r, w, r, w}
				if c.Run() == nil {
					started.Add(1)
				}
				r.Close()
				w.Close()
			}
		}()
	}
	defer func() {
		stop.Store(true)
		wg.Wait()
	}()
	for i := range mounts {
		mnt := filepath.Join(dir, fmt.Sprint(i))
		if err := os.Mkdir(mnt, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		m, err := Mount(mnt, roleTree(), Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "mount:", err)
			return 1
		}
		if _, err := os.ReadDir(mnt); err != nil {
			fmt.Fprintln(os.Stderr, "read the mount:", err)
			return 1
		}
		if err := m.Unmount(); err != nil {
			fmt.Fprintln(os.Stderr, "unmount:", err)
			return 1
		}
		m.Wait()
	}
	fmt.Printf("%d mounts while %d children started\n", mounts, started.Load())
	return 0
}
