package exec

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCapture(t *testing.T) {
	tests := []struct {
		name      string
		writes    []string
		limit     int
		fileLimit int64
		wantOut   string // prefix of the kept output
		wantMark  string // "" when not cut
		wantFile  string // full content of the saved file
	}{
		{name: "short", writes: []string{"ab", "cd"}, limit: 10, fileLimit: 100, wantOut: "abcd"},
		{name: "exactly the limit", writes: []string{"abcde"}, limit: 5, fileLimit: 100, wantOut: "abcde"},
		{name: "cut in one write", writes: []string{"abcdefgh"}, limit: 5, fileLimit: 100, wantOut: "abcde", wantMark: "stdout truncated: 5 of 8 bytes shown; the full output is in ", wantFile: "abcdefgh"},
		{name: "cut across writes", writes: []string{"abc", "def", "ghi"}, limit: 4, fileLimit: 100, wantOut: "abcd", wantMark: "4 of 9 bytes", wantFile: "abcdefghi"},
		{name: "file capped", writes: []string{"abc", "def", "ghi"}, limit: 2, fileLimit: 5, wantOut: "ab", wantMark: "the first 5 bytes are in ", wantFile: "abcde"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCapture("stdout", t.TempDir(), tt.limit, tt.fileLimit)
			for _, w := range tt.writes {
				if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			out, file := c.finish()
			if !bytes.HasPrefix(out, []byte(tt.wantOut)) {
				t.Errorf("got %q, want it to start with %q", out, tt.wantOut)
			}
			if tt.wantMark == "" {
				if string(out) != tt.wantOut || file != "" {
					t.Errorf("got %q, file %q; want %q and no file", out, file, tt.wantOut)
				}
				return
			}
			if !strings.Contains(string(out), tt.wantMark) || !strings.Contains(string(out), file) {
				t.Errorf("got %q, want the marker %q naming %s", out, tt.wantMark, file)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != tt.wantFile {
				t.Errorf("file holds %q, want %q", data, tt.wantFile)
			}
		})
	}
}

func TestPanicMessages(t *testing.T) {
	tests := []struct {
		name, msg, stderr, want string
	}{
		{"no frames", "boom", "", "boom"},
		{"main", "nil map", "s.go:6:2: panic: main.main(...)\n", "s.go:6: nil map (in main.main)"},
		{"nested", "x", "s.go:6:2: panic: main.f(...)\ns.go:11:2: panic: main.main(...)\n", "s.go:6: x (in main.f; called from main.main)"},
		{"three deep", "x", "s.go:6:2: panic: main.f(...)\ns.go:9:2: panic: main.g(...)\ns.go:11:2: panic: main.main(...)\n", "s.go:6: x (in main.f; called from main.g, called from main.main)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withFrames(tt.msg, tt.stderr); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	got := panicLine("s.go:8:39: panic: main.main.func(...)\npanic: boom [recovered, repanicked]\n\ngoroutine 20 [running]:\n")
	if want := "s.go:8: boom (in main.main.func)"; got != want {
		t.Errorf("panicLine: got %q, want %q", got, want)
	}
}

// pruneOutput prunes dir as a run about to save output would, with active
// being written ("" for none).
func pruneOutput(dir string, now time.Time, active string) {
	d := &outDir{path: dir, keep: outputKeepBytes, active: map[string]int64{}}
	if active != "" {
		d.active[active] = 0
	}
	d.mu.Lock()
	d.prune(0, now)
	d.mu.Unlock()
}

// TestPruneOutput keeps the saved output of recent runs within a count,
// a size and an age, oldest first, and never a file a run is writing.
func TestPruneOutput(t *testing.T) {
	now := time.Now()
	type file struct {
		name string
		age  time.Duration
		size int
	}
	tests := []struct {
		name   string
		files  []file
		active string   // a file being written
		want   []string // what stays
	}{
		{name: "recent few stay", files: []file{{"run-1.stdout", time.Hour, 10}, {"run-2.stderr", 2 * time.Hour, 10}}, want: []string{"run-1.stdout", "run-2.stderr"}},
		{name: "too old goes", files: []file{{"run-1.stdout", time.Hour, 10}, {"run-2.stdout", 8 * 24 * time.Hour, 10}}, want: []string{"run-1.stdout"}},
		{name: "other files stay", files: []file{{"notes.txt", 30 * 24 * time.Hour, 10}, {"run-3.json", 30 * 24 * time.Hour, 10}}, want: []string{"notes.txt", "run-3.json"}},
		{name: "being written stays even when too big", files: []file{{"run-1.stdout", time.Minute, outputKeepBytes + 1}}, active: "run-1.stdout", want: []string{"run-1.stdout"}},
		{name: "finished and too big goes, however young", files: []file{{"run-1.stdout", time.Minute, outputKeepBytes + 1}}, want: nil},
		{name: "over the size the oldest go", files: []file{{"run-1.stdout", time.Hour, outputKeepBytes / 2}, {"run-2.stdout", 2 * time.Hour, outputKeepBytes / 2}, {"run-3.stdout", 3 * time.Hour, 1}}, want: []string{"run-1.stdout", "run-2.stdout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				p := filepath.Join(dir, f.name)
				fh, err := os.Create(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := fh.Truncate(int64(f.size)); err != nil { // sparse: no disk used
					t.Fatal(err)
				}
				fh.Close()
				if err := os.Chtimes(p, now.Add(-f.age), now.Add(-f.age)); err != nil {
					t.Fatal(err)
				}
			}
			pruneOutput(dir, now, tt.active)
			entries, _ := os.ReadDir(dir)
			var got []string
			for _, e := range entries {
				got = append(got, e.Name())
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("kept %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("count", func(t *testing.T) {
		dir := t.TempDir()
		for i := range outputKeepFiles + 10 {
			p := filepath.Join(dir, fmt.Sprintf("run-%03d.stdout", i))
			if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			at := now.Add(-time.Hour - time.Duration(i)*time.Minute) // run-000 is the newest
			os.Chtimes(p, at, at)
		}
		pruneOutput(dir, now, "")
		entries, _ := os.ReadDir(dir)
		if len(entries) != outputKeepFiles-1 {
			t.Fatalf("kept %d files, want %d (room for the one about to be saved)", len(entries), outputKeepFiles-1)
		}
		if entries[0].Name() != "run-000.stdout" || entries[len(entries)-1].Name() != fmt.Sprintf("run-%03d.stdout", outputKeepFiles-2) {
			t.Errorf("kept %s … %s, want the newest", entries[0].Name(), entries[len(entries)-1].Name())
		}
	})
}

// TestOutputDirBound: concurrent floods of output never take the saved
// output over the directory's bound, at any moment.
func TestOutputDirBound(t *testing.T) {
	dir := t.TempDir()
	d := openOutDir(dir)
	d.mu.Lock()
	d.keep = 1 << 20 // 1 MiB for the test
	d.mu.Unlock()
	var peak atomic.Int64
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() { // watch the directory's size while the floods write
		defer close(watched)
		for {
			// The scan holds the directory's lock, as a prune does: a
			// scan that saw a file before a prune removed it and another
			// after a write grew it would count bytes that were never on
			// disk together. Writes still land during the scan, within
			// what they reserved.
			var total int64
			d.mu.Lock()
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if info, err := e.Info(); err == nil {
					total += info.Size()
				}
			}
			d.mu.Unlock()
			if total > peak.Load() {
				peak.Store(total)
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	var wg sync.WaitGroup
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newCapture("stdout", dir, 1024, 1<<30)
			for range 64 { // 2 MiB each
				c.Write(chunk)
			}
			out, _ := c.finish()
			if !bytes.Contains(out, []byte("truncated")) {
				t.Errorf("a flood was not cut: %.200s", out)
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-watched
	if p := peak.Load(); p > 1<<20 {
		t.Errorf("the saved output reached %d bytes, over the bound of %d", p, 1<<20)
	}
}

// TestUnsafeOutputDir: output is saved only in a directory of the user's
// own; other directories are refused and the cut says so.
func TestUnsafeOutputDir(t *testing.T) {
	base := t.TempDir()
	link := filepath.Join(base, "link")
	os.Symlink(base, link)
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	tests := []struct {
		name, dir string
		wantErr   bool
	}{
		{"empty", "", true},
		{"relative", "output", true},
		{"symlink", link, true},
		{"missing is created", filepath.Join(base, "data", "output"), false},
		{"too open is narrowed", open, false},
	}
	if os.Geteuid() == 0 {
		other := filepath.Join(base, "other")
		os.Mkdir(other, 0o700)
		os.Chown(other, 65534, 65534)
		tests = append(tests, struct {
			name, dir string
			wantErr   bool
		}{"another user's", other, true})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckOutputDir(tt.dir)
			if tt.wantErr {
				if !errors.Is(err, ErrOutputDir) {
					t.Fatalf("got %v, want ErrOutputDir", err)
				}
				c := newCapture("stdout", tt.dir, 2, 100)
				c.Write([]byte("abcdef"))
				out, file := c.finish()
				if file != "" || !strings.Contains(string(out), "could not be saved") {
					t.Errorf("got %q, file %q: want a cut that says the output was not saved", out, file)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(tt.dir)
			if err != nil || info.Mode().Perm() != 0o700 {
				t.Errorf("mode %v (%v), want 0700", info.Mode(), err)
			}
		})
	}
}
