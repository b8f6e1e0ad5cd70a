package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	iofs "io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// authServer is an OAuth 2.1 authorization server and an MCP server that
// needs its tokens, in one test HTTP server: protected resource metadata,
// authorization server metadata, dynamic client registration, an
// authorization endpoint that approves at once (the user's browser), a
// token endpoint with PKCE and refresh tokens, and the MCP endpoint /mcp.
type authServer struct {
	t   *testing.T
	srv *httptest.Server

	mu        sync.Mutex
	expiresIn int                                           // of new access tokens, seconds
	clients   map[string]string                             // client id -> redirect uri
	codes     map[string]struct{ client, challenge string } // pending codes
	access    map[string]bool                               // valid access tokens
	refresh   map[string]bool                               // valid refresh tokens
	refreshed int                                           // refresh grants answered
	issued    []string                                      // every token issued
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{t: t, expiresIn: 3600, clients: map[string]string{},
		codes: map[string]struct{ client, challenge string }{}, access: map[string]bool{}, refresh: map[string]bool{}}
	mcpSrv := server.NewMCPServer("remote", "1.0.0", server.WithToolCapabilities(false))
	mcpSrv.AddTool(mcp.NewTool("whoami", mcp.WithDescription("Say who the caller is."), mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("a logged-in user"), nil
		})
	mcpHandler := server.NewStreamableHTTPServer(mcpSrv)
	mux := http.NewServeMux()
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	base := a.srv.URL
	writeJSON := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("/.well-known/oauth-protected-resource/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{
			"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "response_types_supported": []string{"code"},
			"grant_types_supported":            []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
		})
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if len(req.RedirectURIs) != 1 || !strings.HasPrefix(req.RedirectURIs[0], "http://127.0.0.1:") {
			writeJSON(w, 400, map[string]string{"error": "invalid_redirect_uri"})
			return
		}
		id := a.token("client")
		a.mu.Lock()
		a.clients[id] = req.RedirectURIs[0]
		a.mu.Unlock()
		writeJSON(w, 201, map[string]any{"client_id": id, "token_endpoint_auth_method": "none", "redirect_uris": req.RedirectURIs})
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a.mu.Lock()
		redirect, ok := a.clients[q.Get("client_id")]
		a.mu.Unlock()
		if !ok || q.Get("redirect_uri") != redirect || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("resource") != base+"/mcp" {
			http.Error(w, "bad authorization request: "+r.URL.RawQuery, 400)
			return
		}
		code := a.token("code")
		a.mu.Lock()
		a.codes[code] = struct{ client, challenge string }{q.Get("client_id"), q.Get("code_challenge")}
		a.mu.Unlock()
		http.Redirect(w, r, redirect+"?code="+code+"&state="+q.Get("state"), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			c, ok := a.codes[r.Form.Get("code")]
			delete(a.codes, r.Form.Get("code"))
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if !ok || c.client != r.Form.Get("client_id") || base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
		case "refresh_token":
			if !a.refresh[r.Form.Get("refresh_token")] {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "revoked"})
				return
			}
			delete(a.refresh, r.Form.Get("refresh_token"))
			a.refreshed++
		default:
			writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
			return
		}
		at, rt := a.tokenLocked("at"), a.tokenLocked("rt")
		a.access[at], a.refresh[rt] = true, true
		writeJSON(w, 200, map[string]any{"access_token": at, "token_type": "Bearer", "refresh_token": rt, "expires_in": a.expiresIn})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		a.mu.Lock()
		ok := a.access[tok]
		a.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+base+`/.well-known/oauth-protected-resource"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})
	return a
}

func (a *authServer) token(kind string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tokenLocked(kind)
}

func (a *authServer) tokenLocked(kind string) string {
	b := make([]byte, 16)
	rand.Read(b)
	s := kind + "-" + hex.EncodeToString(b)
	a.issued = append(a.issued, s)
	return s
}

// revoke makes every token issued so far invalid.
func (a *authServer) revoke() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.access, a.refresh = map[string]bool{}, map[string]bool{}
}

// TestOAuth: a server that needs a login is shown so; mcpfs auth runs
// the whole flow (discovery, registration, PKCE, loopback redirect); the
// token is refreshed before it expires and kept in one file only; a
// revoked login is shown as needing a login again.
func TestOAuth(t *testing.T) {
	a := newAuthServer(t)
	r := newResidentEnv(t, fmt.Sprintf(`{"mcpServers": {"remote": {"type": "http", "url": %q, "mcpfs": {"oauth": true}}}}`, a.srv.URL+"/mcp"))

	eventually(t, "remote shown as needing a login", func() (bool, string) {
		out, stderr, _ := r.run("", "cat", "servers/remote/doc.go")
		return strings.Contains(out, "needs login: mcpfs auth remote"), out + stderr
	})

	if out, _, _ := r.run("", "ls", "servers"); !strings.Contains(out, "needs login: mcpfs auth remote\n") {
		t.Errorf("ls servers:\n%s", out)
	}

	// mcpfs auth prints the URL and waits; the test is the browser.
	c := r.cmd("auth", "remote")
	stdout, _ := c.StdoutPipe()
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var authURL string
	for sc.Scan() {
		if u, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "http"); ok && strings.Contains(u, "/authorize?") {
			authURL = "http" + u
			break
		}
	}
	if authURL == "" {
		c.Wait()
		t.Fatalf("mcpfs auth printed no URL; stderr: %s", stderr.String())
	}
	resp, err := http.Get(authURL) // follows the redirect to mcpfs's loopback listener
	if err != nil {
		t.Fatalf("the browser: %v", err)
	}
	resp.Body.Close()
	var rest strings.Builder
	for sc.Scan() {
		rest.WriteString(sc.Text() + "\n")
	}
	if err := c.Wait(); err != nil || !strings.Contains(rest.String(), "logged in to remote") {
		t.Fatalf("mcpfs auth: %v, stdout %q, stderr %s", err, rest.String(), stderr.String())
	}

	eventually(t, "remote's tools after the login", func() (bool, string) {
		out, stderr, _ := r.run("", "ls", "servers/remote")
		return strings.Contains(out, "whoami.go"), out + stderr
	})
	whoami := "package main\n\nimport (\n\t\"fmt\"\n\n\t\"mcpfs/servers/remote\"\n)\n\nfunc main() {\n\tres, err := remote.Whoami(remote.WhoamiArgs{})\n\tfmt.Println(res.Text(), err)\n}\n"
	if out, stderr, _ := r.run(whoami, "run", "-"); !strings.Contains(out, "a logged-in user <nil>") {
		t.Fatalf("call after the login: %q %s", out, stderr)
	}

	// Tokens that expire in 31 s are refreshed 30 s early.
	a.mu.Lock()
	a.expiresIn = 31
	a.mu.Unlock()
	a.revoke() // the current access token and its refresh token are refused
	if out, stderr, _ := r.run(whoami, "run", "-"); !strings.Contains(out, "needs login: mcpfs auth remote") {
		t.Errorf("call with a revoked token: %q %s", out, stderr)
	}
	r.run("", "engine", "stop")
	// The stored token is revoked; its refresh token too: needs login.
	eventually(t, "remote needs a login again after the revocation", func() (bool, string) {
		out, stderr, _ := r.run("", "cat", "servers/remote/doc.go")
		return strings.Contains(out, "needs login: mcpfs auth remote"), out + stderr
	})
	r.loginAgain(t, a)
	eventually(t, "remote's tools after the second login", func() (bool, string) {
		out, _, _ := r.run(whoami, "run", "-")
		return strings.Contains(out, "a logged-in user <nil>"), out
	})
	time.Sleep(1500 * time.Millisecond) // the token is now within 30 s of expiring
	if out, stderr, _ := r.run(whoami, "run", "-"); !strings.Contains(out, "a logged-in user <nil>") {
		t.Fatalf("call after the token's refresh time: %q %s", out, stderr)
	}
	a.mu.Lock()
	refreshed := a.refreshed
	issued := append([]string(nil), a.issued...)
	a.mu.Unlock()
	if refreshed == 0 {
		t.Error("the token was not refreshed")
	}

	// No token in any file but the login's own, which is 0600.
	login := filepath.Join(r.home, ".local", "share", "mcpfs", "oauth", "remote.json")
	if fi, err := os.Stat(login); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("login file: %v %v", fi, err)
	}
	filepath.WalkDir(r.home, func(p string, d iofs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == login {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, tok := range issued {
			if (strings.HasPrefix(tok, "at-") || strings.HasPrefix(tok, "rt-")) && strings.Contains(string(b), tok) {
				t.Errorf("%s holds a token", p)
			}
		}
		return nil
	})
}

// loginAgain runs mcpfs auth and plays the browser.
func (r *residentEnv) loginAgain(t *testing.T, a *authServer) {
	t.Helper()
	c := r.cmd("auth", "remote")
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if u := strings.TrimSpace(sc.Text()); strings.HasPrefix(u, a.srv.URL+"/authorize?") {
			if resp, err := http.Get(u); err == nil {
				resp.Body.Close()
			}
			break
		}
	}
	for sc.Scan() {
	}
	if err := c.Wait(); err != nil {
		t.Fatalf("mcpfs auth again: %v", err)
	}
}
