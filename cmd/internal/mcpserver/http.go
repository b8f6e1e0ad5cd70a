package mcpserver

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// DefaultMaxBody bounds an HTTP request body: room for the largest
// snippet, JSON-escaped.
const DefaultMaxBody = 4 << 20

// HTTPOptions configure the streamable HTTP face.
type HTTPOptions struct {
	// Token is the bearer token every request must carry
	// ("Authorization: Bearer <Token>"). Required. It is checked here and
	// removed from the request: nothing after this handler sees it.
	Token string
	// AllowedHosts are Host header values accepted besides the loopback
	// names (localhost, 127.0.0.0/8, [::1], with any port): the names a
	// server bound to another interface is reached by. "host" accepts
	// any port, "host:port" that port only.
	AllowedHosts []string
	// AllowedOrigins are Origin header values accepted besides loopback
	// origins ("http://localhost:5173"). A request without Origin (not
	// from a browser) is accepted.
	AllowedOrigins []string
	// MaxBody bounds a request body in bytes. Default DefaultMaxBody.
	MaxBody int64
	// Path is the MCP endpoint. Default "/mcp".
	Path string
	// SessionIdleTTL drops a session idle that long: its id then gets
	// 404 and the client starts a new one. Default 10 minutes.
	SessionIdleTTL time.Duration
	// MaxSessions bounds the live sessions; a request for a new one
	// beyond it gets 503. Default DefaultMaxSessions.
	MaxSessions int
}

// Defaults of HTTPOptions.
const (
	DefaultSessionIdleTTL = 10 * time.Minute
	DefaultMaxSessions    = 32
)

// sessionHeader is the streamable HTTP session id header.
const sessionHeader = "Mcp-Session-Id"

// ErrNoToken is returned by Handler when HTTPOptions.Token is empty.
var ErrNoToken = errors.New("the HTTP face needs a bearer token")

// Handler returns the streamable HTTP handler of the server, guarded as
// HTTPOptions says. Requests are checked in this order, and a refused one
// never reaches the MCP layer: Host and Origin (403), the bearer token
// (401), the path (404), the body size (413), the session: an id the
// server did not give out or that idled out (404), a new session beyond
// MaxSessions (503).
func (s *Server) Handler(opts HTTPOptions) (http.Handler, error) {
	if opts.Token == "" {
		return nil, ErrNoToken
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.Path == "" {
		opts.Path = "/mcp"
	}
	if opts.SessionIdleTTL <= 0 {
		opts.SessionIdleTTL = DefaultSessionIdleTTL
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	g := &guard{
		opts:     opts,
		token:    []byte(opts.Token),
		sessions: map[string]time.Time{},
		now:      time.Now,
		hosts:    map[string]bool{},
		origins:  map[string]bool{},
		log:      s.log,
	}
	for _, h := range opts.AllowedHosts {
		g.hosts[strings.ToLower(h)] = true
	}
	for _, o := range opts.AllowedOrigins {
		g.origins[strings.ToLower(strings.TrimSuffix(o, "/"))] = true
	}
	g.next = server.NewStreamableHTTPServer(s.mcp,
		server.WithEndpointPath(opts.Path),
		server.WithStreamableHTTPLogger(s.log),
		// The guard checks Host itself, with AllowedHosts.
		server.WithDisableLocalhostProtection(true),
		server.WithSessionIdleTTL(opts.SessionIdleTTL),
	)
	return g, nil
}

// guard checks a request before the MCP layer sees it.
type guard struct {
	opts    HTTPOptions
	token   []byte
	hosts   map[string]bool
	origins map[string]bool
	next    http.Handler
	log     *slog.Logger

	mu       sync.Mutex
	sessions map[string]time.Time // live session ids and their last use
	now      func() time.Time
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostAllowed(r.Host) {
		g.refuse(w, r, http.StatusForbidden, fmt.Sprintf("Host %q is not allowed (DNS rebinding protection); mcpfs serve --allow-host adds names", r.Host))
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !g.originAllowed(o) {
		g.refuse(w, r, http.StatusForbidden, fmt.Sprintf("Origin %q is not allowed; mcpfs serve --allow-origin adds origins", o))
		return
	}
	if !g.authorized(r.Header.Get("Authorization")) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpfs"`)
		g.refuse(w, r, http.StatusUnauthorized, "missing or wrong bearer token: send Authorization: Bearer <token> (the token mcpfs serve printed the file of)")
		return
	}
	r.Header.Del("Authorization")
	if r.URL.Path != g.opts.Path {
		g.refuse(w, r, http.StatusNotFound, fmt.Sprintf("no such endpoint %q: MCP is served at %s", r.URL.Path, g.opts.Path))
		return
	}
	if r.Body != nil && r.Body != http.NoBody {
		if r.ContentLength > g.opts.MaxBody {
			g.refuse(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body of %d bytes is over the limit of %d", r.ContentLength, g.opts.MaxBody))
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, g.opts.MaxBody+1))
		r.Body.Close()
		if err != nil {
			g.refuse(w, r, http.StatusBadRequest, "read request body: "+err.Error())
			return
		}
		if int64(len(body)) > g.opts.MaxBody {
			g.refuse(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is over the limit of %d bytes", g.opts.MaxBody))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	if id := r.Header.Get(sessionHeader); id != "" {
		if !g.touch(id) {
			g.refuse(w, r, http.StatusNotFound, "unknown or expired session: start a new one with initialize")
			return
		}
		g.next.ServeHTTP(w, r)
		if r.Method == http.MethodDelete {
			g.mu.Lock()
			delete(g.sessions, id)
			g.mu.Unlock()
		}
		return
	}
	if !g.roomForSession() {
		g.refuse(w, r, http.StatusServiceUnavailable, fmt.Sprintf("%d sessions are open, the limit: end one (DELETE) or wait for one to idle out (%v)", g.opts.MaxSessions, g.opts.SessionIdleTTL))
		return
	}
	g.next.ServeHTTP(&sessionWriter{ResponseWriter: w, g: g}, r)
}

// authorized checks an Authorization header: the scheme "Bearer" in any
// case (RFC 9110 makes schemes case-insensitive), one space, the token.
func (g *guard) authorized(h string) bool {
	scheme, token, ok := strings.Cut(h, " ")
	return ok && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(token), g.token) == 1
}

// touch marks session id used now; false when the guard did not see the
// server give it out, or it idled out.
func (g *guard) touch(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	last, ok := g.sessions[id]
	now := g.now()
	if !ok || now.Sub(last) > g.opts.SessionIdleTTL {
		delete(g.sessions, id)
		return false
	}
	g.sessions[id] = now
	return true
}

// roomForSession drops idle sessions and reports whether a new one fits.
func (g *guard) roomForSession() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	for id, last := range g.sessions {
		if now.Sub(last) > g.opts.SessionIdleTTL {
			delete(g.sessions, id)
		}
	}
	return len(g.sessions) < g.opts.MaxSessions
}

// sessionWriter records the session id the server gives out, before the
// response reaches the client (which may use the id at once).
type sessionWriter struct {
	http.ResponseWriter
	g    *guard
	seen bool
}

func (w *sessionWriter) record() {
	if w.seen {
		return
	}
	w.seen = true
	if id := w.Header().Get(sessionHeader); id != "" {
		w.g.mu.Lock()
		w.g.sessions[id] = w.g.now()
		w.g.mu.Unlock()
	}
}

func (w *sessionWriter) WriteHeader(code int) {
	w.record()
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionWriter) Write(b []byte) (int, error) {
	w.record()
	return w.ResponseWriter.Write(b)
}

func (w *sessionWriter) Flush() {
	w.record()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *sessionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (g *guard) refuse(w http.ResponseWriter, r *http.Request, code int, msg string) {
	g.log.Debug("http request refused", "status", code, "method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr, "why", msg)
	w.Header().Set("Connection", "close")
	http.Error(w, "mcpfs: "+msg, code)
}

// hostAllowed accepts loopback names with any port, and AllowedHosts.
func (g *guard) hostAllowed(hostport string) bool {
	hostport = strings.ToLower(hostport)
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	return isLoopback(host) || g.hosts[hostport] || g.hosts[host]
}

// originAllowed accepts loopback origins and AllowedOrigins.
func (g *guard) originAllowed(origin string) bool {
	origin = strings.ToLower(strings.TrimSuffix(origin, "/"))
	if g.origins[origin] {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return isLoopback(u.Hostname())
}

// isLoopback reports whether host (no port, no brackets) is a loopback
// name or address.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
