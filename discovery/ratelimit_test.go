package discovery

import (
	"testing"
	"time"
)

// TestRateLimit checks the log rate limit on given times: a burst per
// window, then refusals, counted and told to the next event allowed.
func TestRateLimit(t *testing.T) {
	r := rateLimit{burst: 3, per: time.Second}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		at             time.Duration
		wantOK         bool
		wantSuppressed int
	}{
		{0, true, 0},
		{100 * time.Millisecond, true, 0},
		{200 * time.Millisecond, true, 0},
		{300 * time.Millisecond, false, 0}, // the burst is spent
		{999 * time.Millisecond, false, 0},
		{time.Second, true, 2}, // a new window: says how many were left out
		{1100 * time.Millisecond, true, 0},
		{1200 * time.Millisecond, true, 0},
		{1300 * time.Millisecond, false, 0},
		{5 * time.Second, true, 1},
	}
	for i, s := range steps {
		ok, suppressed := r.allow(t0.Add(s.at))
		if ok != s.wantOK || suppressed != s.wantSuppressed {
			t.Errorf("step %d at %v: got (%v, %d), want (%v, %d)", i, s.at, ok, suppressed, s.wantOK, s.wantSuppressed)
		}
	}
}
