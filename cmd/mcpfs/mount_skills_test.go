package main

import (
	"bytes"
	"context"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/discovery"
	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/skills"
)

// TestMountSkills runs `mcpfs mount DIR` and checks both directions of
// skills/: a skill written into the mount is saved in the store, and one
// another process saves in the store appears in the mount.
func TestMountSkills(t *testing.T) {
	if f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0); err != nil {
		t.Skipf("mount test skipped: /dev/fuse is not usable: %v", err)
	} else {
		f.Close()
	}
	if os.Geteuid() != 0 {
		if _, err := osexec.LookPath("fusermount3"); err != nil {
			t.Skip("mount test skipped: not root and no fusermount3 (apt-get install fuse3)")
		}
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("MCPFS_CONFIG", "")
	t.Setenv("MCP_SERVERS_CONFIG", "")
	t.Chdir(home)
	data := filepath.Join(home, "data")

	dir := t.TempDir()
	var stdout, stderr syncBuffer
	g := &globals{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
	root := newRoot(g)
	root.SetArgs([]string{"--data-dir", data, "mount", dir})
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("mount returned %v after interrupt", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("mount did not return within 20s of the interrupt")
		}
	}
	defer stop()
	waitMounted(t, &stderr, done)

	// waitFor polls until ok, failing after 20 s.
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			select {
			case err := <-done:
				stopped = true
				t.Fatalf("mount ended early: %v\nstderr:\n%s", err, stderr.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 20s\nstderr:\n%s", what, stderr.String())
			}
		}
	}
	exists := func(p string) func() bool {
		return func() bool { _, err := os.Stat(p); return err == nil }
	}
	waitFor("servers/docstore appears", exists(filepath.Join(dir, "servers", "docstore", "search.go")))

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
	waitFor("skills/other appears in the mount", exists(filepath.Join(dir, "skills", "other", "other.go")))

	stop()
	mountinfo, _ := os.ReadFile("/proc/self/mountinfo")
	if bytes.Contains(mountinfo, []byte(" "+dir+" ")) {
		t.Errorf("%s is still mounted after the command returned", dir)
	}
}
