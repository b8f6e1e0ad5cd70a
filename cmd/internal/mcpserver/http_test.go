package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const testToken = "0123456789abcdef-test-token"

// TestHTTPGuard sends refused requests to the real HTTP face and checks
// their status and that none of them reached the executor; then a good
// one that does.
func TestHTTPGuard(t *testing.T) {
	s, e, _ := newTestServer(t, Options{})
	h, err := s.Handler(HTTPOptions{Token: testToken, MaxBody: 64 << 10, AllowedHosts: []string{"mcp.internal"}, AllowedOrigins: []string{"https://app.example"}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()

	execCall := func(code string) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
			"params": map[string]any{"name": "exec", "arguments": map[string]any{"code": code}}})
		return string(b)
	}
	small := execCall(listSnippet)
	big := execCall(listSnippet + "// " + strings.Repeat("x", 70<<10) + "\n")
	auth := "Bearer " + testToken
	tests := []struct {
		name     string
		path     string
		host     string
		origin   string
		auth     string
		body     string
		chunked  bool
		wantCode int
		wantBody string
	}{
		{name: "no token", body: small, wantCode: 401, wantBody: "missing or wrong bearer token"},
		{name: "wrong token", auth: "Bearer nope", body: small, wantCode: 401},
		{name: "token without Bearer", auth: testToken, body: small, wantCode: 401},
		{name: "bad host", host: "evil.example.com", auth: auth, body: small, wantCode: 403, wantBody: "DNS rebinding"},
		{name: "bad host with port", host: "evil.example.com:8080", auth: auth, body: small, wantCode: 403},
		{name: "bad origin", origin: "http://evil.example.com", auth: auth, body: small, wantCode: 403, wantBody: "Origin"},
		{name: "null origin", origin: "null", auth: auth, body: small, wantCode: 403},
		{name: "bad origin no token", origin: "http://evil.example.com", body: small, wantCode: 403},
		{name: "oversized body", auth: auth, body: big, wantCode: 413},
		{name: "oversized chunked body", auth: auth, body: big, chunked: true, wantCode: 413},
		{name: "wrong path", path: "/other", auth: auth, body: small, wantCode: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if path == "" {
				path = "/mcp"
			}
			var body io.Reader = strings.NewReader(tt.body)
			if tt.chunked {
				body = io.MultiReader(body) // unknown length: sent chunked
			}
			req, err := http.NewRequest("POST", ts.URL+path, body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.host != "" {
				req.Host = tt.host
			}
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantCode || !strings.Contains(string(got), tt.wantBody) {
				t.Errorf("got %d %q, want %d with %q", resp.StatusCode, got, tt.wantCode, tt.wantBody)
			}
			if tt.wantCode == 401 && resp.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("401 without WWW-Authenticate")
			}
		})
	}
	if n := e.runs.Load(); n != 0 {
		t.Fatalf("refused requests reached the executor %d times, want 0", n)
	}

	// Allowed: loopback and configured hosts and origins, with the token.
	post := func(host, origin, session, body string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", auth)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		if host != "" {
			req.Host = host
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, got
	}
	initBody := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, hdr := range []struct{ host, origin string }{
		{"", ""},
		{"localhost:1234", "http://localhost:5173"},
		{"[::1]:9", "http://127.0.0.1"},
		{"mcp.internal", "https://app.example"},
	} {
		resp, got := post(hdr.host, hdr.origin, "", initBody)
		session := resp.Header.Get("Mcp-Session-Id")
		if resp.StatusCode != 200 || session == "" {
			t.Fatalf("host %q origin %q: initialize: got %d %s, want 200 and a session", hdr.host, hdr.origin, resp.StatusCode, got)
		}
		post(hdr.host, hdr.origin, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		resp, got = post(hdr.host, hdr.origin, session, small)
		if resp.StatusCode != 200 || !bytes.Contains(got, []byte("5 documents")) {
			t.Errorf("host %q origin %q: got %d %s, want 200 with the snippet's output", hdr.host, hdr.origin, resp.StatusCode, got)
		}
	}
	if n := e.runs.Load(); n != 4 {
		t.Errorf("executor runs: got %d, want 4", n)
	}
}

// TestHTTPGuardDropsToken checks that the token is removed before the MCP
// layer, so nothing downstream can forward it.
func TestHTTPGuardDropsToken(t *testing.T) {
	s, _, _ := newTestServer(t, Options{})
	h, err := s.Handler(HTTPOptions{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	g := h.(*guard)
	var seen http.Header
	g.next = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = r.Header.Clone() })
	req := httptest.NewRequest("POST", "http://127.0.0.1/mcp", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+testToken)
	g.ServeHTTP(httptest.NewRecorder(), req)
	if seen == nil {
		t.Fatal("the request did not pass the guard")
	}
	if v := seen.Get("Authorization"); v != "" {
		t.Errorf("the MCP layer saw Authorization %q, want none", v)
	}
	if _, err := s.Handler(HTTPOptions{}); err != ErrNoToken {
		t.Errorf("no token: got %v, want ErrNoToken", err)
	}
}
