package cache

import (
	"strconv"
	"testing"
)

// BenchmarkOpenWith50Servers measures opening a cache on disk that holds 50
// servers' listings and loading all of them: what mcpfs pays on start
// before the tree is complete.
func BenchmarkOpenWith50Servers(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ct := sampleTools(20)
	for i := range 50 {
		s.StoreTools("k"+strconv.Itoa(i), ct)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s, err := Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		for i := range 50 {
			if _, ok := s.LoadTools("k" + strconv.Itoa(i)); !ok {
				b.Fatal("miss")
			}
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
