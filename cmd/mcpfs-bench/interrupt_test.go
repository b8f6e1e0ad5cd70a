package main

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestInterruptCleanups: an interrupt runs every registered clean-up,
// not the removed ones, and does not wait past its grace for one that
// hangs.
func TestInterruptCleanups(t *testing.T) {
	var ran, removed atomic.Int32
	onInterrupt(func() { ran.Add(1) })
	onInterrupt(func() { ran.Add(1) })
	remove := onInterrupt(func() { removed.Add(1) })
	remove()
	hang := make(chan struct{})
	defer close(hang)
	onInterrupt(func() { <-hang })
	began := time.Now()
	runInterruptCleanups(200 * time.Millisecond)
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("the clean-ups took %v with a grace of 200ms", d)
	}
	if ran.Load() != 2 || removed.Load() != 0 {
		t.Errorf("ran %d clean-ups and %d removed ones, want 2 and 0", ran.Load(), removed.Load())
	}
}
