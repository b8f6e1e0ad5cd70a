package exec

import (
	"context"
	"testing"
	"time"
)

func TestBudget(t *testing.T) {
	b := newBudget(100)
	ctx := context.Background()
	if err := b.acquire(ctx, 500); err != nil { // the first frame always fits
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := b.acquire(short, 1); err == nil {
		t.Fatal("acquire over the limit did not wait")
	}
	got := make(chan error, 1)
	go func() { got <- b.acquire(ctx, 60) }()
	time.Sleep(10 * time.Millisecond)
	b.release(500)
	if err := <-got; err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	// A server's share is a quarter of the budget, but always one call.
	if !b.admit("a", 60) {
		t.Fatal("the first call of a server was refused")
	}
	if b.admit("a", 1) {
		t.Fatal("a server over its share was admitted")
	}
	if !b.admit("b", 20) || !b.admit("b", 5) {
		t.Fatal("a server within its share was refused")
	}
	b.leave("a", 60)
	if !b.admit("a", 25) {
		t.Fatal("a server that gave back its bytes was refused")
	}
}

func TestSlots(t *testing.T) {
	s := newSlots(1)
	ctx := context.Background()
	put, err := s.take(ctx, "hung")
	if err != nil {
		t.Fatal(err)
	}
	// The hung server's slot does not hold up another server.
	other, err := s.take(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	other()
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := s.take(short, "hung"); err == nil {
		t.Fatal("a second call took the hung server's only slot")
	}
	put()
	if len(s.m) != 0 {
		t.Errorf("slots of %d servers are left after every call ended", len(s.m))
	}
}
