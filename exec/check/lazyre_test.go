package check

import (
	"regexp"
	"testing"
)

// TestLazyExprs compiles every pattern the package compiles on first use,
// so that a bad one fails here rather than in the hint that needs it.
func TestLazyExprs(t *testing.T) {
	if len(lazyExprs) == 0 {
		t.Fatal("no patterns registered")
	}
	for _, l := range lazyExprs {
		if _, err := regexp.Compile(l.expr); err != nil {
			t.Errorf("pattern %q: %v", l.expr, err)
		}
	}
}
