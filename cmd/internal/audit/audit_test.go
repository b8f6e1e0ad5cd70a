package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAppendRead(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, r := range []Record{
		{Time: t0, Server: "docs", Tool: "search", Outcome: "ok"},
		{Time: t0.Add(time.Hour), Server: "docs", Tool: "read", Outcome: "tool error"},
		{Time: t0.Add(2 * time.Hour), Server: "github", Tool: "search", Outcome: "denied", Error: "no"},
	} {
		r.Run = fmt.Sprint(i)
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	// A line cut short by a crash is skipped.
	os.WriteFile(filepath.Join(dir, "junk"), nil, 0o600)
	f, _ := os.OpenFile(filepath.Join(dir, File), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"time":"2026-01-02T`)
	f.Close()

	tests := []struct {
		f    Filter
		want string
	}{
		{Filter{}, "0 1 2"},
		{Filter{Server: "docs"}, "0 1"},
		{Filter{Tool: "search"}, "0 2"},
		{Filter{Since: t0.Add(30 * time.Minute)}, "1 2"},
		{Filter{Server: "docs", Tool: "search", Since: t0.Add(time.Minute)}, ""},
	}
	for _, tt := range tests {
		recs, err := Read(dir, tt.f)
		if err != nil {
			t.Fatal(err)
		}
		var runs []string
		for _, r := range recs {
			runs = append(runs, r.Run)
		}
		if got := strings.Join(runs, " "); got != tt.want {
			t.Errorf("Read(%+v): got runs %q, want %q", tt.f, got, tt.want)
		}
	}
	if fi, _ := os.Stat(filepath.Join(dir, File)); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode())
	}
}

func TestRotate(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, Options{MaxSize: 1000, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 100 {
		if err := l.Append(Record{Time: time.Now(), Run: fmt.Sprint(i), Server: "s", Tool: "t", Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(names) != 3 {
		t.Errorf("files: got %q, want calls.jsonl and 2 rotated", names)
	}
	for _, n := range names {
		if fi, _ := os.Stat(n); fi.Size() > 1000 {
			t.Errorf("%s: %d bytes, over the bound", n, fi.Size())
		}
	}
	recs, _ := Read(dir, Filter{})
	if len(recs) == 0 || recs[len(recs)-1].Run != "99" {
		t.Fatalf("read %d records, last %+v", len(recs), recs[len(recs)-1])
	}
	for i := 1; i < len(recs); i++ {
		if recs[i-1].Run >= recs[i].Run && len(recs[i-1].Run) == len(recs[i].Run) {
			t.Fatalf("out of order: %s then %s", recs[i-1].Run, recs[i].Run)
		}
	}
	// A smaller Keep drops the older files at the next rotation.
	l.SetOptions(Options{MaxSize: 1000, Keep: -1})
	for i := range 20 {
		l.Append(Record{Time: time.Now(), Run: fmt.Sprint(i), Server: "s", Tool: "t", Outcome: "ok"})
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 1 {
		t.Errorf("Keep -1: files %q, want calls.jsonl only", names)
	}
}

func TestHashArgs(t *testing.T) {
	a, b := HashArgs([]byte(`{"x":1}`)), HashArgs([]byte(`{"x":2}`))
	if a == b || !strings.HasPrefix(a, "sha256:") || len(a) != len("sha256:")+32 {
		t.Errorf("got %q and %q", a, b)
	}
}

// TestTwoWriters: two logs on one directory (an engine and a --no-engine
// command) keep every record and the size bound.
func TestTwoWriters(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir, Options{MaxSize: 2000, Keep: 50})
	b, _ := Open(dir, Options{MaxSize: 2000, Keep: 50})
	defer a.Close()
	defer b.Close()
	for i := range 100 {
		l := a
		if i%3 == 0 {
			l = b
		}
		if err := l.Append(Record{Time: time.Now(), Run: fmt.Sprint(i), Server: "s", Tool: "t", Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	recs, _ := Read(dir, Filter{})
	if len(recs) != 100 {
		t.Errorf("read %d records, want 100", len(recs))
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, n := range names {
		if fi, _ := os.Stat(n); fi.Size() > 2000 {
			t.Errorf("%s: %d bytes, over the bound", n, fi.Size())
		}
	}
}
