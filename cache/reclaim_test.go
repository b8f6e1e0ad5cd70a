package cache

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
)

// TestReclaim: values stored again and again under the same keys leave
// the value log growing until Reclaim, which takes the stale copies back
// and keeps the current values readable; a log within bounds is left
// alone.
func TestReclaim(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	value := func(round, i int) []byte {
		return bytes.Repeat([]byte{byte('a' + round), byte(i)}, 10000) // over valueThreshold: in the value log
	}
	for round := range 14 {
		s := open(t, dir, Options{})
		for i := range 50 {
			s.StoreGen(fmt.Sprintf("server%d", i), value(round, i))
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s := open(t, dir, Options{})
	defer s.Close()
	live, err := s.liveBytes()
	if err != nil {
		t.Fatal(err)
	}
	before := s.closedLogBytes()
	if before < 6*live {
		t.Fatalf("the value log holds %d bytes for %d live: the test stores too little to see stale values", before, live)
	}
	freed, err := s.Reclaim(false)
	if err != nil {
		t.Fatal(err)
	}
	after := s.closedLogBytes()
	if freed == 0 || after > 2*live+reclaimSlack {
		t.Errorf("Reclaim took back %d bytes: the value log went %d → %d bytes for %d live", freed, before, after, live)
	}
	for i := range 50 {
		got, ok := s.LoadGen(fmt.Sprintf("server%d", i))
		if !ok || !bytes.Equal(got, value(13, i)) {
			t.Fatalf("server%d after Reclaim: %v, %d bytes; want the last value", i, ok, len(got))
		}
	}
	// Within bounds now: nothing to do.
	if freed, err := s.Reclaim(false); err != nil || freed != 0 {
		t.Errorf("a second Reclaim: %d bytes, %v; want nothing done", freed, err)
	}
}
