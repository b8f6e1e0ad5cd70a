package worker

import (
	"context"
	"sync"
)

// CallOverhead is what the parent charges a call beyond its frame: the
// worker's flow control and the parent's budget count a call the same way
// (FrameSize + CallOverhead), so that a worker that keeps to its limits is
// never refused.
const CallOverhead = 8 << 10

// CallCharge is what a call of server.tool with args counts against the
// limits of Config.CallSlots and Config.ServerBytes.
func CallCharge(server, tool string, args []byte) int64 {
	return int64(1+8+2+len(server)+2+len(tool)+len(args)) + CallOverhead
}

// flow holds a snippet's calls in the worker, per server, until the
// server has a free call slot and room in its share of the parent's
// budget: the snippet's goroutines wait here, in the worker's own bounded
// memory, rather than in the parent; a server that does not answer holds
// up only the calls to itself.
type flow struct {
	slots int   // calls in flight per server; 0: no limit
	bytes int64 // bytes in flight per server; 0: no limit

	mu      sync.Mutex
	servers map[string]*serverFlow
}

type serverFlow struct {
	calls   int
	bytes   int64
	users   int
	changed chan struct{}
}

func newFlow(slots int, bytes int64) *flow {
	return &flow{slots: slots, bytes: bytes, servers: map[string]*serverFlow{}}
}

// take waits until server has room for a call of n bytes; the returned
// function gives the room back. A server with nothing in flight always has
// room for one call, whatever its size.
func (f *flow) take(ctx context.Context, server string, n int64) (func(), error) {
	if f == nil || (f.slots <= 0 && f.bytes <= 0) {
		return func() {}, nil
	}
	f.mu.Lock()
	s := f.servers[server]
	if s == nil {
		s = &serverFlow{changed: make(chan struct{})}
		f.servers[server] = s
	}
	s.users++
	for {
		fits := s.calls == 0 ||
			((f.slots <= 0 || s.calls < f.slots) && (f.bytes <= 0 || s.bytes+n <= f.bytes))
		if fits {
			s.calls++
			s.bytes += n
			f.mu.Unlock()
			return func() { f.give(server, s, n) }, nil
		}
		ch := s.changed
		f.mu.Unlock()
		select {
		case <-ch:
			f.mu.Lock()
		case <-ctx.Done():
			f.mu.Lock()
			f.leave(server, s)
			f.mu.Unlock()
			return nil, ctx.Err()
		}
	}
}

func (f *flow) give(server string, s *serverFlow, n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s.calls--
	s.bytes -= n
	close(s.changed)
	s.changed = make(chan struct{})
	f.leave(server, s)
}

// leave drops a user of s; f.mu is held.
func (f *flow) leave(server string, s *serverFlow) {
	if s.users--; s.users == 0 {
		delete(f.servers, server)
	}
}
