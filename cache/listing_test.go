package cache

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/mcpfs/mcpfs/discovery"
)

func TestListingRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 50} {
		want := sampleTools(n)
		want.ServerTitle = "Démo ✓"
		want.ToolsTruncated = n == 50
		b, err := encodeListing(want)
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := decodeListing(b)
		if err != nil || !ok {
			t.Fatalf("%d tools: decode: %v, %v", n, ok, err)
		}
		if !got.ListedAt.Equal(want.ListedAt) {
			t.Errorf("%d tools: ListedAt %v, want %v", n, got.ListedAt, want.ListedAt)
		}
		got.ListedAt = want.ListedAt
		if len(want.Tools) == 0 {
			want.Tools = []discovery.Tool{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d tools: got %+v, want %+v", n, got, want)
		}
	}
}

// TestListingCorrupt: every truncation and a changed byte of a binary
// listing is an error or a miss, never a panic or wrong tools.
func TestListingCorrupt(t *testing.T) {
	b, err := encodeListing(sampleTools(4))
	if err != nil {
		t.Fatal(err)
	}
	for i := range len(b) {
		if _, ok, err := decodeListing(b[:i]); ok || err == nil {
			t.Errorf("truncated at %d of %d: ok %v, err %v", i, len(b), ok, err)
		}
	}
	for i := len(listingMagic) + 1; i < len(b); i++ {
		c := slices.Clone(b)
		c[i] ^= 0xff
		decodeListing(c) // must not panic
	}
	other := slices.Clone(b)
	other[len(listingMagic)] = listingFormat + 1
	if _, ok, err := decodeListing(other); ok || err != nil {
		t.Errorf("another format: ok %v, err %v; want a miss without an error", ok, err)
	}
}

// TestListingOldJSON: listings stored as JSON (format 1, plain or
// gzipped) by an earlier version are still read.
func TestListingOldJSON(t *testing.T) {
	s := open(t, t.TempDir(), Options{})
	defer s.Close()
	want := sampleTools(3)
	plain, err := json.Marshal(storedTools{Format: toolsFormat, CachedTools: want})
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	stale, _ := json.Marshal(storedTools{Format: toolsFormat + 7, CachedTools: want})
	for key, v := range map[string][]byte{"plain": plain, "gzip": gz.Bytes(), "stale": stale} {
		if err := s.db.Update(func(txn *badger.Txn) error {
			return txn.Set(append(slices.Clip(prefixTools), key...), v)
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, key := range []string{"plain", "gzip"} {
		got, ok := s.LoadTools(key)
		if !ok || got.ServerName != want.ServerName || len(got.Tools) != 3 || !bytes.Equal(got.Tools[1].Raw, want.Tools[1].Raw) {
			t.Errorf("%s: got %+v, %v", key, got, ok)
		}
	}
	if _, ok := s.LoadTools("stale"); ok {
		t.Error("a JSON listing of another format: got a hit")
	}
}

// TestListingBig: a listing past compressAbove is stored gzipped and
// read back whole.
func TestListingBig(t *testing.T) {
	s := open(t, t.TempDir(), Options{})
	defer s.Close()
	want := sampleTools(4000)
	s.StoreTools("big", want)
	got, ok := s.LoadTools("big")
	if !ok || len(got.Tools) != len(want.Tools) || !bytes.Equal(got.Tools[3999].Raw, want.Tools[3999].Raw) {
		t.Fatalf("got %d tools, %v", len(got.Tools), ok)
	}
}

// BenchmarkLoadTools100 loads one server's listing of 100 tools.
func BenchmarkLoadTools100(b *testing.B) {
	s, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ct := sampleTools(100)
	for i := range ct.Tools {
		ct.Tools[i].Raw = json.RawMessage(`{"name":"tool` + strconv.Itoa(i) + `","description":"` + string(bytes.Repeat([]byte("words "), 40)) + `","inputSchema":{"type":"object","properties":{"a":{"type":"string","description":"an argument"},"b":{"type":"integer"}},"required":["a"]}}`)
	}
	s.StoreTools("k", ct)
	for b.Loop() {
		if _, ok := s.LoadTools("k"); !ok {
			b.Fatal("miss")
		}
	}
}
