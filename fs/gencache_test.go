package fs

import (
	"bytes"
	"encoding/json"
	"fmt"
	iofs "io/fs"
	"sync"
	"testing"

	"github.com/mcpfs/mcpfs/discovery/catalog"
)

// genCatalog is a catalog of n servers with tools tools each.
func genCatalog(n, tools int) *catalog.Catalog {
	cat := &catalog.Catalog{Version: 1}
	for i := range n {
		s := catalog.ServerSnapshot{Name: fmt.Sprintf("s%02d", i), State: catalog.StateReady}
		for j := range tools {
			name := fmt.Sprintf("tool_%d", j)
			raw, _ := json.Marshal(map[string]any{
				"name": name, "description": fmt.Sprintf("Tool %d of server %d.", j, i),
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
					"query": map[string]any{"type": "string", "description": "what to look for"},
					"limit": map[string]any{"type": "integer"},
				}, "required": []string{"query"}},
			})
			s.Tools = append(s.Tools, catalog.Tool{Name: name, Raw: raw})
		}
		cat.Servers = append(cat.Servers, s)
	}
	return cat
}

// readServers returns every file under servers/ of fsys.
func readServers(t *testing.T, fsys iofs.FS) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := iofs.WalkDir(fsys, ServersDir, func(p string, d iofs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := iofs.ReadFile(fsys, p)
		out[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGenCacheBound: with a bound below the size of every package, the
// tree keeps within it by dropping packages, and a dropped package read
// again is generated again with the same bytes (and the same sizes).
func TestGenCacheBound(t *testing.T) {
	cat := genCatalog(12, 15)
	want := readServers(t, New(cat, Options{Cache: NewGenCache(-1)}))
	var total int64
	for _, b := range want {
		total += int64(len(b))
	}
	bound := total / 4
	c := NewGenCache(bound)
	tr := New(cat, Options{Cache: c})
	for round := range 3 {
		got := readServers(t, tr)
		if len(got) != len(want) {
			t.Fatalf("round %d: %d files, want %d", round, len(got), len(want))
		}
		for p, b := range want {
			if !bytes.Equal(got[p], b) {
				t.Errorf("round %d: %s differs after generating it again", round, p)
			}
			if info, err := tr.Stat(p); err != nil || info.Size() != int64(len(b)) {
				t.Errorf("round %d: Stat(%s) = %v, %v; want size %d", round, p, info, err, len(b))
			}
		}
		st := c.Stats()
		if st.Bytes > bound {
			t.Errorf("round %d: the cache holds %d bytes, over its bound of %d", round, st.Bytes, bound)
		}
		if st.Packages >= len(cat.Servers) {
			t.Errorf("round %d: %d packages held, want fewer than %d", round, st.Packages, len(cat.Servers))
		}
	}
	st := c.Stats()
	if st.Evicted == 0 || st.Generated <= int64(len(cat.Servers)) {
		t.Errorf("stats %+v: want packages dropped and generated again", st)
	}
	// The packages dropped hold no directory: their bytes can be freed.
	held := 0
	for _, ls := range tr.servers {
		if ls.dir.Load() != nil {
			held++
		}
	}
	if held != st.Packages {
		t.Errorf("%d servers hold a directory, the cache counts %d", held, st.Packages)
	}
}

// TestGenCacheRecent: the package read last is kept, and a package used
// over and over is not the one dropped.
func TestGenCacheRecent(t *testing.T) {
	cat := genCatalog(6, 10)
	sizes := NewGenCache(-1)
	full := New(cat, Options{Cache: sizes})
	readServers(t, full)
	per := sizes.Stats().Bytes / int64(len(cat.Servers))
	c := NewGenCache(per*3 + per/2) // room for three packages
	tr := New(cat, Options{Cache: c})
	for i := 1; i < len(cat.Servers); i++ {
		if _, err := tr.ReadFile(ServersDir + "/s00/doc.go"); err != nil { // hot
			t.Fatal(err)
		}
		if _, err := tr.ReadFile(fmt.Sprintf("%s/s%02d/doc.go", ServersDir, i)); err != nil {
			t.Fatal(err)
		}
	}
	if tr.servers["s00"].dir.Load() == nil {
		t.Error("the package read before every other was dropped")
	}
	if tr.servers[fmt.Sprintf("s%02d", len(cat.Servers)-1)].dir.Load() == nil {
		t.Error("the package read last was dropped")
	}
	if st := c.Stats(); st.Evicted == 0 {
		t.Errorf("stats %+v: want packages dropped", st)
	}
}

// TestGenCacheShared: trees given one cache share its bound, and
// concurrent readers of a package being dropped and generated again all
// read the same bytes.
func TestGenCacheShared(t *testing.T) {
	cat := genCatalog(8, 8)
	want := readServers(t, New(cat, Options{Cache: NewGenCache(-1)}))
	c := NewGenCache(1) // one package at a time
	trees := []*Tree{New(cat, Options{Cache: c}), New(cat, Options{Cache: c})}
	trees = append(trees, trees[0].WithSkills(nil))
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := trees[g%len(trees)]
			for range 3 {
				for p, b := range want {
					got, err := tr.ReadFile(p)
					if err != nil || !bytes.Equal(got, b) {
						t.Errorf("%s: %v, or other bytes than generated first", p, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if st := c.Stats(); st.Packages != 1 || st.Evicted == 0 {
		t.Errorf("stats %+v: want one package held and many dropped", st)
	}
}
