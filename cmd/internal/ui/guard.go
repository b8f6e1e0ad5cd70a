package ui

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/netip"
	"path"
	"strings"
)

// cookieName is the name of the cookie that carries the token, per port:
// cookies do not tell ports apart, and two pages may run at once.
func cookieName(host string) string {
	_, port, _ := net.SplitHostPort(host)
	return "mcpfs_ui_" + port
}

// guard checks a request before any handler sees it, in this order: the
// Host is a loopback name (403), an Origin is the page's own (403), a
// fetch from another site is refused (403), the token is there (401). A
// GET with ?token=<token> sets the cookie and redirects to the same path
// without the token, so that it stays out of the history and the logs.
type guard struct {
	token []byte
	next  http.Handler
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !loopbackHost(r.Host) {
		refuse(w, http.StatusForbidden, "Host "+quote(r.Host)+" is not a loopback name (DNS rebinding protection): open the URL mcpfs ui printed")
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !strings.EqualFold(o, "http://"+r.Host) {
		refuse(w, http.StatusForbidden, "Origin "+quote(o)+" is not this page's")
		return
	}
	if q := r.URL.Query().Get("token"); q != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		if !g.match(q) {
			refuse(w, http.StatusUnauthorized, "wrong token: open the URL mcpfs ui printed")
			return
		}
		http.SetCookie(w, &http.Cookie{Name: cookieName(r.Host), Value: q, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		// A relative redirect (the same path, without the token), so that
		// the page works under a path prefix too (http.StripPrefix).
		loc := "./"
		if p := r.URL.Path; !strings.HasSuffix(p, "/") {
			loc = path.Base(p)
		}
		v := r.URL.Query()
		v.Del("token")
		if q := v.Encode(); q != "" {
			loc += "?" + q
		}
		w.Header().Set("Location", loc)
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusSeeOther)
		return
	}
	if s := r.Header.Get("Sec-Fetch-Site"); s == "cross-site" || s == "same-site" {
		refuse(w, http.StatusForbidden, "requests from other sites are refused")
		return
	}
	if !g.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpfs"`)
		refuse(w, http.StatusUnauthorized, "no token: open the URL mcpfs ui printed (it ends in ?token=...), or send Authorization: Bearer <token>")
		return
	}
	r.Header.Del("Authorization")
	r.Header.Del("Cookie")
	g.next.ServeHTTP(w, r)
}

// authorized reports whether r carries the token, as a bearer token or
// as the page's cookie.
func (g *guard) authorized(r *http.Request) bool {
	if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return g.match(b)
	}
	c, err := r.Cookie(cookieName(r.Host))
	return err == nil && g.match(c.Value)
}

func (g *guard) match(tok string) bool {
	return subtle.ConstantTimeCompare([]byte(tok), g.token) == 1
}

func refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Connection", "close")
	http.Error(w, "mcpfs ui: "+msg, code)
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// loopbackHost reports whether a Host header names this machine's
// loopback: localhost, 127.0.0.0/8 or [::1], with any port.
func loopbackHost(hostport string) bool {
	host := strings.ToLower(hostport)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
