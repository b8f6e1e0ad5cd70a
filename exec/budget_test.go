package exec

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// TestBudget runs on virtual time: a wait for room lasts exactly until the
// caller's deadline or until room is freed.
func TestBudget(t *testing.T) { synctest.Test(t, testBudget) }

func testBudget(t *testing.T) {
	b := newBudget(100)
	ctx := context.Background()
	if err := b.acquire(ctx, 500); err != nil { // the first frame always fits
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	began := time.Now()
	if err := b.acquire(short, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("acquire over the limit: got %v, want context.DeadlineExceeded", err)
	}
	if waited := time.Since(began); waited != 20*time.Millisecond {
		t.Errorf("acquire over the limit waited %v, want 20ms (its deadline)", waited)
	}
	got := make(chan error, 1)
	go func() { got <- b.acquire(ctx, 60) }()
	synctest.Wait() // the acquire is blocked, waiting for room
	select {
	case err := <-got:
		t.Fatalf("acquire over the limit returned %v before any room was freed", err)
	default:
	}
	b.release(500)
	synctest.Wait()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("acquire after release: %v", err)
		}
	default:
		t.Fatal("acquire still waits after the room was freed")
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

// TestSlots runs on virtual time: a call waits for its server's slot until
// its deadline, exactly.
func TestSlots(t *testing.T) { synctest.Test(t, testSlots) }

func testSlots(t *testing.T) {
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
	began := time.Now()
	if _, err := s.take(short, "hung"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second call on the hung server's only slot: got %v, want context.DeadlineExceeded", err)
	}
	if waited := time.Since(began); waited != 20*time.Millisecond {
		t.Errorf("the second call waited %v for the slot, want 20ms (its deadline)", waited)
	}
	put()
	if len(s.m) != 0 {
		t.Errorf("slots of %d servers are left after every call ended", len(s.m))
	}
}
