package exec

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
		{"main", "nil map", "s.go:6:2: panic: main.main(...)\n", "nil map (panic in main.main, whose body starts at s.go:6)"},
		{"nested", "x", "s.go:6:2: panic: main.f(...)\ns.go:11:2: panic: main.main(...)\n", "x (panic in main.f, whose body starts at s.go:6; called from main.main)"},
		{"three deep", "x", "s.go:6:2: panic: main.f(...)\ns.go:9:2: panic: main.g(...)\ns.go:11:2: panic: main.main(...)\n", "x (panic in main.f, whose body starts at s.go:6; called from main.g, called from main.main)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withFrames(tt.msg, tt.stderr); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	got := panicLine("s.go:8:39: panic: main.main.func(...)\npanic: boom [recovered, repanicked]\n\ngoroutine 20 [running]:\n")
	if want := "boom (panic in main.main.func, whose body starts at s.go:8)"; got != want {
		t.Errorf("panicLine: got %q, want %q", got, want)
	}
}

// TestPruneOutput keeps the saved output of recent runs within a count,
// a size and an age, oldest first, and never a file a run may still write.
func TestPruneOutput(t *testing.T) {
	now := time.Now()
	type file struct {
		name string
		age  time.Duration
		size int
	}
	tests := []struct {
		name  string
		files []file
		want  []string // what stays
	}{
		{name: "recent few stay", files: []file{{"run-1.stdout", time.Hour, 10}, {"run-2.stderr", 2 * time.Hour, 10}}, want: []string{"run-1.stdout", "run-2.stderr"}},
		{name: "too old goes", files: []file{{"run-1.stdout", time.Hour, 10}, {"run-2.stdout", 8 * 24 * time.Hour, 10}}, want: []string{"run-1.stdout"}},
		{name: "other files stay", files: []file{{"notes.txt", 30 * 24 * time.Hour, 10}, {"run-3.json", 30 * 24 * time.Hour, 10}}, want: []string{"notes.txt", "run-3.json"}},
		{name: "in use stays even when too big", files: []file{{"run-1.stdout", time.Minute, outputKeepBytes + 1}}, want: []string{"run-1.stdout"}},
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
			pruneOutput(dir, now)
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
		pruneOutput(dir, now)
		entries, _ := os.ReadDir(dir)
		if len(entries) != outputKeepFiles-1 {
			t.Fatalf("kept %d files, want %d (room for the one about to be saved)", len(entries), outputKeepFiles-1)
		}
		if entries[0].Name() != "run-000.stdout" || entries[len(entries)-1].Name() != fmt.Sprintf("run-%03d.stdout", outputKeepFiles-2) {
			t.Errorf("kept %s … %s, want the newest", entries[0].Name(), entries[len(entries)-1].Name())
		}
	})
}
