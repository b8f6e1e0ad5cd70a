package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Bounds of what an exec run sends as progress: a client shows these
// lines as they come, and the tool's result holds the output anyway.
const (
	progressMaxNotes = 1000    // notifications per run; then one saying the rest is in the result
	progressMaxLine  = 4 << 10 // bytes of one line's message
)

// progressHooks returns the hooks that send an exec run's output, line by
// line, and its wait for a run slot to the client as
// notifications/progress, when the request asked for progress (a
// progressToken in its _meta); otherwise no hooks. flush, called before
// the result is returned, lets the notifications go out first.
func progressHooks(ctx context.Context, req mcp.CallToolRequest) (hooks RunHooks, flush func()) {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return RunHooks{}, func() {}
	}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return RunHooks{}, func() {}
	}
	p := &progress{ctx: ctx, srv: srv, token: req.Params.Meta.ProgressToken}
	return RunHooks{Stdout: p, Waiting: p.waiting}, p.flush
}

// flushWait bounds how long a result waits for its progress to be sent.
const flushWait = 100 * time.Millisecond

// flush waits, a short while at most, until the session has written the
// notifications queued for it: mcp-go queues them and writes them from
// another goroutine than the result's, so a result returned at once could
// overtake the last lines of its own progress.
func (p *progress) flush() {
	p.mu.Lock()
	sent := p.sent
	p.mu.Unlock()
	session := server.ClientSessionFromContext(p.ctx)
	if sent == 0 || session == nil {
		return
	}
	queue := session.NotificationChannel()
	for end := time.Now().Add(flushWait); len(queue) > 0 && time.Now().Before(end); {
		time.Sleep(100 * time.Microsecond)
	}
	// The last one taken from the queue may still be being written.
	time.Sleep(2 * time.Millisecond)
}

// progress sends notifications/progress for one request.
type progress struct {
	ctx   context.Context
	srv   *server.MCPServer
	token mcp.ProgressToken

	mu   sync.Mutex
	sent int
}

// Write sends each whole line of p as one notification; exec's stream
// writes whole lines, and a line left unfinished for a while as it is.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// exec passes an unfinished line on only after a pause: it is sent
	// as it is, not held for its end.
	for data := b; len(data) > 0; {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		p.note(string(line))
		data = rest
	}
	return len(b), nil
}

// waiting says the run waits for a slot.
func (p *progress) waiting(running int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.note(fmt.Sprintf("[mcpfs: waiting for a run slot: %d runs are running]", running))
}

// note sends one message, within the run's bounds. p.mu is held.
func (p *progress) note(msg string) {
	if p.sent > progressMaxNotes {
		return
	}
	p.sent++
	if p.sent > progressMaxNotes {
		msg = fmt.Sprintf("[mcpfs: %d lines sent as progress; the rest of the output is in the result]", progressMaxNotes)
	} else if len(msg) > progressMaxLine {
		msg = msg[:progressMaxLine] + " [line cut]"
	}
	// The client may be gone; the run goes on and its result says all.
	_ = p.srv.SendNotificationToClient(p.ctx, "notifications/progress", map[string]any{
		"progressToken": p.token,
		"progress":      p.sent,
		"message":       msg,
	})
}
