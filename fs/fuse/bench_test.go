package fuse

import (
	"fmt"
	iofs "io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpfs/mcpfs/discovery"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// bigTree is a catalog of n servers with tools tools each.
func bigTree(n, tools int) *mcpfs.Tree {
	servers := make([]discovery.ServerSnapshot, n)
	for i := range servers {
		names := make([]string, tools)
		for j := range names {
			names[j] = fmt.Sprintf("tool_%03d", j)
		}
		servers[i] = server(fmt.Sprintf("server%03d", i), names...)
	}
	return tree(servers...)
}

// exportTree writes t under dir, as `mcpfs export` does.
func exportTree(tb testing.TB, t *mcpfs.Tree, dir string) {
	tb.Helper()
	err := iofs.WalkDir(t, ".", func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := t.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o444)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkStat is a warm stat(2) of one file, on the mount and on disk.
func BenchmarkStat(b *testing.B) {
	benchBoth(b, func(b *testing.B, root string) {
		p := filepath.Join(root, "servers/server001/tool_007.go")
		for b.Loop() {
			if _, err := os.Stat(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkOpenReadClose reads one whole file of servers/, on the mount
// and on disk.
func BenchmarkOpenReadClose(b *testing.B) {
	benchBoth(b, func(b *testing.B, root string) {
		p := filepath.Join(root, "servers/server001/tool_007.go")
		for b.Loop() {
			if _, err := os.ReadFile(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkOpenReadCloseMain reads README.md, a file of the main
// connection (which also serves the writable folders, so its files are
// opened and released through this process), on the mount and on disk.
func BenchmarkOpenReadCloseMain(b *testing.B) {
	benchBoth(b, func(b *testing.B, root string) {
		p := filepath.Join(root, "README.md")
		for b.Loop() {
			if _, err := os.ReadFile(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func benchBoth(b *testing.B, f func(b *testing.B, root string)) {
	t := bigTree(5, 20)
	b.Run("mount", func(b *testing.B) {
		m := testMount(b, t)
		f(b, m.Dir())
	})
	b.Run("disk", func(b *testing.B) {
		dir := b.TempDir()
		exportTree(b, t, dir)
		f(b, dir)
	})
}

// BenchmarkMountReady is the time from Mount to a served stat of
// servers/<s>/doc.go, for a catalog of 50 servers.
func BenchmarkMountReady(b *testing.B) {
	skipWithoutFuse(b)
	t := bigTree(50, 20)
	for b.Loop() {
		dir := b.TempDir()
		m, err := Mount(dir, t, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "servers/server049/doc.go")); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := m.Unmount(); err != nil {
			b.Fatal(err)
		}
		m.Wait()
		b.StartTimer()
	}
}

// BenchmarkLsR and BenchmarkGrepR run ls -R and grep -r over 100 servers
// with 100 tools each (10,000 files): "cold" on a fresh mount of a fresh
// tree (generation included), "warm" again on the same mount.
func BenchmarkLsR(b *testing.B) { benchCommand(b, "ls", "-R", ".") }

func BenchmarkGrepR(b *testing.B) { benchCommand(b, "grep", "-rc", "tool_042", ".") }

func benchCommand(b *testing.B, args ...string) {
	skipWithoutFuse(b)
	if _, err := osexec.LookPath(args[0]); err != nil {
		b.Skipf("%s is not installed", args[0])
	}
	run := func(b *testing.B, dir string) {
		out, err := commandIn(dir, args...).Output()
		if err != nil && !(args[0] == "grep" && len(out) > 0) {
			b.Fatalf("%s: %v", strings.Join(args, " "), err)
		}
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			m := mountFor(b, bigTree(100, 100))
			b.StartTimer()
			run(b, m.Dir())
			b.StopTimer()
			reportRSS(b)
			unmountFor(b, m)
			b.StartTimer()
		}
	})
	b.Run("warm", func(b *testing.B) {
		m := mountFor(b, bigTree(100, 100))
		defer unmountFor(b, m)
		run(b, m.Dir())
		for b.Loop() {
			run(b, m.Dir())
		}
		reportRSS(b)
	})
	b.Run("disk", func(b *testing.B) {
		dir := b.TempDir()
		exportTree(b, bigTree(100, 100), dir)
		for b.Loop() {
			run(b, dir)
		}
	})
}

func mountFor(b *testing.B, t *mcpfs.Tree) *Mounted {
	m, err := Mount(b.TempDir(), t, Options{})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func unmountFor(b *testing.B, m *Mounted) {
	if err := m.Unmount(); err != nil {
		b.Fatal(err)
	}
	m.Wait()
}

// reportRSS reports the resident set size of this process (the mount's
// server side) and the Go heap in use.
func reportRSS(b *testing.B) {
	data, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
				b.ReportMetric(float64(kb)/1024, "RSS-MB")
			}
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
}
