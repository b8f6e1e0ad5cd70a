package workcopy

import (
	"context"
	"errors"
	iofs "io/fs"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/skills"
)

const (
	greetMD    = "---\nname: greet\ndescription: Greets people by name.\n---\n\nCall greet.Hello(name).\n"
	greetGo    = "package greet\n\n// Hello greets n.\nfunc Hello(n string) string { return \"hello \" + n }\n"
	greetGoV2  = "package greet\n\n// Hello greets n.\nfunc Hello(n string) string { return \"hi \" + n }\n"
	greetGoBad = "package greet\n\nfunc Hello(n string) string { return 42 }\n"
)

// newCopy is a working copy over a real store in a temp dir, checked
// against an empty tree; changes counts the store's changes.
func newCopy(t *testing.T) (*Copy, *skills.Store, *atomic.Int64) {
	t.Helper()
	store, err := skills.Open(t.TempDir(), skills.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tree := mcpfs.New(nil, mcpfs.Options{})
	var changes atomic.Int64
	c := New(store, Options{Tree: func() iofs.FS { return tree }, Changed: func() { changes.Add(1) }})
	return c, store, &changes
}

// put writes a whole file as a shell's redirection does: create, write,
// close.
func put(t *testing.T, c *Copy, folder, file, data string) error {
	t.Helper()
	if err := c.Create(folder, file); err != nil {
		return err
	}
	if err := c.WriteAt(folder, file, []byte(data), 0); err != nil {
		return err
	}
	return c.Commit(context.Background(), folder, file)
}

func file(c *Copy, folder, name string) string {
	data, _ := c.File(folder, name)
	return string(data)
}

func saved(t *testing.T, s *skills.Store, name, file string) string {
	t.Helper()
	sk, ok := s.Get(name)
	if !ok {
		t.Fatalf("skill %s is not saved", name)
	}
	return string(sk.Files[file])
}

// TestSaves writes a skill one file at a time, then refuses and accepts
// changes, as the mount's close, rename and unlink do.
func TestSaves(t *testing.T) {
	c, store, changes := newCopy(t)
	ctx := context.Background()
	if err := c.Mkdir("greet"); err != nil {
		t.Fatal(err)
	}
	if !c.Exists("greet") || !slices.Equal(c.Folders(), []string{"greet"}) {
		t.Fatalf("a new folder is not listed: %v", c.Folders())
	}

	// Incomplete: no error, nothing saved, ERRORS.txt says what is missing.
	if err := put(t, c, "greet", "SKILL.md", greetMD); err != nil {
		t.Fatalf("commit SKILL.md of a new skill: %v", err)
	}
	if msg := file(c, "greet", skills.ErrorsFile); !strings.Contains(msg, "not saved yet: it needs a Go file") {
		t.Errorf("ERRORS.txt of an incomplete skill: %q", msg)
	}
	if _, ok := store.Get("greet"); ok {
		t.Error("an incomplete skill was saved")
	}

	if err := put(t, c, "greet", "greet.go", greetGo); err != nil {
		t.Fatalf("commit greet.go: %v", err)
	}
	if got := saved(t, store, "greet", "greet.go"); got != greetGo {
		t.Errorf("saved greet.go = %q", got)
	}
	if _, ok := c.Stat("greet", skills.ErrorsFile); ok {
		t.Error("ERRORS.txt after a good save")
	}
	if changes.Load() != 1 {
		t.Errorf("Changed called %d times after one save, want 1", changes.Load())
	}

	// Invalid: ErrNotSaved, ERRORS.txt says where, version 1 stays, the
	// working copy keeps the bytes.
	err := put(t, c, "greet", "greet.go", greetGoBad)
	if !errors.Is(err, ErrNotSaved) || !errors.Is(err, skills.ErrInvalid) {
		t.Fatalf("committing an invalid greet.go: %v, want ErrNotSaved wrapping skills.ErrInvalid", err)
	}
	msg := file(c, "greet", skills.ErrorsFile)
	if !strings.Contains(msg, "skills/greet/greet.go:3:38: cannot use 42") || !strings.Contains(msg, "Version 1") {
		t.Errorf("ERRORS.txt:\n%s", msg)
	}
	if got := saved(t, store, "greet", "greet.go"); got != greetGo {
		t.Errorf("after a refused save the store has %q", got)
	}
	if got := file(c, "greet", "greet.go"); got != greetGoBad {
		t.Errorf("the working copy should keep what was written, got %q", got)
	}
	if info, ok := c.Stat("greet", skills.ErrorsFile); !ok || info.Writable || info.Size != len(msg) {
		t.Errorf("Stat(ERRORS.txt) = %+v, %v; want read only, size %d", info, ok, len(msg))
	}
	if !slices.Equal(c.Names("greet"), []string{skills.ErrorsFile, "SKILL.md", "greet.go"}) {
		t.Errorf("Names = %v", c.Names("greet"))
	}

	// Fixed: version 2, ERRORS.txt gone.
	if err := put(t, c, "greet", "greet.go", greetGoV2); err != nil {
		t.Fatalf("commit a fixed greet.go: %v", err)
	}
	if sk, _ := store.Get("greet"); sk.Version != 2 || string(sk.Files["greet.go"]) != greetGoV2 {
		t.Errorf("after the fix: version %d, %q", sk.Version, sk.Files["greet.go"])
	}

	// An editor's save: a scratch file renamed onto the real one. An
	// invalid one is refused and nothing moves.
	if err := put(t, c, "greet", ".greet.go.tmp", greetGoBad); err != nil {
		t.Fatalf("a scratch file: %v", err)
	}
	if sk, _ := store.Get("greet"); sk.Version != 2 {
		t.Errorf("a scratch file was saved: version %d", sk.Version)
	}
	if err := c.Rename(ctx, "greet", ".greet.go.tmp", "greet.go"); !errors.Is(err, ErrNotSaved) {
		t.Errorf("renaming an invalid file into place: %v, want ErrNotSaved", err)
	}
	if got := file(c, "greet", ".greet.go.tmp"); got != greetGoBad {
		t.Errorf("the refused rename moved the file: %q left", got)
	}
	if got := file(c, "greet", "greet.go"); got != greetGoV2 {
		t.Errorf("the refused rename changed greet.go: %q", got)
	}
	if err := c.WriteAt("greet", ".greet.go.tmp", []byte(greetGo), 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Truncate("greet", ".greet.go.tmp", int64(len(greetGo))); err != nil {
		t.Fatal(err)
	}
	if err := c.Rename(ctx, "greet", ".greet.go.tmp", "greet.go"); err != nil {
		t.Fatalf("renaming a valid file into place: %v", err)
	}
	if sk, _ := store.Get("greet"); sk.Version != 3 {
		t.Errorf("after the rename: version %d, want 3", sk.Version)
	}

	// ERRORS.txt is the mount's.
	for _, err := range []error{
		c.Create("greet", skills.ErrorsFile),
		c.Empty("greet", skills.ErrorsFile),
		c.WriteAt("greet", skills.ErrorsFile, nil, 0),
		c.Truncate("greet", skills.ErrorsFile, 0),
		c.Rename(ctx, "greet", "greet.go", skills.ErrorsFile),
	} {
		if !errors.Is(err, ErrReadOnly) {
			t.Errorf("writing ERRORS.txt: %v, want ErrReadOnly", err)
		}
	}
	if err := c.WriteAt("greet", "greet.go", []byte("x"), skills.MaxFileSize); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a write past MaxFileSize: %v, want ErrTooLarge", err)
	}
	if err := c.Create("nope", "a.go"); !errors.Is(err, ErrNotExist) {
		t.Errorf("a file in no folder: %v, want ErrNotExist", err)
	}
}

// TestUnlinkAndRmdir removes files (an invalid rest stays pending) and
// then the skill.
func TestUnlinkAndRmdir(t *testing.T) {
	c, store, _ := newCopy(t)
	ctx := context.Background()
	c.Mkdir("greet")
	put(t, c, "greet", "SKILL.md", greetMD)
	put(t, c, "greet", "greet.go", greetGo)
	if err := c.Rmdir(ctx, "greet"); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("rmdir of a skill with files: %v, want ErrNotEmpty", err)
	}
	// Removing SKILL.md leaves an invalid skill: the unlink succeeds and
	// the saved version stays.
	if err := c.Unlink(ctx, "greet", "SKILL.md"); err != nil {
		t.Errorf("unlink SKILL.md: %v", err)
	}
	if saved(t, store, "greet", "SKILL.md") != greetMD {
		t.Error("unlinking SKILL.md changed the saved version")
	}
	if err := c.Unlink(ctx, "greet", "greet.go"); err != nil {
		t.Errorf("unlink greet.go: %v", err)
	}
	if err := c.Unlink(ctx, "greet", "greet.go"); !errors.Is(err, ErrNotExist) {
		t.Errorf("unlink greet.go again: %v, want ErrNotExist", err)
	}
	if err := c.Rmdir(ctx, "greet"); err != nil {
		t.Fatalf("rmdir of the emptied skill: %v", err)
	}
	if _, ok := store.Get("greet"); ok || c.Exists("greet") {
		t.Error("greet is still there after rmdir")
	}
	log, err := store.Log("greet")
	if err != nil || len(log) == 0 || !log[len(log)-1].Removed {
		t.Errorf("log after rmdir: %+v, %v", log, err)
	}
	if err := c.Rmdir(ctx, "greet"); !errors.Is(err, ErrNotExist) {
		t.Errorf("rmdir again: %v, want ErrNotExist", err)
	}
}

// TestFolders: names, hidden scratch folders, and a folder saved in one
// step by renaming it into place.
func TestFolders(t *testing.T) {
	c, store, _ := newCopy(t)
	ctx := context.Background()
	if err := c.Mkdir("Bad-Name"); !errors.Is(err, ErrBadName) {
		t.Errorf("mkdir of a bad name: %v, want ErrBadName", err)
	}
	if err := c.Mkdir(".pair"); err != nil {
		t.Fatal(err)
	}
	if err := c.Mkdir(".pair"); !errors.Is(err, ErrExist) {
		t.Errorf("mkdir again: %v, want ErrExist", err)
	}
	files := map[string]string{
		"SKILL.md": "---\nname: pair\ndescription: Two files that need each other.\n---\n",
		"a.go":     "package pair\n\n// A uses B.\nfunc A() string { return b() }\n",
		"b.go":     "package pair\n\nfunc b() string { return \"b\" }\n",
	}
	// a.go alone would not type-check; nothing in a hidden folder is
	// validated until the rename.
	for _, n := range []string{"SKILL.md", "a.go", "b.go"} {
		if err := put(t, c, ".pair", n, files[n]); err != nil {
			t.Fatalf("write .pair/%s: %v", n, err)
		}
	}
	if err := c.RenameFolder(ctx, ".pair", "pair"); err != nil {
		t.Fatalf("rename .pair → pair: %v", err)
	}
	if sk, ok := store.Get("pair"); !ok || len(sk.Files) != 3 {
		t.Fatalf("pair not saved: %+v", sk)
	}
	if !slices.Equal(c.Folders(), []string{"pair"}) {
		t.Errorf("Folders = %v, want [pair]", c.Folders())
	}
	if err := c.RenameFolder(ctx, "pair", "pair2"); !errors.Is(err, ErrRefused) {
		t.Errorf("renaming a saved skill: %v, want ErrRefused", err)
	}
	if err := c.RenameFolder(ctx, "pair", ".away"); !errors.Is(err, ErrRefused) {
		t.Errorf("renaming a saved skill away: %v, want ErrRefused", err)
	}

	// An invalid folder is refused and stays where it was.
	c.Mkdir(".bad")
	put(t, c, ".bad", "SKILL.md", "---\nname: other\ndescription: x\n---\n")
	put(t, c, ".bad", "x.go", "package other\n\nvar X int = \"s\"\n")
	if err := c.RenameFolder(ctx, ".bad", "other"); !errors.Is(err, ErrNotSaved) {
		t.Errorf("renaming an invalid folder: %v, want ErrNotSaved", err)
	}
	msg := file(c, ".bad", skills.ErrorsFile)
	if !strings.Contains(msg, "not saved as skills/other") || !strings.Contains(msg, "skills/other/x.go:3:13") {
		t.Errorf("ERRORS.txt of the refused folder: %q", msg)
	}
	if c.Exists("other") {
		t.Error("the refused folder moved")
	}
	if err := c.RenameFolder(ctx, ".bad", ".bad2"); err != nil || !c.Exists(".bad2") || c.Exists(".bad") {
		t.Errorf("renaming a scratch folder: %v", err)
	}
	if err := c.RenameFolder(ctx, ".bad2", "Not A Name"); !errors.Is(err, ErrBadName) {
		t.Errorf("renaming onto a bad name: %v, want ErrBadName", err)
	}
}
