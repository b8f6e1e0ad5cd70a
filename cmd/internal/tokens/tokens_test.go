package tokens

import (
	"encoding/json"
	"testing"
)

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{`{"name":"a"}`, 5},
	} {
		if got := Count(tc.s); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

func TestResultText(t *testing.T) {
	raw := json.RawMessage(`{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`)
	if got := ResultText(raw); got != "a\nb" {
		t.Errorf("got %q, want the text blocks", got)
	}
}
