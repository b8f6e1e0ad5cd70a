package search

import (
	"strings"
	"unicode"
)

// words splits text into lower-case words: runs of letters and digits,
// split again at snake_case, kebab-case and camelCase boundaries
// ("readTextFile", "read_text_file" and "read-text-file" give the same
// three words). A camelCase run also counts whole: "GitHub" gives "git",
// "hub" and "github", so that it meets "github" written in one word.
func words(text string) []string {
	var out []string
	for _, r := range runs(text) {
		out = append(out, r...)
		if len(r) > 1 {
			out = append(out, strings.Join(r, ""))
		}
	}
	return out
}

// runs splits text into runs of letters and digits, each split into its
// camelCase parts, lower case: "GitHub repo_name" gives [git hub] [repo]
// [name].
func runs(text string) [][]string {
	var out [][]string
	var word []rune
	var parts []string
	flush := func() {
		if len(word) > 0 {
			parts = append(parts, strings.ToLower(string(word)))
			word = word[:0]
		}
	}
	flushRun := func() {
		flush()
		if len(parts) > 0 {
			out = append(out, parts)
			parts = nil
		}
	}
	rs := []rune(text)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flushRun()
			continue
		}
		if len(word) > 0 {
			prev := word[len(word)-1]
			lowerToUpper := unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev))
			acronymEnd := unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if lowerToUpper || acronymEnd {
				flush()
			}
		}
		word = append(word, r)
	}
	flushRun()
	return out
}

// terms is words without stop words, stemmed.
func terms(text string) []string {
	ws := words(text)
	out := ws[:0]
	for _, w := range ws {
		if stopWords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// stopWords carry no meaning for finding a tool.
var stopWords = set(`a an the this that these those it its it's i me my mine we us our you your
	he she they them their his her to of in on at by for from with into onto out over about as
	and or but if then than so too very just also only not no nor
	is are was were be been being am do does did done doing have has had having
	can could will would shall should may might must please want wants need needs like let lets
	what which who whom whose how when where why there here some any each every all both either
	gets got one ones someone something thing things way using use used via e g eg etc
	whether many much once take takes give including after before while again already still yet now`)

func set(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}

// stem reduces an English word to a stem shared by its inflections, so
// that "creates", "created", "creating" and "create" meet, as do
// "navigate" and "navigation". It is a light stemmer in the spirit of
// Porter's: a few suffixes, a final e, a doubled consonant. Stems are not
// words ("creat"); only equality matters.
func stem(w string) string {
	if len(w) <= 3 || !isLetters(w) || unstemmed[w] {
		return w
	}
	w = britishToAmerican(w)
	if strings.HasSuffix(w, "ly") && len(w) > 6 {
		w = w[:len(w)-2]
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) > 5 && hasVowel(w[:len(w)-3]):
		w = w[:len(w)-3]
	case strings.HasSuffix(w, "ed") && len(w) > 4 && hasVowel(w[:len(w)-2]):
		w = w[:len(w)-2]
	case (strings.HasSuffix(w, "tion") || strings.HasSuffix(w, "sion")) && len(w) > 5:
		w = w[:len(w)-3]
	}
	if strings.HasSuffix(w, "e") && len(w) > 3 {
		w = w[:len(w)-1]
	}
	if n := len(w); n > 3 && w[n-1] == w[n-2] && !isVowel(w[n-1]) && w[n-1] != 'l' && w[n-1] != 's' && w[n-1] != 'z' {
		w = w[:n-1]
	}
	return w
}

// britishToAmerican spells -ise and -yse verbs as -ize and -yze
// ("memorised", "summarise", "analyse"), so that both spellings meet.
// Words that are not such verbs ("promise", "wise") change too, on both
// sides alike, which does no harm: stems only need to be equal.
func britishToAmerican(w string) string {
	if len(w) < 6 {
		return w
	}
	for _, suf := range []string{"isation", "ising", "ised", "ises", "ise", "ysing", "ysed", "yses", "yse"} {
		if strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)+1] + "z" + suf[2:]
		}
	}
	return w
}

// unstemmed are words whose ending is no inflection.
var unstemmed = set(`news series species always perhaps canvas alias atlas`)

func isLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

func isVowel(c byte) bool { return strings.IndexByte("aeiouy", c) >= 0 }

func hasVowel(w string) bool {
	for i := 0; i < len(w); i++ {
		if isVowel(w[i]) {
			return true
		}
	}
	return false
}
