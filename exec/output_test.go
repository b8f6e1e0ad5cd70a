package exec

import (
	"bytes"
	"os"
	"strings"
	"testing"
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
		{"main", "nil map", "s.go:6:2: panic: main.main(...)\n", "s.go:6:2: nil map (panic in main.main)"},
		{"nested", "x", "s.go:6:2: panic: main.f(...)\ns.go:11:2: panic: main.main(...)\n", "s.go:6:2: x (panic in main.f, called from main.main)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withFrames(tt.msg, tt.stderr); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	got := panicLine("s.go:8:39: panic: main.main.func(...)\npanic: boom [recovered, repanicked]\n\ngoroutine 20 [running]:\n")
	if want := "s.go:8:39: boom (panic in main.main.func)"; got != want {
		t.Errorf("panicLine: got %q, want %q", got, want)
	}
}
