package exec

import (
	"context"
	"os"
	"testing"
	"time"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// TestWorkerLeavesMountsAlone: a worker waiting in the pool, started
// while a FUSE file system of this process is mounted, holds no copy of
// that mount (its mount namespace detached the copy): unmounting it
// returns at once instead of waiting for the worker to exit.
func TestWorkerLeavesMountsAlone(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting FUSE without fusermount needs root")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("no /dev/fuse: %v", err)
	}
	dir := t.TempDir()
	srv, err := fusefs.Mount(dir, &fusefs.Inode{}, &fusefs.Options{MountOptions: fuse.MountOptions{DirectMount: true, DirectMountStrict: true}})
	if err != nil {
		t.Skipf("cannot mount FUSE here: %v", err)
	}
	unmounted := false
	t.Cleanup(func() {
		if !unmounted {
			srv.Unmount()
		}
	})
	r := newRunner(t, Options{PoolSize: 1})
	layers, err := r.Layers(context.Background()) // a worker now waits in the pool
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layers {
		if l.Name == "pidns" {
			t.Logf("layer %v", l)
		}
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- srv.Unmount() }()
	select {
	case err := <-done:
		unmounted = true
		if err != nil {
			t.Fatalf("unmount: %v", err)
		}
		t.Logf("unmounted in %v with a worker waiting", time.Since(start).Round(time.Millisecond))
	case <-time.After(5 * time.Second):
		r.Close() // the worker goes; the unmount then ends
		<-done
		unmounted = true
		t.Fatal("the unmount waited for the pooled worker: it holds a copy of the mount")
	}
}
