package fuse

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// TestBoundedTree: a mount over a tree that keeps one generated package at
// a time serves every file with the bytes and size it was looked up with,
// the packages dropped in between generated again; the mount keeps no
// copy of them.
func TestBoundedTree(t *testing.T) {
	cat := catalog(server("alpha", "one", "two", "three"), server("beta", "four", "five"), server("gamma", "six", "seven", "eight"))
	want := mcpfs.New(cat, mcpfs.Options{Cache: mcpfs.NewGenCache(-1)})
	c := mcpfs.NewGenCache(1)
	m := testMount(t, mcpfs.New(cat, mcpfs.Options{Cache: c}))
	var files []string
	servers, err := os.ReadDir(filepath.Join(m.Dir(), mcpfs.ServersDir))
	if err != nil {
		t.Fatal(err)
	}
	// Look every file up first (each lookup of another server drops the
	// last one's package), then read them all.
	for _, s := range servers {
		entries, err := os.ReadDir(filepath.Join(m.Dir(), mcpfs.ServersDir, s.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			p := mcpfs.ServersDir + "/" + s.Name() + "/" + e.Name()
			info, err := os.Stat(filepath.Join(m.Dir(), p))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := want.ReadFile(p)
			if info.Size() != int64(len(b)) {
				t.Errorf("%s: size %d, want %d", p, info.Size(), len(b))
			}
			files = append(files, p)
		}
	}
	if len(files) < 8 {
		t.Fatalf("%d files under servers/, want at least 8", len(files))
	}
	for _, p := range files {
		got, err := os.ReadFile(filepath.Join(m.Dir(), p))
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := want.ReadFile(p); !bytes.Equal(got, b) {
			t.Errorf("%s: read %q, want %q", p, got, b)
		}
	}
	if st := c.Stats(); st.Packages != 1 || st.Evicted == 0 || st.Generated <= int64(len(servers)) {
		t.Errorf("cache %+v: want one package held, packages dropped and generated again", st)
	}
}
