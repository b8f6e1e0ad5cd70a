package discovery

import (
	"context"
	"slices"
	"sync"
)

// startGate bounds how many servers start at once (process start,
// initialize, first tools/list). A config of thousands of servers would
// otherwise start them all together, each start slowing the others past
// its connect timeout, so that they fail and start again without end.
// Waiters are served in order, except that a server a call is waiting for
// goes first.
type startGate struct {
	mu      sync.Mutex
	size    int
	free    int
	peak    int // the most slots ever taken at once
	waiters []*gateWaiter
}

type gateWaiter struct {
	rt      *serverRuntime
	granted chan struct{}
}

func newStartGate(n int) *startGate { return &startGate{size: n, free: n} }

// acquire waits for a start slot for rt, or for ctx to end.
func (g *startGate) acquire(ctx context.Context, rt *serverRuntime) error {
	g.mu.Lock()
	if g.free > 0 && len(g.waiters) == 0 {
		g.free--
		g.peak = max(g.peak, g.size-g.free)
		g.mu.Unlock()
		return nil
	}
	w := &gateWaiter{rt: rt, granted: make(chan struct{})}
	g.waiters = append(g.waiters, w)
	g.mu.Unlock()
	select {
	case <-w.granted:
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		i := slices.Index(g.waiters, w)
		if i >= 0 {
			g.waiters = slices.Delete(g.waiters, i, i+1)
		}
		g.mu.Unlock()
		if i < 0 { // granted meanwhile: pass the slot on
			g.release()
		}
		return ctx.Err()
	}
}

// release gives a slot back, to the first waiter a call is waiting for,
// else to the first waiter.
func (g *startGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.waiters) == 0 {
		g.free++
		return
	}
	i := slices.IndexFunc(g.waiters, func(w *gateWaiter) bool { return w.rt.urgent.Load() })
	if i < 0 {
		i = 0
	}
	w := g.waiters[i]
	g.waiters = slices.Delete(g.waiters, i, i+1)
	close(w.granted)
}

// stats says how many servers wait for a slot and the most slots ever
// taken at once.
func (g *startGate) stats() (waiting, peak int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.waiters), g.peak
}
