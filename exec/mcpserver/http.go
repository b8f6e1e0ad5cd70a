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
	// SessionIdleTTL drops the state of a session idle that long. Default
	// 1 hour.
	SessionIdleTTL time.Duration
}

// ErrNoToken is returned by Handler when HTTPOptions.Token is empty.
var ErrNoToken = errors.New("the HTTP face needs a bearer token")

// Handler returns the streamable HTTP handler of the server, guarded as
// HTTPOptions says. Requests are checked in this order, and a refused one
// never reaches the MCP layer: Host and Origin (403), the bearer token
// (401), the path (404), the body size (413).
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
		opts.SessionIdleTTL = time.Hour
	}
	g := &guard{
		opts:    opts,
		token:   []byte("Bearer " + opts.Token),
		hosts:   map[string]bool{},
		origins: map[string]bool{},
		log:     s.log,
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
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), g.token) != 1 {
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
	g.next.ServeHTTP(w, r)
}

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
