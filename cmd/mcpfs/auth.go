package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/spf13/cobra"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/discovery"
)

// authWait bounds how long mcpfs auth waits for the browser.
const authWait = 10 * time.Minute

func newAuthCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "auth SERVER",
		Short: "Log in to an HTTP server that uses OAuth",
		Long: `Log in to an HTTP server whose config entry has "mcpfs": {"oauth": true}
(or {"oauth": {"clientId": "...", "scopes": [...]}}), as the MCP
authorization spec describes: the authorization server is found from the
server's metadata, mcpfs registers itself there when no clientId is given,
prints the URL to open in a browser and waits for the login to come back
to a loopback address (with PKCE). The tokens are kept 0600 in <data
dir>/oauth/<server>.json, nowhere else, and refreshed before they expire.
A server that needs a login is shown as "needs login: mcpfs auth <name>".`,
		Example: "  mcpfs auth github",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, release, err := g.useEngine(cmd.Context(), engine.Options{OneShot: true})
			if err != nil {
				return err
			}
			defer release()
			return g.auth(cmd.Context(), e, args[0])
		},
	}
}

func (g *globals) auth(ctx context.Context, e *engine.Engine, name string) error {
	var sc *discovery.ServerConfig
	var names []string
	for i, s := range e.Config().Servers {
		names = append(names, s.Key)
		if s.Key == name || s.Name == name {
			sc = &e.Config().Servers[i]
		}
	}
	switch {
	case sc == nil:
		return usagef("no server %q in the config (servers: %s)", name, strings.Join(names, ", "))
	case sc.Transport != "http":
		return usagef("server %q is not an HTTP server (it uses %s): OAuth is for streamable HTTP servers", name, sc.Transport)
	case sc.OAuth == nil:
		return usagef(`server %q does not log in with OAuth: add "mcpfs": {"oauth": true} to its entry`, name)
	}
	dir := g.dirs().TrustDir("oauth")
	if dir == "" {
		return fmt.Errorf("no place to keep the login: there is no data dir (give --data-dir)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen for the login's redirect: %w", err)
	}
	defer ln.Close()
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)
	ocfg, store := discovery.OAuthClientConfig(*sc, dir, redirect)
	if sc.OAuth.ClientID == "" {
		ocfg.ClientID, ocfg.ClientSecret = "", "" // registered afresh for this redirect
	}
	h := transport.NewOAuthHandler(ocfg)
	base, _ := url.Parse(sc.URL)
	base.RawQuery, base.Fragment = "", ""
	h.SetBaseURL(base.String())
	probeResource(ctx, sc, h)

	if ocfg.ClientID == "" {
		if err := h.RegisterClient(ctx, "mcpfs"); err != nil {
			return fmt.Errorf("register mcpfs with the authorization server of %q: %w (give a clientId in its \"oauth\" object)", sc.Key, err)
		}
		if err := store.Save(discovery.OAuthLogin{ClientID: h.GetClientID(), ClientSecret: h.GetClientSecret()}); err != nil {
			return err
		}
	}
	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return err
	}
	state, err := transport.GenerateState()
	if err != nil {
		return err
	}
	authURL, err := h.GetAuthorizationURL(ctx, state, transport.GenerateCodeChallenge(verifier))
	if err != nil {
		return fmt.Errorf("find the authorization server of %q: %w", sc.Key, err)
	}
	fmt.Fprintf(g.stdout, "Open this URL in a browser to log in to %s:\n\n  %s\n\nWaiting for the login (Ctrl-C to give up)...\n", sc.Key, authURL)

	type answer struct{ code, state, err string }
	answers := make(chan answer, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		a := answer{code: q.Get("code"), state: q.Get("state"), err: q.Get("error")}
		if d := q.Get("error_description"); d != "" {
			a.err += ": " + d
		}
		if a.err == "" && a.code == "" {
			http.Error(w, "no code in the redirect", http.StatusBadRequest)
			return
		}
		select {
		case answers <- a:
		default:
		}
		if a.err != "" {
			fmt.Fprintf(w, "mcpfs: the login failed: %s\n", a.err)
			return
		}
		fmt.Fprintf(w, "mcpfs: logged in to %s; you can close this page.\n", sc.Key)
	})}
	go srv.Serve(ln)
	defer srv.Close()

	wctx, cancel := context.WithTimeout(ctx, authWait)
	defer cancel()
	var a answer
	select {
	case a = <-answers:
	case <-wctx.Done():
		return fmt.Errorf("no login came back within %v: run mcpfs auth %s again", authWait, sc.Key)
	}
	if a.err != "" {
		return fmt.Errorf("the authorization server refused the login: %s", a.err)
	}
	if err := h.ProcessAuthorizationResponse(ctx, a.code, a.state, verifier); err != nil {
		return fmt.Errorf("exchange the login for a token: %w", err)
	}
	e.Supervisor().Retry(sc.Name)
	fmt.Fprintf(g.stdout, "logged in to %s\n", sc.Key)
	return nil
}

// probeResource asks the server once without a token, so that its
// WWW-Authenticate answer names its protected resource metadata.
func probeResource(ctx context.Context, sc *discovery.ServerConfig, h *transport.OAuthHandler) {
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcpfs","version":"1"}}}`
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(pctx, http.MethodPost, sc.URL, bytes.NewReader([]byte(body)))
	if err != nil {
		return
	}
	for k, v := range maps.All(sc.Headers) {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		h.HandleUnauthorizedResponse(resp)
	}
}
