package worker

import (
	"context"
	"testing"
	"time"
)

func TestFlow(t *testing.T) {
	f := newFlow(2, 100)
	ctx := context.Background()
	wait := func(server string, n int64) error {
		c, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		done, err := f.take(c, server, n)
		if err == nil {
			done()
		}
		return err
	}
	big, err := f.take(ctx, "a", 500) // one call always fits
	if err != nil {
		t.Fatal(err)
	}
	if wait("a", 1) == nil {
		t.Error("a call went past a server that holds more than its bytes")
	}
	if err := wait("b", 10); err != nil {
		t.Errorf("a call to another server waited: %v", err)
	}
	big()
	one, _ := f.take(ctx, "a", 10)
	two, _ := f.take(ctx, "a", 10)
	if wait("a", 10) == nil {
		t.Error("a third call went past a server with two slots")
	}
	one()
	two()
	if len(f.servers) != 0 {
		t.Errorf("%d servers left after every call ended", len(f.servers))
	}
}
