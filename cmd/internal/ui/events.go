package ui

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// event is one server-sent event, its data encoded.
type event struct {
	name string
	data []byte
}

// broker hands events to every open event stream. A stream that does not
// keep up is ended; the page reconnects and reloads its state.
type broker struct {
	mu      sync.Mutex
	clients map[chan event]struct{}
	closed  bool
}

func newBroker() *broker { return &broker{clients: map[chan event]struct{}{}} }

func (b *broker) publish(name string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.clients {
		select {
		case ch <- event{name, data}:
		default:
			delete(b.clients, ch)
			close(ch)
		}
	}
}

func (b *broker) subscribe() (chan event, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, false
	}
	ch := make(chan event, 256)
	b.clients[ch] = struct{}{}
	return ch, true
}

func (b *broker) unsubscribe(ch chan event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.clients[ch]; ok {
		delete(b.clients, ch)
		close(ch)
	}
}

func (b *broker) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for ch := range b.clients {
		delete(b.clients, ch)
		close(ch)
	}
}

// keepAlive is how often an idle event stream gets a comment line.
const keepAlive = 20 * time.Second

func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	ch, ok := s.events.subscribe()
	if !ok {
		writeError(w, http.StatusServiceUnavailable, "the page is closing")
		return
	}
	defer s.events.unsubscribe(ch)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	// The state now, so that nothing between the page's first load and
	// this stream is missed.
	servers, _ := json.Marshal(s.servers())
	skills, _ := json.Marshal(s.skillList())
	// retry: reconnect soon after the stream was ended for falling behind.
	fmt.Fprintf(w, "retry: 500\n\nevent: servers\ndata: %s\n\nevent: skills\ndata: %s\n\n", servers, skills)
	if err := rc.Flush(); err != nil {
		return
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return
			}
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.name, ev.data)
		case <-tick.C:
			fmt.Fprint(w, ": keep-alive\n\n")
		case <-r.Context().Done():
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}
