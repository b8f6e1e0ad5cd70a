package cache

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// TestFullPastReserveHelper is not a test: run with
// MCPFS_CACHE_EXHAUST_DIR set, it opens a cache there, stores listings,
// then lets another writer take every byte of the disk, the cache's
// reserve included (as a process that takes more than the reserve within
// one write would), and writes to Badger past the guard: 3 MiB in the LSM
// tree and 10 MiB in the value log, so that Badger must make memtables and
// a value log file (past 8 MiB) and finds no room for them. Then writes, reads and
// stats through the Store, space returns, more writes, and Close.
// "survived" means Badger did not end the process.
func TestFullPastReserveHelper(t *testing.T) {
	dir := os.Getenv("MCPFS_CACHE_EXHAUST_DIR")
	if dir == "" {
		t.Skip("helper process for TestFullPastReserve; runs only when re-executed")
	}
	s, ct := openStored(dir, slog.LevelWarn, 20)
	// The other writer takes the reserve too.
	if err := os.Remove(filepath.Join(dir, "cache", reserveName)); err != nil {
		fmt.Println("remove the reserve:", err)
		os.Exit(2)
	}
	n, err := fill(filepath.Join(dir, "filler"))
	fmt.Println("filled", n, err)
	fds := openFiles()
	small := []byte(strings.Repeat("v", 4<<10))  // in the LSM tree: fills memtables
	large := []byte(strings.Repeat("w", 64<<10)) // in the value log
	var (
		failed   int
		firstErr error
	)
	past := func(key string, v []byte) {
		err := s.db.Update(func(txn *badger.Txn) error {
			return txn.Set([]byte(key), v)
		})
		if err != nil {
			failed++
			if firstErr == nil {
				firstErr = err
			}
			s.writeFailed("a write past the guard", err)
		}
	}
	for i := range 768 {
		past("past-small-"+strconv.Itoa(i), small)
	}
	for i := range 160 {
		past("past-large-"+strconv.Itoa(i), large)
	}
	fmt.Printf("writes past the guard: %d failed, first error: %v\n", failed, firstErr)
	fmt.Printf("descriptors opened by them: %d\n", openFiles()-fds)
	s.StoreTools("after", ct)
	loaded := 0
	for i := range 20 {
		if _, ok := s.LoadTools("k" + strconv.Itoa(i)); ok {
			loaded++
		}
	}
	fmt.Printf("loaded %d of 20 on the full disk\n", loaded)
	st, err := s.Stats()
	fmt.Printf("stats writes=%q err=%v\n", st.Writes, err)
	if os.Getenv("MCPFS_CACHE_EXHAUST_EXIT") != "" {
		fmt.Println("survived; exiting with the disk full, the cache open")
		os.Exit(0)
	}
	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		fmt.Println("remove the filler:", err)
		os.Exit(2)
	}
	s.StoreTools("room again", ct)
	_, kept := s.LoadTools("room again")
	// In the value log, after the writes it refused.
	s.StoreResult("room again", json.RawMessage(`"`+strings.Repeat("x", 64<<10)+`"`), time.Hour)
	_, keptResult := s.LoadResult("room again")
	fmt.Printf("kept after space returned: %v, result %v\n", kept, keptResult)
	if err := s.Close(); err != nil {
		fmt.Println("close:", err)
	}
	fmt.Println("survived")
}

// openFiles counts the process's open descriptors, after a collection
// (an *os.File dropped unclosed is closed by its finalizer).
func openFiles() int {
	runtime.GC()
	runtime.GC()
	fds, _ := os.ReadDir("/proc/self/fd")
	return len(fds)
}

// runExhaust runs TestFullPastReserveHelper on a new 96 MiB tmpfs with
// env added, checks that it met the full disk inside Badger, said so
// once, served the listings and survived, and returns the mount.
func runExhaust(t *testing.T, env ...string) string {
	t.Helper()
	mnt := mountTmpfs(t, "96m")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFullPastReserveHelper$", "-test.v")
	cmd.Env = append(append(os.Environ(), "MCPFS_CACHE_EXHAUST_DIR="+mnt), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("helper:\n%s", head(string(out), 4000))
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("the helper was killed by %v", ws.Signal())
	}
	if err != nil || !strings.Contains(string(out), "survived") {
		t.Fatalf("helper: %v, want it to meet the full disk inside Badger and survive", err)
	}
	if strings.Contains(string(out), "writes past the guard: 0 failed") {
		t.Errorf("no write past the guard failed: Badger never met the full disk and the test proved nothing")
	}
	if n := strings.Count(string(out), "until there is room"); n != 1 {
		t.Errorf("full-disk warnings: got %d, want 1", n)
	}
	if n := strings.Count(string(out), "level=WARN"); n != 1 {
		t.Errorf("warnings: got %d, want 1 (Badger's own reports of the full disk at debug level)", n)
	}
	if strings.Contains(string(out), "descriptors opened by them: ") && !strings.Contains(string(out), "descriptors opened by them: 0\n") {
		t.Errorf("the failed writes left descriptors open")
	}
	if !strings.Contains(string(out), "loaded 20 of 20 on the full disk") {
		t.Errorf("the listings stored before were not all served while the disk was full")
	}
	if !strings.Contains(string(out), "survived; exiting") && !strings.Contains(string(out), "kept after space returned: true, result true") {
		t.Errorf("with room again, a listing and a result were not kept")
	}
	if !strings.Contains(string(out), `stats writes="off: `) {
		t.Errorf("writes stay on after Badger met the full disk")
	}
	return mnt
}

// TestFullPastReserve: another process takes more than the cache's
// reserve while Badger writes, so Badger itself meets a full disk making
// its memtables and value log files. The patched Badger
// (cmd/internal/thirdparty/badger) returns those as errors instead of
// ending the process; the cache says once that the disk is full, keeps
// what it held, and the listings stored before are all there afterwards.
func TestFullPastReserve(t *testing.T) {
	if os.Getenv("MCPFS_CACHE_EXHAUST_DIR") != "" {
		t.Skip("inside the helper")
	}
	mnt := runExhaust(t)
	checkListings(t, filepath.Join(mnt, "cache"), "after space returned", 20, false)
	s := open(t, filepath.Join(mnt, "cache"), Options{})
	defer s.Close()
	if r, ok := s.LoadResult("room again"); !ok || len(r) != 64<<10+2 {
		t.Errorf("the result written to the value log once there was room again: got %d bytes, %v; want it whole", len(r), ok)
	}
}

// TestFullPastReserveExit is TestFullPastReserve with a process that ends
// while the disk is still full, its cache open (as after a kill): the
// memtable Badger could not make leaves no empty file behind that would
// make the next Open fail and the cache be set aside. With the disk still
// full the cache is unavailable or read-only and untouched; once there is
// room it opens with the listings stored before.
func TestFullPastReserveExit(t *testing.T) {
	if os.Getenv("MCPFS_CACHE_EXHAUST_DIR") != "" {
		t.Skip("inside the helper")
	}
	mnt := runExhaust(t, "MCPFS_CACHE_EXHAUST_EXIT=1")
	dir := filepath.Join(mnt, "cache")
	stillFullThenRoom(t, mnt, dir)
	checkListings(t, dir, "room again", 20, false)
}
