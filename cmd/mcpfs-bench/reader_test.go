package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain lets the test binary serve as the reader process the FUSE
// figures are measured from.
func TestMain(m *testing.M) {
	if code, ran := readerMain(); ran {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func TestReaderProcess(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.go")
	if err := os.WriteFile(p, []byte("package f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"stat", "read"} {
		d, err := timeInChild(op, p, 50)
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		if d <= 0 {
			t.Errorf("%s: %v per operation, want a positive time", op, d)
		}
	}
	if _, err := timeInChild("read", filepath.Join(t.TempDir(), "missing.go"), 5); err == nil {
		t.Error("reading a missing file from the reader process did not fail")
	}
	if _, err := timeInChild("write", p, 5); err == nil {
		t.Error("an unknown operation did not fail")
	}
	for _, bad := range []string{"stat", "stat\np", "stat\np\nzero", "stat\np\n-1"} {
		if _, _, _, err := parseReaderSpec(bad); err == nil {
			t.Errorf("parseReaderSpec(%q) did not fail", bad)
		}
	}
}
