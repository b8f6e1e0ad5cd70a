package search

import (
	"strings"
	"testing"
)

// TestVocab checks that every line of the vocabulary says something once
// stemmed: a synonym line keeps at least two words apart, a related line
// leads somewhere else, a phrase has a meaning.
func TestVocab(t *testing.T) {
	for _, line := range strings.Split(strings.TrimSpace(synonymLines), "\n") {
		seen := map[string]string{}
		for _, w := range strings.Fields(line) {
			if s := stem(w); seen[s] != "" {
				t.Errorf("synonyms %q: %q and %q are one stem, %q", line, seen[s], w, s)
			} else {
				seen[s] = w
			}
		}
		if len(seen) < 2 {
			t.Errorf("synonyms %q: fewer than two words", line)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(relatedLines), "\n") {
		from, to, ok := strings.Cut(line, ":")
		if !ok || len(vocabTerms(from)) == 0 || len(vocabTerms(to)) == 0 {
			t.Errorf("related %q: want words: words", line)
		}
	}
	for _, p := range theVocab().phrases {
		if len(p.words) == 0 || len(p.to) == 0 {
			t.Errorf("phrase %q: want words and what they mean", p.words)
		}
	}
	// A phrase is found with stop words between its words, not others.
	for _, tt := range []struct {
		query, phrase string
	}{
		{"open a web page", "open web page"},
		{"look something up", "look up"},
		{"open an issue", "open an issue"},
		{"open the issue", ""},
		{"look at the page", "look at"},
	} {
		p, _, ok := matchPhrase(words(tt.query))
		if got := strings.Join(p.words, " "); ok != (tt.phrase != "") || got != tt.phrase {
			t.Errorf("matchPhrase(%q): got %q, want %q", tt.query, got, tt.phrase)
		}
	}
}
