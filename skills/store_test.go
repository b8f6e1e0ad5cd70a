package skills_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpfs/mcpfs/skills"
)

func TestStoreVersions(t *testing.T) {
	ctx := context.Background()
	tree := baseTree()
	dir := t.TempDir()
	s := openStore(t, dir)

	v1 := skillFiles("greet", "func Hello(n string) string { return \"hello \" + n }\n")
	v2 := skillFiles("greet", "func Hello(n string) string { return \"hi \" + n }\n")
	if sk, err := s.Save(ctx, tree, "greet", v1, "cli"); err != nil || sk.Version != 1 {
		t.Fatalf("Save v1: %+v, %v", sk, err)
	}
	if sk, err := s.Save(ctx, tree, "greet", v2, "mount"); err != nil || sk.Version != 2 {
		t.Fatalf("Save v2: %+v, %v", sk, err)
	}
	// The same files again: no new version.
	if sk, err := s.Save(ctx, tree, "greet", v2, "mount"); err != nil || sk.Version != 2 {
		t.Fatalf("Save v2 again: %+v, %v", sk, err)
	}
	// An invalid save is refused; version 2 stays.
	bad := skillFiles("greet", "func Hello(n string) string { return 1 }\n")
	if _, err := s.Save(ctx, tree, "greet", bad, "cli"); !errors.Is(err, skills.ErrInvalid) || !strings.Contains(err.Error(), "skills/greet/greet.go:3:") {
		t.Fatalf("invalid save: %v", err)
	}
	if sk, _ := s.Get("greet"); sk.Version != 2 || !bytes.Equal(sk.Files["greet.go"], v2["greet.go"]) {
		t.Fatalf("after a refused save: version %d", sk.Version)
	}
	plain, _ := os.ReadFile(filepath.Join(dir, "greet", "greet.go"))
	if !bytes.Equal(plain, v2["greet.go"]) {
		t.Errorf("plain folder has %q, want version 2", plain)
	}

	// Restore version 1 as version 3.
	if sk, err := s.Restore(ctx, tree, "greet", 1); err != nil || sk.Version != 3 || !bytes.Equal(sk.Files["greet.go"], v1["greet.go"]) {
		t.Fatalf("Restore 1: %+v, %v", sk, err)
	}
	// Remove, then restore the removed skill.
	if v, err := s.Remove(ctx, "greet", ""); err != nil || v.Version != 4 || !v.Removed {
		t.Fatalf("Remove: %+v, %v", v, err)
	}
	if _, ok := s.Get("greet"); ok {
		t.Error("Get found a removed skill")
	}
	if _, err := os.Stat(filepath.Join(dir, "greet")); !os.IsNotExist(err) {
		t.Errorf("the plain folder of a removed skill: %v", err)
	}
	if _, err := s.Restore(ctx, tree, "greet", 4); err == nil {
		t.Error("restoring the removal succeeded")
	}
	if sk, err := s.Restore(ctx, tree, "greet", 2); err != nil || sk.Version != 5 {
		t.Fatalf("Restore 2: %+v, %v", sk, err)
	}

	log, err := s.Log("greet")
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, v := range log {
		notes = append(notes, v.Note)
	}
	want := "cli|mount|restored from version 1|removed|restored from version 2"
	if got := strings.Join(notes, "|"); got != want {
		t.Errorf("log notes %q, want %q", got, want)
	}

	// Another process sees it all.
	s2 := openStore(t, dir)
	if sk, ok := s2.Get("greet"); !ok || sk.Version != 5 || sk.Description != "Test skill greet." {
		t.Errorf("reopened: %+v, %v", sk, ok)
	}
	if _, err := s.Log("nope"); !errors.Is(err, skills.ErrNotFound) {
		t.Errorf("Log of a missing skill: %v", err)
	}
}

func TestStoreInUse(t *testing.T) {
	ctx := context.Background()
	tree := baseTree()
	s := openStore(t, t.TempDir())
	if _, err := s.Save(ctx, tree, "base", skillFiles("base", "func Twice(s string) string { return s + s }\n"), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, tree, "user", skillFiles("user", "import \"mcpfs/skills/base\"\n\nfunc Four(s string) string { return base.Twice(base.Twice(s)) }\n"), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, tree, "base", skillFiles("base", "func Other() {}\n"), ""); err == nil || !strings.Contains(err.Error(), "skill user imports base") {
		t.Errorf("breaking change to an imported skill: %v", err)
	}
	if _, err := s.Remove(ctx, "base", ""); !errors.Is(err, skills.ErrInUse) || !strings.Contains(err.Error(), "user") {
		t.Errorf("removing an imported skill: %v", err)
	}
}

// TestStoreRepair: a plain folder that lags behind the history (a crash
// between the two writes) is brought up to date on Open; one edited by
// hand is left alone.
func TestStoreRepair(t *testing.T) {
	ctx := context.Background()
	tree := baseTree()
	dir := t.TempDir()
	s := openStore(t, dir)
	v1 := skillFiles("a", "func F() int { return 1 }\n")
	v2 := skillFiles("a", "func F() int { return 2 }\n")
	for _, files := range []map[string][]byte{v1, v2} {
		if _, err := s.Save(ctx, tree, "a", files, ""); err != nil {
			t.Fatal(err)
		}
	}
	// As if the crash came before the folder was replaced.
	if err := os.WriteFile(filepath.Join(dir, "a", "a.go"), v1["a.go"], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".tmp-123"), 0o755); err != nil {
		t.Fatal(err)
	}
	openStore(t, dir)
	if got, _ := os.ReadFile(filepath.Join(dir, "a", "a.go")); !bytes.Equal(got, v2["a.go"]) {
		t.Errorf("a lagging folder was not repaired: %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ".tmp-123")); !os.IsNotExist(err) {
		t.Errorf("temporary dir left: %v", err)
	}
	// Edited by hand: kept as it is.
	edited := []byte("package a\n\nfunc F() int { return 42 }\n")
	os.WriteFile(filepath.Join(dir, "a", "a.go"), edited, 0o644)
	s3 := openStore(t, dir)
	if got, _ := os.ReadFile(filepath.Join(dir, "a", "a.go")); !bytes.Equal(got, edited) {
		t.Errorf("a hand-edited folder was overwritten: %q", got)
	}
	if sk, _ := s3.Get("a"); !bytes.Equal(sk.Files["a.go"], v2["a.go"]) {
		t.Errorf("the store does not use the saved version")
	}
}
