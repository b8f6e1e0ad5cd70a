package fs

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/discovery/catalog"
)

// memStore is a GenStore in memory.
type memStore struct {
	mu    sync.Mutex
	m     map[string][]byte
	loads int
}

func (s *memStore) LoadGen(key string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loads++
	b, ok := s.m[key]
	return bytes.Clone(b), ok
}

func (s *memStore) StoreGen(key string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[key] = bytes.Clone(data)
}

// persisted returns a tree of cat whose cache reads and writes store as
// build.
func persisted(cat *catalog.Catalog, store GenStore, build string) (*Tree, *GenCache) {
	c := NewGenCache(-1)
	c.Persist(store, build)
	return New(cat, Options{Cache: c}), c
}

// TestGenStore: a second cache over the same store reads every package
// instead of generating it, with the same bytes as a tree that never had
// a store; tools that change, another build, and a damaged entry are
// generated again.
func TestGenStore(t *testing.T) {
	cat := genCatalog(4, 6)
	want := readServers(t, New(cat, Options{Cache: NewGenCache(-1)}))
	store := &memStore{}

	tr, c := persisted(cat, store, "build-1")
	if got := readServers(t, tr); !sameFiles(got, want) {
		t.Fatal("a tree with a store generates other bytes than one without")
	}
	if st := c.Stats(); st.Generated != 4 || st.Loaded != 0 || len(store.m) != 4 {
		t.Fatalf("first cache: %+v, %d stored; want 4 generated and stored", st, len(store.m))
	}

	tr, c = persisted(cat, store, "build-1")
	if got := readServers(t, tr); !sameFiles(got, want) {
		t.Fatal("packages read from the store differ from the generated ones")
	}
	if st := c.Stats(); st.Generated != 0 || st.Loaded != 4 {
		t.Fatalf("second cache: %+v; want 4 read from the store, none generated", st)
	}

	// Another build makes them again.
	_, c = persisted(cat, store, "build-2")
	readServers(t, New(cat, Options{Cache: c}))
	if st := c.Stats(); st.Generated != 4 || st.Loaded != 0 {
		t.Fatalf("another build: %+v; want 4 generated", st)
	}

	// A changed tool makes its server's package again; the others are
	// read.
	changed := genCatalog(4, 6)
	changed.Servers[2].Tools[3].Raw = bytes.Replace(changed.Servers[2].Tools[3].Raw, []byte("what to look for"), []byte("the words to find"), 1)
	tr, c = persisted(changed, store, "build-2")
	got := readServers(t, tr)
	if st := c.Stats(); st.Generated != 1 || st.Loaded != 3 {
		t.Fatalf("one tool changed: %+v; want 1 generated, 3 read", st)
	}
	if !strings.Contains(string(got["servers/s02/tool_3.go"]), "the words to find") {
		t.Fatalf("the changed tool's file is the old one:\n%s", got["servers/s02/tool_3.go"])
	}

	// A damaged entry is not used.
	for k, v := range store.m {
		store.m[k] = v[:len(v)-3]
	}
	tr, c = persisted(changed, store, "build-2")
	got = readServers(t, tr)
	if st := c.Stats(); st.Generated != 4 || st.Loaded != 0 {
		t.Fatalf("damaged entries: %+v; want 4 generated", st)
	}
	if got["servers/s02/tool_3.go"] == nil || len(got) != len(want) {
		t.Fatalf("damaged entries: %d files, want %d", len(got), len(want))
	}
}

// TestGenStoreDocState: doc.go is made afresh from a stored package, so it
// says the server's state now, not when the files were stored.
func TestGenStoreDocState(t *testing.T) {
	store := &memStore{}
	ready := genCatalog(1, 3)
	tr, _ := persisted(ready, store, "b")
	readServers(t, tr)

	connecting := genCatalog(1, 3)
	connecting.Servers[0].State = catalog.StateConnecting
	connecting.Servers[0].Stale = true
	want := readServers(t, New(connecting, Options{Cache: NewGenCache(-1)}))
	tr, c := persisted(connecting, store, "b")
	got := readServers(t, tr)
	if st := c.Stats(); st.Loaded != 1 {
		t.Fatalf("%+v: want the package read from the store", st)
	}
	if !sameFiles(got, want) {
		t.Fatalf("doc.go of a stored package:\n%s\nwant:\n%s", got["servers/s00/doc.go"], want["servers/s00/doc.go"])
	}
	if !strings.Contains(string(got["servers/s00/doc.go"]), "connecting") {
		t.Fatalf("doc.go does not say the server is connecting:\n%s", got["servers/s00/doc.go"])
	}
}

// TestDecodeGenMalformed: no prefix of a stored package, and no byte
// changed in its counts, decodes into files or panics.
func TestDecodeGenMalformed(t *testing.T) {
	store := &memStore{}
	tr, _ := persisted(genCatalog(1, 2), store, "b")
	readServers(t, tr)
	var entry []byte
	for _, v := range store.m {
		entry = v
	}
	body := entry[len(genMagic)+32:]
	if _, _, err := decodeGen(body); err != nil {
		t.Fatalf("the stored package does not decode: %v", err)
	}
	for n := range len(body) {
		if _, _, err := decodeGen(body[:n]); err == nil {
			t.Fatalf("a package cut at %d of %d bytes decodes", n, len(body))
		}
	}
	for i := range len(body) {
		b := bytes.Clone(body)
		b[i] = 0xff
		decodeGen(b) // must not panic
	}
	for _, rel := range []string{"doc.go", "../x.go", "a/b.go", ".go", "x.txt", ".hidden.go"} {
		if validRel([]byte(rel)) {
			t.Errorf("validRel(%q) = true", rel)
		}
	}
}

func sameFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for p, x := range a {
		if !bytes.Equal(x, b[p]) {
			return false
		}
	}
	return true
}

// TestReadAhead: a look inside a second server reads the other servers'
// packages from the store in the background, marked unused and within
// half the cache's bound; without a store, or after one server, nothing is
// read ahead, and nothing is ever generated ahead.
func TestReadAhead(t *testing.T) {
	cat := genCatalog(6, 4)
	store := &memStore{}
	// Only four of the six servers are in the store.
	partial := &catalog.Catalog{Version: 1, Servers: cat.Servers[:4]}
	tr, _ := persisted(partial, store, "b")
	readServers(t, tr)

	tr, c := persisted(cat, store, "b")
	if _, err := tr.ReadFile("servers/s05/tool_1.go"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if st := c.Stats(); st.Loaded+st.Generated != 1 {
		t.Fatalf("after one server: %+v; want nothing read ahead", st)
	}
	if _, err := tr.ReadFile("servers/s04/tool_1.go"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for c.Stats().Loaded < 4 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if st := c.Stats(); st.Loaded != 4 || st.Generated != 2 {
		t.Fatalf("after two servers: %+v; want the 4 stored packages read ahead and the 2 looked at generated", st)
	}
	unused := 0
	for _, ls := range tr.servers {
		if ls.dir.Load() != nil && !ls.used.Load() {
			unused++
		}
	}
	if unused != 4 {
		t.Errorf("%d packages read ahead are marked unused, want 4", unused)
	}
	if got := readServers(t, tr); !sameFiles(got, readServers(t, New(cat, Options{Cache: NewGenCache(-1)}))) {
		t.Error("packages read ahead differ from generated ones")
	}

	// Without a store: nothing ahead.
	plain := NewGenCache(-1)
	tr = New(cat, Options{Cache: plain})
	tr.ReadFile("servers/s00/tool_1.go")
	tr.ReadFile("servers/s01/tool_1.go")
	time.Sleep(50 * time.Millisecond)
	if st := plain.Stats(); st.Packages != 2 {
		t.Errorf("without a store: %+v; want only the 2 packages looked at", st)
	}

	// A bound: read ahead stops at half of it.
	tr, _ = persisted(cat, store, "b")
	readServers(t, tr) // every package stored
	var one int64
	for p, b := range readServers(t, tr) {
		if strings.HasPrefix(p, "servers/s00/") {
			one += int64(len(b)) + nodeOverhead + int64(len(p))
		}
	}
	bounded := NewGenCache(5 * one)
	bounded.Persist(store, "b")
	tr = New(cat, Options{Cache: bounded})
	tr.ReadFile("servers/s00/tool_1.go")
	tr.ReadFile("servers/s01/tool_1.go")
	time.Sleep(100 * time.Millisecond)
	if st := bounded.Stats(); st.Bytes > st.Max/2+one || st.Packages >= 6 || st.Evicted != 0 {
		t.Errorf("bounded: %+v; want read ahead to stop near half the bound, dropping nothing", st)
	}
}
