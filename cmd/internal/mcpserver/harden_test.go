package mcpserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestSaveSkillRefusals: test files are refused, and no refusal shows a
// path of the data dir.
func TestSaveSkillRefusals(t *testing.T) {
	st, c, _ := newSkillsServer(t)
	withTest := greetFiles(`"hello, " + name`)
	withTest["greet_test.go"] = "package greet\n\nimport \"os\"\n\nvar _ = os.Getpid\n"
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"test file", map[string]any{"name": "greet", "files": withTest}, "greet_test.go is a test file"},
		{"file in a folder", map[string]any{"name": "greet", "files": map[string]any{"SKILL.md": greetMD, "../x.go": "package greet\n"}}, "not a skill file"},
		{"bad skill name", map[string]any{"name": "../../etc", "files": greetFiles(`name`)}, ""},
		{"absolute skill name", map[string]any{"name": "/tmp/x", "files": greetFiles(`name`)}, ""},
		{"dotted name", map[string]any{"name": "..", "files": greetFiles(`name`)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, text := call(t, c, ToolSaveSkill, tt.args)
			if !res.IsError {
				t.Fatalf("saved: %s", text)
			}
			if !strings.Contains(text, tt.want) {
				t.Errorf("got %q, want it to say %q", text, tt.want)
			}
			if strings.Contains(text, st.Dir()) {
				t.Errorf("the refusal shows the data dir %s:\n%s", st.Dir(), text)
			}
			t.Log(text)
		})
	}
}

func TestSkillErrorHidesDataDir(t *testing.T) {
	st, _, _ := newSkillsServer(t)
	s := &Server{opts: Options{Skills: st}}
	res := s.skillError("save_skill greet: lock skills %s: %v", st.Dir()+"/.lock", "held")
	text := res.Content[0].(mcp.TextContent).Text
	if strings.Contains(text, st.Dir()) || !strings.Contains(text, "<skills dir>/.lock") {
		t.Errorf("got %q, want the skills dir replaced", text)
	}
}

// TestHTTPSessions: an id the server did not give out gets 404, a session
// idle past the TTL too, new sessions beyond the cap get 503, and the
// bearer scheme is case-insensitive.
func TestHTTPSessions(t *testing.T) {
	s, _, _ := newTestServer(t, Options{})
	h, err := s.Handler(HTTPOptions{Token: testToken, MaxSessions: 2, SessionIdleTTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	g := h.(*guard)
	now := time.Now()
	g.now = func() time.Time { return now }
	ts := httptest.NewServer(h)
	defer ts.Close()
	send := func(auth, session, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", auth)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set(sessionHeader, session)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

	res := send("bearer "+testToken, "", initialize)
	id := res.Header.Get(sessionHeader)
	if res.StatusCode != 200 || id == "" {
		t.Fatalf("initialize with a lower-case scheme: status %d, session %q", res.StatusCode, id)
	}
	if res := send("BEARER "+testToken, id, list); res.StatusCode != 200 {
		t.Errorf("a request in the session: status %d, want 200", res.StatusCode)
	}
	if res := send("Bearer "+testToken, "made-up-session-id", list); res.StatusCode != 404 {
		t.Errorf("a made-up session id: status %d, want 404", res.StatusCode)
	}
	if res := send("Bearer "+testToken, "", initialize); res.StatusCode != 200 {
		t.Errorf("a second session: status %d, want 200", res.StatusCode)
	}
	if res := send("Bearer "+testToken, "", initialize); res.StatusCode != 503 {
		t.Errorf("a third session over the cap of 2: status %d, want 503", res.StatusCode)
	}
	now = now.Add(2 * time.Minute)
	if res := send("Bearer "+testToken, id, list); res.StatusCode != 404 {
		t.Errorf("a session idle past its TTL: status %d, want 404", res.StatusCode)
	}
	if res := send("Bearer "+testToken, "", initialize); res.StatusCode != 200 {
		t.Errorf("a new session once the others idled out: status %d, want 200", res.StatusCode)
	}
	if res := send("Bearer", "", initialize); res.StatusCode != 401 {
		t.Errorf("a scheme without a token: status %d, want 401", res.StatusCode)
	}
}
