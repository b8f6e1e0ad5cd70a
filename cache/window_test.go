package cache

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// TestFullBetweenCheckHelper is not a test: run with
// MCPFS_CACHE_WINDOW_DIR set, it opens a cache there, stores listings,
// fills the disk to the last byte (as another process would, right after
// the guard's check), then writes to Badger directly, past the guard, 3
// MiB: enough for Badger to make files of its own, two new memtables (its
// write-ahead log) and the tables of their flush. Then a write through
// the guard. "survived" means no SIGBUS (nor Badger's own fatal assert)
// ended it.
func TestFullBetweenCheckHelper(t *testing.T) {
	dir := os.Getenv("MCPFS_CACHE_WINDOW_DIR")
	if dir == "" {
		t.Skip("helper process for TestFullBetweenCheck; runs only when re-executed")
	}
	s, ct := openStored(dir, slog.LevelWarn, 20)
	n, err := fill(filepath.Join(dir, "filler"))
	fmt.Println("filled", n, err)
	value := []byte(strings.Repeat("v", 4<<10)) // in the LSM tree: fills memtables
	var (
		failed   int
		firstErr error
	)
	for i := range 768 { // 3 MiB: memtables of 1 MiB
		err := s.db.Update(func(txn *badger.Txn) error {
			return txn.Set([]byte("past-the-guard-"+strconv.Itoa(i)), value)
		})
		if err != nil {
			failed++
			if firstErr == nil {
				firstErr = err
			}
		}
	}
	fmt.Printf("writes past the guard: %d failed, first error: %v\n", failed, firstErr)
	s.StoreTools("after", ct)
	st, err := s.Stats()
	fmt.Printf("stats writes=%q err=%v\n", st.Writes, err)
	os.Remove(filepath.Join(dir, "filler"))
	if err := s.Close(); err != nil {
		fmt.Println("close:", err)
	}
	fmt.Println("survived")
}

// TestFullBetweenCheck closes the window the guard leaves: the disk fills
// between its free-space check and a file Badger creates or grows on its
// own. Badger's mapped files get real blocks when they are made
// (fallocate, in the patched ristretto z package: see
// cmd/internal/thirdparty), so a full disk is an error Badger returns or
// logs, never a SIGBUS; and the listings stored before are all there
// afterwards.
func TestFullBetweenCheck(t *testing.T) {
	if os.Getenv("MCPFS_CACHE_WINDOW_DIR") != "" {
		t.Skip("inside the helper")
	}
	mnt := mountTmpfs(t, "96m")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFullBetweenCheckHelper$", "-test.v")
	cmd.Env = append(os.Environ(), "MCPFS_CACHE_WINDOW_DIR="+mnt)
	out, err := cmd.CombinedOutput()
	t.Logf("helper:\n%s", head(string(out), 3000))
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("the helper was killed by %v: a store into a mapped file of a full disk", ws.Signal())
	}
	if err != nil || !strings.Contains(string(out), "survived") {
		t.Fatalf("helper: %v, want it to write past the guard on a full disk and survive", err)
	}
	// Badger met the full disk making a file of its own, took the
	// reserve for it (said once), and no write failed.
	if n := strings.Count(string(out), "its reserve is given back for it"); n != 1 {
		t.Errorf("warnings that the reserve was given back to Badger: got %d, want 1 (else Badger never met the full disk and the test proved nothing)", n)
	}
	if !strings.Contains(string(out), "writes past the guard: 0 failed") {
		t.Errorf("writes past the guard failed; want the reserve to hold them")
	}
	if !strings.Contains(string(out), `stats writes="off: `) {
		t.Errorf("the guard lets writes in on a full disk")
	}
	checkListings(t, filepath.Join(mnt, "cache"), "after the window", 20, false)
}

func head(s string, n int) string { return s[:min(len(s), n)] }
