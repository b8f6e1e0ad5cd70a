package gen

import "testing"

func TestWellFormed(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{"package p\n\n// F does x.\nfunc F(a []int) (map[string]int, error) { return nil, nil }\n", true},
		{"package p\n\nvar s = \"a \\\" b\"\nvar r = 'x'\n/* c */\n", true},
		{"package p\n\n/* open comment\nfunc F() {}\n", false},
		{"package p\n\n// x */ y\nfunc F() {}\n", true},
		{"package p\n\n/* x */ y ( */\nfunc F() {}\n", false},
		{"package p\n\nvar s = \"unterminated\nfunc F() {}\n", false},
		{"package p\n\nfunc F() {\n", false},
		{"package p\n\nfunc F() }{\n", false},
		{"package p\n\nvar a = [](int{}\n", false},
		{"package p\n\nvar a = 1 @ 2\n", false},
	} {
		if got := wellFormed(c.src); got != c.want {
			t.Errorf("wellFormed(%q) = %v, want %v", c.src, got, c.want)
		}
	}
}
