package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpfs/mcpfs/discovery"
	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/skills"
)

// TestMountSkills runs `mcpfs mount DIR` and checks both directions of
// skills/: a skill written into the mount is saved in the store, and one
// another process saves in the store appears in the mount.
func TestMountSkills(t *testing.T) {
	data := filepath.Join(mountHome(t), "data")
	m := startMount(t, "--data-dir", data)
	dir := m.dir
	m.waitFor(t, "servers/docstore appears", exists(filepath.Join(dir, "servers", "docstore", "search.go")))

	// Written through the mount: saved in the store.
	greet := filepath.Join(dir, "skills", "greet")
	if err := os.Mkdir(greet, 0o755); err != nil {
		t.Fatalf("mkdir skills/greet in the mount: %v", err)
	}
	files := map[string]string{
		"SKILL.md": "---\nname: greet\ndescription: Greets a person by name.\n---\n",
		"greet.go": "package greet\n\n// Hello greets name.\nfunc Hello(name string) string { return \"hello, \" + name }\n",
	}
	for _, name := range []string{"SKILL.md", "greet.go"} {
		if err := os.WriteFile(filepath.Join(greet, name), []byte(files[name]), 0o644); err != nil {
			t.Fatalf("write skills/greet/%s in the mount: %v", name, err)
		}
	}
	store, err := skills.Open(filepath.Join(data, "skills"), skills.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sk, ok := store.Get("greet"); !ok || sk.Version != 1 || !bytes.Equal(sk.Files["greet.go"], []byte(files["greet.go"])) {
		t.Errorf("store after writing the mount: got %+v, %v; want greet version 1 with the written greet.go", sk, ok)
	}

	// Saved by another process: appears in the mount.
	other := map[string][]byte{
		skills.SkillFile: []byte("---\nname: other\ndescription: Saved elsewhere.\n---\n"),
		"other.go":       []byte("package other\n\n// N is a number.\nfunc N() int { return 1 }\n"),
	}
	if _, err := store.Save(context.Background(), mcpfs.New(&discovery.Catalog{}, mcpfs.Options{}), "other", other, "test"); err != nil {
		t.Fatalf("save in the store: %v", err)
	}
	m.waitFor(t, "skills/other appears in the mount", exists(filepath.Join(dir, "skills", "other", "other.go")))

	m.stop()
}
