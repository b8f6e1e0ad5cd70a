package cache

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/discovery"
)

// mountTmpfs mounts a tmpfs of size (a mount option like "48m") on a new
// directory and unmounts it when the test ends. It skips the test, saying
// why, where mounting is not allowed.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() {
		err := syscall.Unmount(dir, 0)
		if errors.Is(err, syscall.EBUSY) {
			// Badger keeps files mapped after a failed open; detach.
			t.Logf("unmount %s: %v; detaching it", dir, err)
			err = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
		if err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes to path until the file system is full.
func fill(path string) (int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	var n int64
	for {
		m, err := f.Write(buf)
		n += int64(m)
		if errors.Is(err, syscall.ENOSPC) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// openStored is the start of the full-disk helper processes: a cache in
// dir, logging to stdout from level on, with n listings of the same tools
// stored ("stored n" printed); it exits 2 when the cache does not open.
func openStored(dir string, level slog.Level, n int) (*Store, discovery.CachedTools) {
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{Level: level}))
	s, err := Open(filepath.Join(dir, "cache"), Options{Logger: log})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	ct := sampleTools(30)
	for i := range n {
		s.StoreTools("k"+strconv.Itoa(i), ct)
	}
	fmt.Println("stored", n)
	return s, ct
}

// TestFullDiskHelper is not a test: run with MCPFS_CACHE_FULL_DIR set, it
// opens a cache in that directory, stores 50 listings, then fills the disk
// from another goroutine while it goes on storing listings and results, and
// closes the cache. Its log goes to stdout; "closed" means it survived.
func TestFullDiskHelper(t *testing.T) {
	dir := os.Getenv("MCPFS_CACHE_FULL_DIR")
	if dir == "" {
		t.Skip("helper process for TestFullDisk; runs only when re-executed")
	}
	s, ct := openStored(dir, slog.LevelInfo, 50)
	filled := make(chan error, 1)
	go func() {
		n, err := fill(filepath.Join(dir, "filler"))
		fmt.Println("filled", n, err)
		filled <- err
	}()
	result := json.RawMessage(`"` + strings.Repeat("r", 200<<10) + `"`)
	began := time.Now()
	writes, after := 0, -1
	for after < 300 {
		s.StoreTools("late"+strconv.Itoa(writes), ct)
		s.StoreResult("r"+strconv.Itoa(writes), result, time.Hour)
		writes++
		if after >= 0 {
			after++
		}
		select {
		case err := <-filled:
			if err != nil {
				fmt.Println("fill:", err)
				os.Exit(2)
			}
			after = 0
		default:
		}
	}
	fmt.Printf("writes %d in %v\n", writes, time.Since(began).Round(time.Millisecond))
	st, err := s.Stats()
	fmt.Printf("stats writes=%q err=%v\n", st.Writes, err)
	if err := s.Close(); err != nil {
		fmt.Println("close:", err)
		os.Exit(2)
	}
	fmt.Println("closed")
}

// TestFullDisk fills a small tmpfs while a process writes to the cache on
// it: the process must carry on (no SIGBUS), say once that the disk is
// full, and the cache must open afterwards, full disk or not, with what was
// stored before.
func TestFullDisk(t *testing.T) {
	if os.Getenv("MCPFS_CACHE_FULL_DIR") != "" {
		t.Skip("inside the helper")
	}
	mnt := mountTmpfs(t, "96m")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFullDiskHelper$")
	cmd.Env = append(os.Environ(), "MCPFS_CACHE_FULL_DIR="+mnt)
	began := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("helper (%v):\n%s", time.Since(began).Round(time.Millisecond), out)
	if err != nil || !strings.Contains(string(out), "closed") {
		t.Fatalf("helper: got %v, want it to fill the disk, keep writing and close", err)
	}
	// Said once per time the disk turns full: the filler runs beside the
	// writes, so the disk may have room again for a moment (said too)
	// before it is full for good.
	full, room := strings.Count(string(out), "until there is room"), strings.Count(string(out), "caching again")
	if full < 1 || full != room+1 {
		t.Errorf("full-disk warnings: got %d with %d times room again between them, want one more warning than times room again", full, room)
	}

	dir := filepath.Join(mnt, "cache")
	// The helper's Close found no room for Badger's last flush and left
	// the writes in Badger's log, which a read-only open cannot replay:
	// with the disk still full, the cache is unavailable, and untouched.
	stillFullThenRoom(t, mnt, dir)
	checkListings(t, dir, "room again", 50, false)
	// Closed with room, then the disk fills: read-only, listings served.
	if _, err := fill(filepath.Join(mnt, "filler")); err != nil {
		t.Fatal(err)
	}
	checkListings(t, dir, "filled after a clean close", 50, true)
}

// checkListings opens the cache in dir, checks that listings k0..k<n-1>
// are there and whether it is read-only, stores one more and closes it.
func checkListings(t *testing.T, dir, stage string, n int, wantReadOnly bool) {
	t.Helper()
	log, buf := newLog()
	began := time.Now()
	s, err := Open(dir, Options{Logger: log})
	if err != nil {
		t.Fatalf("%s: Open: %v", stage, err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Errorf("%s: Close: %v", stage, err)
		}
	}()
	t.Logf("%s: opened in %v; read-only: %v", stage, time.Since(began).Round(time.Millisecond), s.ReadOnly())
	if got := s.ReadOnly() != nil; got != wantReadOnly {
		t.Errorf("%s: read-only got %v, want %v; log:\n%s", stage, s.ReadOnly(), wantReadOnly, buf)
	}
	for i := range n {
		if _, ok := s.LoadTools("k" + strconv.Itoa(i)); !ok {
			t.Errorf("%s: listing k%d stored before the disk filled is gone", stage, i)
		}
	}
	s.StoreTools("again "+stage, sampleTools(1))
	if _, ok := s.LoadTools("again " + stage); ok == wantReadOnly {
		t.Errorf("%s: a new listing kept: got %v, want %v", stage, ok, !wantReadOnly)
	}
	if matches, _ := filepath.Glob(dir + ".corrupt*"); len(matches) > 0 {
		t.Errorf("%s: the cache was set aside: %v", stage, matches)
	}
}

// TestReadOnlyDir opens a cache on a file system remounted read-only: it is
// served read-only, writes are skipped after one warning, and nothing is
// set aside. A missing cache on a read-only file system is ErrUnavailable.
func TestReadOnlyDir(t *testing.T) {
	mnt := mountTmpfs(t, "96m")
	dir := filepath.Join(mnt, "cache")
	s := open(t, dir, Options{})
	s.StoreTools("k", sampleTools(3))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("", mnt, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot remount read-only: %v", err)
	}
	defer func() { _ = syscall.Mount("", mnt, "", syscall.MS_REMOUNT, "") }()

	log, buf := newLog()
	s, err := Open(dir, Options{Logger: log})
	if err != nil {
		t.Fatalf("Open on a read-only file system: got %v, want a read-only store", err)
	}
	if !errors.Is(s.ReadOnly(), syscall.EROFS) {
		t.Errorf("ReadOnly: got %v, want EROFS", s.ReadOnly())
	}
	if _, ok := s.LoadTools("k"); !ok {
		t.Error("the cached listing is not served read-only")
	}
	for i := range 5 {
		s.StoreTools("new"+strconv.Itoa(i), sampleTools(1))
		s.StoreResult("r"+strconv.Itoa(i), json.RawMessage(`1`), time.Hour)
	}
	if n := strings.Count(buf.String(), "level=WARN"); n != 1 {
		t.Errorf("warnings: got %d, want 1; log:\n%s", n, buf)
	}
	if err := s.Clear(); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Clear: got %v, want ErrReadOnly", err)
	}
	if st, err := s.Stats(); err != nil || st.Servers != 1 || !strings.HasPrefix(st.Writes, "off: ") {
		t.Errorf("Stats: got %+v, %v; want 1 server, writes off", st, err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	_, err = Open(filepath.Join(mnt, "missing"), Options{})
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, syscall.EROFS) {
		t.Errorf("Open of a missing cache on a read-only file system: got %v, want ErrUnavailable and EROFS", err)
	}
	if matches, _ := filepath.Glob(dir + ".corrupt*"); len(matches) > 0 {
		t.Errorf("set aside: %v", matches)
	}
}

// TestUnwritableDirHelper is not a test: run with MCPFS_CACHE_EACCES_DIR
// set (as a user who may read that cache but not write it), it opens the
// cache and prints what it found.
func TestUnwritableDirHelper(t *testing.T) {
	dir := os.Getenv("MCPFS_CACHE_EACCES_DIR")
	if dir == "" {
		t.Skip("helper process for TestUnwritableDir; runs only when re-executed")
	}
	log := slog.New(slog.NewTextHandler(os.Stdout, nil))
	s, err := Open(dir, Options{Logger: log})
	if err != nil {
		fmt.Println("open:", err)
		return
	}
	_, ok := s.LoadTools("k")
	s.StoreTools("new", sampleTools(1))
	_, kept := s.LoadTools("new")
	fmt.Printf("readonly=%v loaded=%v kept=%v\n", s.ReadOnly(), ok, kept)
	if err := s.Close(); err != nil {
		fmt.Println("close:", err)
	}
}

// TestUnwritableDir opens, as another user, a cache that user may read but
// not write (EACCES): it is served read-only, with one warning.
func TestUnwritableDir(t *testing.T) {
	if os.Getenv("MCPFS_CACHE_EACCES_DIR") != "" {
		t.Skip("inside the helper")
	}
	if os.Geteuid() != 0 {
		t.Skip("running the helper as another user needs root")
	}
	// Directories the other user can traverse: the binary and the cache.
	base, err := os.MkdirTemp("", "mcpfs-eacces-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	bin := filepath.Join(base, "cache.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "cache")
	s := open(t, dir, Options{})
	s.StoreTools("k", sampleTools(2))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Readable by all, writable by root only.
	err = filepath.Walk(base, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.IsDir() {
			return os.Chmod(p, 0o755)
		}
		return os.Chmod(p, fi.Mode().Perm()|0o444)
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestUnwritableDirHelper$")
	cmd.Env = append(os.Environ(), "MCPFS_CACHE_EACCES_DIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	t.Logf("helper as uid 65534:\n%s", out)
	if err != nil {
		t.Skipf("cannot run a process as another user here: %v", err)
	}
	if !strings.Contains(string(out), "readonly=open "+dir) || !strings.Contains(string(out), "permission denied loaded=true kept=false") {
		t.Errorf("helper: got %q, want the cache read-only (permission denied), the listing loaded, nothing kept", out)
	}
	if n := strings.Count(string(out), "level=WARN"); n != 1 {
		t.Errorf("warnings: got %d, want 1", n)
	}
	if matches, _ := filepath.Glob(dir + ".corrupt*"); len(matches) > 0 {
		t.Errorf("set aside: %v", matches)
	}
}

// stillFullThenRoom opens the cache at dir while the tmpfs at mnt is still
// full (a read-only store or ErrUnavailable, never set aside), then makes
// room by removing the filler.
func stillFullThenRoom(t *testing.T, mnt, dir string) {
	t.Helper()
	s, err := Open(dir, Options{})
	t.Logf("disk still full: Open: %v", err)
	if err == nil {
		// A read-only store holds the directory's lock until closed.
		s.Close()
	}
	if err != nil && !errors.Is(err, ErrUnavailable) {
		t.Errorf("disk still full: Open: got %v, want a read-only store or ErrUnavailable", err)
	}
	if matches, _ := filepath.Glob(dir + ".corrupt*"); len(matches) > 0 {
		t.Fatalf("disk still full: the cache was set aside: %v", matches)
	}
	if err := os.Remove(filepath.Join(mnt, "filler")); err != nil {
		t.Fatal(err)
	}
}
