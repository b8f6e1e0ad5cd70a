package discovery

import (
	"encoding/json"
	"log/slog"
	"sync"
	"time"
)

// idTracker follows the ids of the requests written to a stdio server, so
// that an answer whose id matches none of them is reported: mcp-go's
// transport drops such an answer without a word, and the request it was
// meant for would otherwise only time out, unexplained.
type idTracker struct {
	log *slog.Logger

	mu        sync.Mutex
	pending   map[string]string // method of each id sent and not answered
	cancelled map[string]bool   // ids given up on (notifications/cancelled)
	order     []string          // cancelled ids, oldest first, to bound the map
	rate      rateLimit
}

// maxTrackedIDs bounds each of the tracker's sets: a server that never
// answers must not grow mcpfs.
const maxTrackedIDs = 4096

func newIDTracker(log *slog.Logger) *idTracker {
	return &idTracker{
		log:       log,
		pending:   map[string]string{},
		cancelled: map[string]bool{},
		rate:      rateLimit{burst: rateLimitBurst, per: rateLimitWindow},
	}
}

type frameHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// sent is told about each frame written to the server.
func (t *idTracker) sent(frame []byte) {
	var h frameHead
	if json.Unmarshal(frame, &h) != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case h.Method == notifyCancelled && len(h.Params.RequestID) > 0:
		id := string(h.Params.RequestID)
		delete(t.pending, id)
		if !t.cancelled[id] {
			t.cancelled[id] = true
			t.order = append(t.order, id)
			if len(t.order) > maxTrackedIDs {
				delete(t.cancelled, t.order[0])
				t.order = t.order[1:]
			}
		}
	case h.Method != "" && len(h.ID) > 0 && string(h.ID) != "null":
		if len(t.pending) >= maxTrackedIDs {
			clear(t.pending) // only reports suffer: better than growing
		}
		t.pending[string(h.ID)] = h.Method
	}
}

// received is told about each JSON line the server wrote. An answer (an
// id and no method) to a request that was given up on is dropped quietly;
// one whose id was never sent is logged, at a bounded rate.
func (t *idTracker) received(line []byte) {
	var h frameHead
	if json.Unmarshal(line, &h) != nil || h.Method != "" || len(h.ID) == 0 {
		return
	}
	id := string(h.ID)
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.pending[id] != "":
		delete(t.pending, id)
	case t.cancelled[id]:
		t.log.Debug("an answer arrived after its request was cancelled; dropped", "id", truncate(id, 100))
	default:
		if ok, suppressed := t.rate.allow(time.Now()); ok {
			t.log.Warn("the server answered with an id mcpfs never sent (or sent twice); dropped", "id", truncate(id, 100), "suppressed-before", suppressed)
		}
	}
}

// onlyListing reports whether a tools/list request waits and no
// tools/call does: a long line then can only be the listing (or garbage),
// and the listing's bound applies to it.
func (t *idTracker) onlyListing() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	listing := false
	for _, m := range t.pending {
		switch m {
		case methodToolsCall:
			return false
		case methodToolsList:
			listing = true
		}
	}
	return listing
}
