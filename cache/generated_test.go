package cache

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestGenRoundTrip: a generated package stored is read back after the
// cache is reopened, a second store replaces it, stats count it, a package
// too large is not kept, and Clear removes it.
func TestGenRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	s := open(t, dir, Options{})
	if _, ok := s.LoadGen("absent"); ok {
		t.Error("LoadGen of an absent key: got a hit")
	}
	s.StoreGen("s\x00key", []byte("first"))
	s.StoreGen("s\x00key", []byte("second"))
	s.StoreGen("big", bytes.Repeat([]byte("x"), valueLogFileSize/2+1))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, dir, Options{})
	defer s.Close()
	if got, ok := s.LoadGen("s\x00key"); !ok || string(got) != "second" {
		t.Errorf("LoadGen after reopening = %q, %v; want \"second\"", got, ok)
	}
	if _, ok := s.LoadGen("big"); ok {
		t.Error("a package over the bound was kept")
	}
	st, err := s.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Packages != 1 || st.PackageBytes == 0 || st.Servers != 0 {
		t.Errorf("stats %+v: want 1 generated package", st)
	}
	if err := s.Clear(); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.LoadGen("s\x00key"); ok {
		t.Error("LoadGen after Clear: got a hit")
	}
}
