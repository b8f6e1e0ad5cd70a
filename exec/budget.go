package exec

import (
	"context"
	"sync"

	"github.com/mcpfs/mcpfs/exec/worker"
)

// budget counts the bytes the parent holds on one run's behalf: the
// arguments of the calls it has read (queued or in flight) and the results
// it has not yet sent back. The reader of the control channel takes room
// for a frame before it reads the frame's body; when there is none it
// stops reading, the channel fills and the snippet's calls block in the
// worker: back-pressure instead of growth.
//
// A server holds at most a quarter of the budget (but always one call).
// The worker keeps its calls within that share (worker.Config.ServerBytes),
// holding the snippet's goroutines; a call that would take a server
// further anyway (a worker that broke its limits) is refused at once, so
// that a hung server cannot fill the budget and stall the calls to other
// servers.
type budget struct {
	mu      sync.Mutex
	limit   int64
	used    int64
	servers map[string]int64
	changed chan struct{} // closed and replaced when room is freed
}

// callOverhead is what one call costs the parent beyond its frame: the
// message, the goroutine that serves it, its result's envelope.
const callOverhead = worker.CallOverhead

func newBudget(limit int64) *budget {
	return &budget{limit: limit, servers: map[string]int64{}, changed: make(chan struct{})}
}

// acquire takes n bytes, waiting until there is room or ctx ends. A run
// that holds nothing always gets its first frame, whatever its size (the
// wire bounds a frame).
func (b *budget) acquire(ctx context.Context, n int64) error {
	for {
		b.mu.Lock()
		if b.used == 0 || b.used+n <= b.limit {
			b.used += n
			b.mu.Unlock()
			return nil
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// force takes n bytes without waiting: memory that exists already (a
// result the server sent). It makes the reader wait until it is released.
func (b *budget) force(n int64) {
	b.mu.Lock()
	b.used += n
	b.mu.Unlock()
}

// release gives back n bytes.
func (b *budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// admit charges n bytes, already acquired, to server: false when the
// server holds its share already.
func (b *budget) admit(server string, n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	held := b.servers[server]
	if held > 0 && held+n > b.serverShare() {
		return false
	}
	b.servers[server] = held + n
	return true
}

// serverShare is the bytes one server may hold: a quarter of the budget.
func (b *budget) serverShare() int64 { return b.limit / 4 }

// leave uncharges n bytes from server.
func (b *budget) leave(server string, n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.servers[server] -= n; b.servers[server] <= 0 {
		delete(b.servers, server)
	}
}

// slots are the call slots of one run, per server: a server that does not
// answer holds only its own slots, never another server's.
type slots struct {
	mu   sync.Mutex
	size int
	m    map[string]*serverSlots
}

type serverSlots struct {
	sem   chan struct{}
	users int // calls waiting for or holding a slot
}

func newSlots(size int) *slots { return &slots{size: size, m: map[string]*serverSlots{}} }

// take waits for a slot of server; the returned function gives it back.
func (s *slots) take(ctx context.Context, server string) (func(), error) {
	s.mu.Lock()
	ss := s.m[server]
	if ss == nil {
		ss = &serverSlots{sem: make(chan struct{}, s.size)}
		s.m[server] = ss
	}
	ss.users++
	s.mu.Unlock()
	done := func() {
		s.mu.Lock()
		if ss.users--; ss.users == 0 {
			delete(s.m, server)
		}
		s.mu.Unlock()
	}
	select {
	case ss.sem <- struct{}{}:
		return func() { <-ss.sem; done() }, nil
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}
