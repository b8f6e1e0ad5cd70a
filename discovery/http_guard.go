package discovery

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"sync"
	"time"
)

// guardTransport does for an HTTP server (streamable HTTP or SSE) what
// stdoutFilter does for a stdio one, before mcp-go decodes anything: each
// message, a JSON body or an event of an event stream, is bounded at max
// bytes; one nested deeper than MaxJSONDepth is refused (an answer
// becomes an error answer saying why, anything else is dropped with a
// note); chatty notifications pass at a bounded rate (floodGate).
type guardTransport struct {
	next *http.Transport
	log  *slog.Logger
	max  int

	mu      sync.Mutex // guards flood and skipped: streams run at once
	flood   floodGate
	skipped rateLimit
}

func newGuardTransport(next *http.Transport, max int, log *slog.Logger) *guardTransport {
	return &guardTransport{next: next, log: log, max: max, flood: floodGate{log: log},
		skipped: rateLimit{burst: rateLimitBurst, per: rateLimitWindow}}
}

// CloseIdleConnections closes the pool's idle connections (http.Client's
// CloseIdleConnections reaches it through this).
func (g *guardTransport) CloseIdleConnections() { g.next.CloseIdleConnections() }

func (g *guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := g.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "text/event-stream":
		resp.Body = &sseGuard{g: g, body: resp.Body, br: bufio.NewReaderSize(resp.Body, 64<<10), id: requestID(req)}
	case "application/json":
		resp.Body = g.jsonBody(resp.Body, requestID(req))
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	}
	return resp, nil
}

// errMessageTooLarge is what a message over the bound reads as.
var errMessageTooLarge = errors.New("a message from the server is too large")

// requestID is the id of the JSON-RPC request req posts, nil when it
// posts none (a GET, a notification): the answer a POST's response
// carries is to that request.
func requestID(req *http.Request) []byte {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, 1<<20))
	if err != nil || len(bytes.TrimSpace(data)) == 0 || bytes.TrimSpace(data)[0] != '{' {
		return nil
	}
	return scanHead(bytes.TrimSpace(data)).id
}

// tooLarge is the error answer to id that replaces an answer over the
// bound.
func (g *guardTransport) tooLarge(id []byte) []byte {
	g.log.Warn("refused an answer over the size bound; its request fails", "id", truncate(string(id), 100), "max", g.max)
	return errorAnswer(id, fmt.Sprintf("mcpfs refused the server's answer: it is too large, over %d bytes, the bound on one message; ask the tool for less (a page, a range, a filter)", g.max))
}

// jsonBody reads a JSON answer whole (up to the bound) and returns what
// the transport is to decode instead.
func (g *guardTransport) jsonBody(body io.ReadCloser, id []byte) io.ReadCloser {
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, int64(g.max)+1))
	switch {
	case err != nil:
		return io.NopCloser(&errReader{err})
	case len(data) > g.max && id != nil:
		return io.NopCloser(bytes.NewReader(g.tooLarge(id)))
	case len(data) > g.max:
		g.log.Warn("refused an answer over the size bound", "max", g.max)
		return io.NopCloser(&errReader{fmt.Errorf("%w: over %d bytes", errMessageTooLarge, g.max)})
	}
	if out, ok := g.message(data); ok {
		return io.NopCloser(bytes.NewReader(out))
	}
	return io.NopCloser(bytes.NewReader(nil))
}

// message applies the depth bound and the flood gate to one message.
func (g *guardTransport) message(data []byte) ([]byte, bool) {
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return data, true
	}
	h := scanHead(t)
	g.mu.Lock()
	defer g.mu.Unlock()
	if h.depth > MaxJSONDepth {
		if h.method == "" && h.id != nil {
			g.log.Warn("refused an answer that nests deeper than the bound; its request fails", "id", truncate(string(h.id), 100), "depth", h.depth, "max", MaxJSONDepth)
			return bytes.TrimRight(refusal(h.id, h.depth), "\n"), true
		}
		if ok, suppressed := g.skipped.allow(time.Now()); ok {
			g.log.Warn("dropped a message from the server that nests deeper than the bound", "method", truncate(h.method, 100), "depth", h.depth, "max", MaxJSONDepth, "suppressed-before", suppressed)
		}
		return nil, false
	}
	if h.id == nil && h.method != "" && !g.flood.pass(h.method, time.Now()) {
		return nil, false
	}
	return data, true
}

type errReader struct{ err error }

func (r *errReader) Read([]byte) (int, error) { return 0, r.err }

// sseGuard passes an event stream on event by event, each applied to the
// guard: an event is at most max bytes, its data one message.
type sseGuard struct {
	g    *guardTransport
	body io.ReadCloser
	br   *bufio.Reader

	event   [][]byte // the lines of the event being read
	size    int
	pending []byte // what is yet to be handed out
	err     error
	// id is the request whose answer the stream carries (a POST's), nil
	// for a stream of its own (GET); over is set while an event over the
	// bound is skipped.
	id   []byte
	over bool
}

func (s *sseGuard) Close() error { return s.body.Close() }

func (s *sseGuard) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		line, err := s.readLine()
		if errors.Is(err, errMessageTooLarge) && s.id != nil {
			// The answer to the stream's request is over the bound: skip
			// the rest of the event, then answer the request with why.
			s.event, s.size, s.over, err = nil, 0, true, nil
			continue
		}
		if len(line) > 0 {
			end := len(bytes.TrimRight(line, "\r\n")) == 0
			switch {
			case s.over && end:
				s.over = false
				s.pending = append([]byte("event: message\ndata: "), append(bytes.TrimRight(s.g.tooLarge(s.id), "\n"), "\n\n"...)...)
				s.id = nil // one answer per request
			case s.over:
				s.size = 0 // skipped, not kept
			default:
				s.event = append(s.event, line)
				if end {
					s.pending = s.flush()
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(s.event) > 0 {
				s.pending = append(s.flush(), '\n')
			}
			s.err = err
		}
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// readLine reads one line, bounded by what is left of the event's bound.
func (s *sseGuard) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.br.ReadSlice('\n')
		s.size += len(chunk)
		if s.size > s.g.max {
			s.g.log.Warn("ended an event stream whose event is over the size bound", "max", s.g.max)
			return nil, fmt.Errorf("%w: an event over %d bytes", errMessageTooLarge, s.g.max)
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, err
	}
}

// flush returns the event read, as it is to be passed on.
func (s *sseGuard) flush() []byte {
	lines := s.event
	s.event, s.size = nil, 0
	var data [][]byte
	for _, l := range lines {
		if d, ok := bytes.CutPrefix(bytes.TrimRight(l, "\r\n"), []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(d, []byte(" ")))
		}
	}
	if len(data) == 0 {
		return bytes.Join(lines, nil)
	}
	msg := bytes.Join(data, []byte("\n"))
	out, ok := s.g.message(msg)
	switch {
	case !ok:
		// Dropped; its id line is kept, so a resumed stream goes on after
		// it.
		var kept []byte
		for _, l := range lines {
			if bytes.HasPrefix(l, []byte("id:")) || bytes.HasPrefix(l, []byte("retry:")) {
				kept = append(kept, l...)
			}
		}
		if kept != nil {
			kept = append(kept, '\n')
		}
		return kept
	case bytes.Equal(out, msg):
		return bytes.Join(lines, nil)
	}
	var b bytes.Buffer
	for _, l := range lines {
		if !bytes.HasPrefix(l, []byte("data:")) && len(bytes.TrimRight(l, "\r\n")) > 0 {
			b.Write(l)
		}
	}
	b.WriteString("data: ")
	b.Write(out)
	b.WriteString("\n\n")
	return b.Bytes()
}
