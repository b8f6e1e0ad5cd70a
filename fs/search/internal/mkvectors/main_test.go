package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func read(t *testing.T, file string) []byte {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRun builds the table of a small file in the package's format: the
// most frequent words whatever they are, WordNet's words among the more
// frequent, the vocabulary's words at any rank; punctuation and capitals
// left out; vectors scaled so that the largest component is ±127.
func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "vectors.gz")
	// common 1: "the"; max 3: of store, zebra, jot, WordNet has zebra
	// (jot is the fourth word of a to z); the vocabulary has store, stash
	// and jot.
	if err := run("testdata/vectors.json", "testdata/thesaurus.gz", "testdata/vocab.go", out, 1, 3, io.Discard); err != nil {
		t.Fatal(err)
	}
	data := read(t, out)
	head := "mcpfs-vectors 1 4 5\njot\nstash\nstore\nthe\nzebra\n"
	if !bytes.HasPrefix(data, []byte(head)) {
		t.Fatalf("table starts %q, want %q", data[:min(len(data), len(head))], head)
	}
	var got []int8
	for _, b := range data[len(head):] {
		got = append(got, int8(b))
	}
	want := []int8{
		0, 0, -127, 64, // jot
		32, 64, 0, -127, // stash
		64, -127, 32, 0, // store
		32, 64, 95, 127, // the
		127, 127, 127, 127, // zebra
	}
	if string(bytesOf(got)) != string(bytesOf(want)) {
		t.Errorf("vectors %v, want %v", got, want)
	}
	// The same input gives the same bytes.
	again := filepath.Join(t.TempDir(), "again.gz")
	if err := run("testdata/vectors.json", "testdata/thesaurus.gz", "testdata/vocab.go", again, 1, 3, io.Discard); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Error("two runs on the same input wrote different files")
	}
}

func bytesOf(v []int8) []byte {
	out := make([]byte, len(v))
	for i, x := range v {
		out[i] = byte(x)
	}
	return out
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := "testdata/vectors.json"
	for _, tt := range []struct {
		name, in, thesaurus, vocab, want string
	}{
		{"no vectors file", filepath.Join(dir, "none.json"), "testdata/thesaurus.gz", "testdata/vocab.go", "none.json"},
		{"not JSON", write("bad.json", "[1,2]"), "testdata/thesaurus.gz", "testdata/vocab.go", "not a JSON object"},
		{"no dimensions", write("nodims.json", `{"words":["a"],"vectors":{}}`), "testdata/thesaurus.gz", "testdata/vocab.go", "dimensions 0"},
		{"short vector", write("short.json", `{"dimensions":3,"words":["ab"],"vectors":{"ab":[1,2]}}`), "testdata/thesaurus.gz", "testdata/vocab.go", "has 2 numbers, want 3"},
		{"word without vector", write("missing.json", `{"dimensions":2,"words":["ab","cd"],"vectors":{"ab":[1,2]}}`), "testdata/thesaurus.gz", "testdata/vocab.go", `"cd" is in the words but has no vector`},
		{"thesaurus not gzip", good, write("th.gz", "jot\tnote\n"), "testdata/vocab.go", "th.gz"},
		{"vocabulary without lines", good, "testdata/thesaurus.gz", write("v.go", "package search\n"), "no variable"},
	} {
		err := run(tt.in, tt.thesaurus, tt.vocab, filepath.Join(dir, "out.gz"), 1, 3, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one saying %q", tt.name, err, tt.want)
		}
	}
}
