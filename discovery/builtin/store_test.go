package builtin

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCountLines(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"a\n", 1},
		{"a\nb", 2},
		{"a\nb\n", 2},
		{"\n", 1},
		{"\n\n", 2},
	}
	for _, tt := range tests {
		if got := countLines(tt.text); got != tt.want {
			t.Errorf("countLines(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestSliceLines(t *testing.T) {
	const text = "a\nb\nc\nd"
	tests := []struct {
		offset, limit int
		want          string
		n             int
	}{
		{0, 0, text, 4},
		{0, 1, "a\n", 1},
		{1, 2, "b\nc\n", 2},
		{3, 1, "d", 1},
		{3, 5, "d", 1},
		{2, 0, "c\nd", 2},
		{4, 0, "", 0},
		{9, 1, "", 0},
	}
	for _, tt := range tests {
		got, n := sliceLines(text, tt.offset, tt.limit)
		if got != tt.want || n != tt.n {
			t.Errorf("sliceLines(%q, %d, %d) = %q, %d; want %q, %d", text, tt.offset, tt.limit, got, n, tt.want, tt.n)
		}
	}
}

func TestMatcher(t *testing.T) {
	tests := []struct {
		query, line string
		word        bool
		want        bool
	}{
		{"error", "An Error occurred", false, true},
		{"error", "errors everywhere", false, true},
		{"error", "errors everywhere", true, false},
		{"error", "two errors, one error.", true, true},
		{"error", "error", true, true},
		{"error", "error_rate", true, false},
		{"error", "5xx-error-rate", true, true},
		{"eu-west", "region eu-west,", true, true},
		{"eu-west", "eu-west-2", true, true}, // '-' is not a word character
		{"naïve", "the NAÏVE way", true, true},
		{"naïve", "naïveté", true, false},
		{"a b", "x a b y", true, true},
		{"ab", "abab ab", true, true},
		{"ab", "abab", true, false},
		{"latency", "", false, false},
	}
	for _, tt := range tests {
		m := matcher{query: strings.ToLower(tt.query), word: tt.word}
		if got := m.match(strings.ToLower(tt.line)); got != tt.want {
			t.Errorf("match(%q in %q, word %v) = %v, want %v", tt.query, tt.line, tt.word, got, tt.want)
		}
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc…"},
		{"aé", 2, "a…"}, // never cuts inside a rune
	}
	for _, tt := range tests {
		got := clip(tt.s, tt.max)
		if got != tt.want || !utf8.ValidString(got) {
			t.Errorf("clip(%q, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
		}
	}
}

func TestParseTable(t *testing.T) {
	tests := []struct {
		text    string
		rows    int
		wantErr string
	}{
		{"a,b\n1,2\n3,4\n", 2, ""},
		{"a,b\n", 0, ""},
		{"a,b\n\"x, y\",\"say \"\"hi\"\"\"\n", 1, ""},
		{"", 0, "header"},
		{"a,,c\n", 0, "column 2 has no name"},
		{"a,b,a\n", 0, `column "a" appears twice`},
		{"a,b\n1\n", 0, "wrong number of fields"},
		{"a,b\n\"1,2\n", 0, "csv rows"},
	}
	for _, tt := range tests {
		tab, err := parseTable(tt.text)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseTable(%q) error = %v, want one containing %q", tt.text, err, tt.wantErr)
			}
			continue
		}
		if err != nil || len(tab.rows) != tt.rows {
			t.Errorf("parseTable(%q) = %v, %v; want %d rows", tt.text, tab, err, tt.rows)
		}
	}
}

func TestRowJSON(t *testing.T) {
	for _, v := range []string{"", "plain", `quote " and \ backslash`, "tab\tnl\ncr\r", "\x00\x1f", "<&>", "héllo €", "bad \xff utf8", "\u2028"} {
		r := row{columns: []string{"k", v}, values: []string{v, "x"}}
		got, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]string
		if err := json.Unmarshal(got, &m); err != nil {
			t.Fatalf("row with %q marshals to invalid JSON %s: %v", v, got, err)
		}
		want := strings.ToValidUTF8(v, "\ufffd")
		if m["k"] != want {
			t.Errorf("value %q round-trips as %q, want %q", v, m["k"], want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a", `"\`, "\n\x00", "é", "\xff", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := appendJSONString(nil, s)
		var got string
		if err := json.Unmarshal(enc, &got); err != nil {
			t.Fatalf("appendJSONString(%q) = %s, invalid JSON: %v", s, enc, err)
		}
		// encoding/json is the reference, including how it replaces invalid UTF-8.
		ref, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var want string
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("appendJSONString(%q) decodes to %q, want %q", s, got, want)
		}
	})
}
