package fuse

import (
	"bytes"
	"errors"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpfs/mcpfs/skills"
)

// skillMount mounts a tree with server alpha and a writable skills/
// backed by a store in a temp dir.
func skillMount(t *testing.T) (*Mounted, *skills.Store) {
	t.Helper()
	store, err := skills.Open(t.TempDir(), skills.Options{})
	if err != nil {
		t.Fatal(err)
	}
	skipWithoutFuse(t)
	dir := t.TempDir()
	m, err := Mount(dir, tree(server("alpha", "search")), Options{Skills: store})
	if err != nil {
		if errors.Is(err, syscall.EPERM) {
			t.Skipf("cannot mount FUSE here: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Unmount(); err != nil {
			t.Errorf("Unmount: %v", err)
		}
		m.Wait()
	})
	return m, store
}

const (
	greetMD    = "---\nname: greet\ndescription: Greets people by name.\n---\n\nCall greet.Hello(name).\n"
	greetGo    = "package greet\n\n// Hello greets n.\nfunc Hello(n string) string { return \"hello \" + n }\n"
	greetGoV2  = "package greet\n\n// Hello greets n.\nfunc Hello(n string) string { return \"hi \" + n }\n"
	greetGoBad = "package greet\n\nfunc Hello(n string) string { return 42 }\n"
)

func savedFile(t *testing.T, s *skills.Store, name, file string) string {
	t.Helper()
	sk, ok := s.Get(name)
	if !ok {
		t.Fatalf("skill %s is not saved", name)
	}
	return string(sk.Files[file])
}

// TestSkillsThroughMount saves, updates, refuses and removes skills with
// real file system calls on the mount.
func TestSkillsThroughMount(t *testing.T) {
	m, store := skillMount(t)
	dir := filepath.Join(m.Dir(), "skills", "greet")

	// A new skill written one file at a time: incomplete until it has
	// SKILL.md and a Go file; closing succeeds meanwhile.
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatalf("mkdir: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(greetMD), 0o644); err != nil {
		t.Fatalf("write SKILL.md: %v", err)
	}
	if msg, _ := os.ReadFile(filepath.Join(dir, "ERRORS.txt")); !strings.Contains(string(msg), "not saved yet: it needs a Go file") {
		t.Errorf("ERRORS.txt of an incomplete skill: %q", msg)
	}
	if err := os.WriteFile(filepath.Join(dir, "greet.go"), []byte(greetGo), 0o644); err != nil {
		t.Fatalf("write greet.go: %v", err)
	}
	if got := savedFile(t, store, "greet", "greet.go"); got != greetGo {
		t.Errorf("saved greet.go = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "ERRORS.txt")); !os.IsNotExist(err) {
		t.Errorf("ERRORS.txt after a good save: %v", err)
	}
	if _, ok := m.Tree().Skill("greet"); !ok {
		t.Error("the served tree lacks the saved skill")
	}
	eventually(t, "README lists the skill", func() error {
		readme, _ := os.ReadFile(filepath.Join(m.Dir(), "README.md"))
		if !bytes.Contains(readme, []byte("skills/greet/ — Greets people by name.")) {
			return errors.New("not yet")
		}
		return nil
	})

	// An invalid save: close fails, ERRORS.txt says where, version 1 stays.
	err := os.WriteFile(filepath.Join(dir, "greet.go"), []byte(greetGoBad), 0o644)
	if !errors.Is(err, syscall.EIO) {
		t.Fatalf("writing an invalid greet.go: %v, want EIO", err)
	}
	msg, _ := os.ReadFile(filepath.Join(dir, "ERRORS.txt"))
	if !strings.Contains(string(msg), "skills/greet/greet.go:3:38: cannot use 42") || !strings.Contains(string(msg), "Version 1") {
		t.Errorf("ERRORS.txt:\n%s", msg)
	}
	if got := savedFile(t, store, "greet", "greet.go"); got != greetGo {
		t.Errorf("after a refused save the store has %q", got)
	}
	if sk, _ := m.Tree().Skill("greet"); string(sk.Files["greet.go"]) != greetGo {
		t.Error("after a refused save the tree serves the refused file")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "greet.go")); string(got) != greetGoBad {
		t.Errorf("the working copy should keep what was written, got %q", got)
	}

	// Fixed with cp (which reports the failed close too).
	src := filepath.Join(t.TempDir(), "greet.go")
	os.WriteFile(src, []byte(greetGoBad), 0o644)
	if out, err := osexec.Command("cp", src, filepath.Join(dir, "greet.go")).CombinedOutput(); err == nil {
		t.Errorf("cp of an invalid file succeeded: %s", out)
	}
	os.WriteFile(src, []byte(greetGoV2), 0o644)
	if out, err := osexec.Command("cp", src, filepath.Join(dir, "greet.go")).CombinedOutput(); err != nil {
		t.Fatalf("cp of a valid file: %v: %s", err, out)
	}
	if sk, _ := store.Get("greet"); sk.Version != 2 || string(sk.Files["greet.go"]) != greetGoV2 {
		t.Errorf("after cp: version %d, %q", sk.Version, sk.Files["greet.go"])
	}
	if _, err := os.Stat(filepath.Join(dir, "ERRORS.txt")); !os.IsNotExist(err) {
		t.Errorf("ERRORS.txt after a good save: %v", err)
	}

	// An editor's save: a scratch file renamed onto the real one.
	tmp := filepath.Join(dir, ".greet.go.tmp")
	os.WriteFile(tmp, []byte(greetGoBad), 0o644)
	if err := os.Rename(tmp, filepath.Join(dir, "greet.go")); !errors.Is(err, syscall.EIO) {
		t.Errorf("renaming an invalid file into place: %v, want EIO", err)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Errorf("the refused rename moved the file: %v", err)
	}
	os.WriteFile(tmp, []byte(greetGo), 0o644)
	if err := os.Rename(tmp, filepath.Join(dir, "greet.go")); err != nil {
		t.Fatalf("renaming a valid file into place: %v", err)
	}
	if sk, _ := store.Get("greet"); sk.Version != 3 {
		t.Errorf("after the rename: version %d, want 3", sk.Version)
	}

	// Nothing outside skills/ became writable.
	if err := os.WriteFile(filepath.Join(m.Dir(), "servers", "alpha", "x.go"), nil, 0o644); !errors.Is(err, syscall.EROFS) {
		t.Errorf("creating a file in servers/alpha: %v, want EROFS", err)
	}
	if err := os.WriteFile(filepath.Join(m.Dir(), "skills", "loose.go"), nil, 0o644); err == nil {
		t.Error("creating a file directly in skills/ succeeded")
	}
	if err := os.WriteFile(filepath.Join(dir, "ERRORS.txt"), nil, 0o644); err == nil {
		t.Error("writing ERRORS.txt succeeded")
	}
}

// TestSkillFolderRename saves a whole folder written in a hidden scratch
// folder by renaming it into place, and removes a skill with rm -r.
func TestSkillFolderRename(t *testing.T) {
	m, store := skillMount(t)
	root := filepath.Join(m.Dir(), "skills")
	scratch := filepath.Join(root, ".pair")
	if err := os.Mkdir(scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"SKILL.md": "---\nname: pair\ndescription: Two files that need each other.\n---\n",
		"a.go":     "package pair\n\n// A uses B.\nfunc A() string { return b() }\n",
		"b.go":     "package pair\n\nfunc b() string { return \"b\" }\n",
	}
	// a.go alone would not type-check; in a hidden folder nothing is
	// validated until the rename.
	for _, n := range []string{"SKILL.md", "a.go", "b.go"} {
		if err := os.WriteFile(filepath.Join(scratch, n), []byte(files[n]), 0o644); err != nil {
			t.Fatalf("write %s: %v", n, err)
		}
	}
	if err := os.Rename(scratch, filepath.Join(root, "pair")); err != nil {
		t.Fatalf("rename .pair → pair: %v", err)
	}
	if sk, ok := store.Get("pair"); !ok || len(sk.Files) != 3 {
		t.Fatalf("pair not saved: %+v", sk)
	}
	entries, _ := os.ReadDir(root)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "pair" {
		t.Errorf("skills/ lists %v, want [pair]", names)
	}

	// An invalid folder is refused and stays where it was.
	bad := filepath.Join(root, ".bad")
	os.Mkdir(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "SKILL.md"), []byte("---\nname: other\ndescription: x\n---\n"), 0o644)
	os.WriteFile(filepath.Join(bad, "x.go"), []byte("package other\n\nvar X int = \"s\"\n"), 0o644)
	if err := os.Rename(bad, filepath.Join(root, "other")); !errors.Is(err, syscall.EIO) {
		t.Errorf("renaming an invalid folder: %v, want EIO", err)
	}
	msg, _ := os.ReadFile(filepath.Join(bad, "ERRORS.txt"))
	if !strings.Contains(string(msg), "not saved as skills/other") || !strings.Contains(string(msg), "skills/other/x.go:3:13") {
		t.Errorf("ERRORS.txt of the refused folder: %q", msg)
	}

	// rm -r removes a skill: a version that marks it removed.
	if err := os.RemoveAll(filepath.Join(root, "pair")); err != nil {
		t.Fatalf("rm -r skills/pair: %v", err)
	}
	if _, ok := store.Get("pair"); ok {
		t.Error("pair still saved after rm -r")
	}
	log, err := store.Log("pair")
	if err != nil || len(log) == 0 || !log[len(log)-1].Removed {
		t.Errorf("log after rm -r: %+v, %v", log, err)
	}
	if _, err := os.Stat(filepath.Join(root, "pair")); !os.IsNotExist(err) {
		t.Errorf("skills/pair after rm -r: %v", err)
	}
}

// TestSkillsReadOnlyWithoutStore: with no store, skills/ stays read only.
func TestSkillsReadOnlyWithoutStore(t *testing.T) {
	m := testMount(t, tree(server("alpha", "search")))
	if err := os.Mkdir(filepath.Join(m.Dir(), "skills", "x"), 0o755); !errors.Is(err, syscall.EROFS) {
		t.Errorf("mkdir skills/x: %v, want EROFS", err)
	}
}
