package main

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun builds the table of a small dict in WordNet's format: senses
// ordered by tag count, synonyms then hypernyms, multi-word lemmas and
// proper names left out, words with nothing to give left out.
func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "thesaurus.gz")
	if err := run("testdata/dict", out, 3, io.Discard); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	text, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	want := "jot\tjotting|note;|write\nstash\thoard|save\n"
	if string(text) != want {
		t.Errorf("table:\n%s\nwant:\n%s", text, want)
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"data.noun", "index.noun", "index.verb", "index.sense"} {
		data, err := os.ReadFile(filepath.Join("testdata/dict", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "thesaurus.gz")
	if err := run(dir, out, 3, io.Discard); err == nil || !strings.Contains(err.Error(), "data.verb") {
		t.Errorf("no data.verb: got %v, want an error naming it", err)
	}
	bad := "00000100 32 v zz jot 0 000 | a word count that is not hexadecimal\n"
	if err := os.WriteFile(filepath.Join(dir, "data.verb"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, out, 3, io.Discard); err == nil || !strings.Contains(err.Error(), "data.verb:1") || !strings.Contains(err.Error(), "word count") {
		t.Errorf("bad word count: got %v, want an error at data.verb:1 about the word count", err)
	}
}
