package ui

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	iofs "io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpfs/mcpfs/cmd/internal/audit"
	"github.com/mcpfs/mcpfs/cmd/internal/runlog"
	"github.com/mcpfs/mcpfs/cmd/internal/tokens"
	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/check"
	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/skills"
)

const testToken = "test-token-0123456789"

// testEngine is an engine over a real tree of one server, notes, the real
// checker and a real skill store. Its runs do not start a worker: they
// write the output and make the calls that run says, so that the page's
// part (streaming, history, events) is what is tested here; the real
// engine runs in cmd/mcpfs's browser test.
type testEngine struct {
	tree      *mcpfs.Tree
	skills    *skills.Store
	auditFile string
	runs      runlog.Log // as the real engine's: every run, the page's as face ui

	mu      sync.Mutex
	changed []func()
}

func newTestEngine(t testing.TB) *testEngine {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{
		"name":        "search",
		"description": "Search the notes.",
		"inputSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{"query": map[string]any{"type": "string"}},
			"required":   []string{"query"},
		},
	})
	cat := &discovery.Catalog{Version: 1, Servers: []discovery.ServerSnapshot{{
		Name: "notes", Key: "notes", Transport: "stdio", State: discovery.StateReady,
		Tools: []discovery.Tool{{Name: "search", Raw: raw}},
	}}}
	st, err := skills.Open(t.TempDir(), skills.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &testEngine{tree: mcpfs.New(cat, mcpfs.Options{}), skills: st}
}

func (e *testEngine) Servers() []discovery.ServerSnapshot { return e.tree.Catalog().Servers }
func (e *testEngine) Tree() iofs.FS                       { return e.tree }
func (e *testEngine) Search(q string, n int) string       { return "search: " + q }
func (e *testEngine) Skills() *skills.Store               { return e.skills }
func (e *testEngine) AuditFile() string                   { return e.auditFile }

func (e *testEngine) PinDiff(server string) (int, string) {
	if server == "notes" {
		return 1, "changed notes/search:\n  description:\n    - Search the notes.\n    + Search and send the notes.\n"
	}
	return 0, ""
}

func (e *testEngine) Follow(f func()) func() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.changed = append(e.changed, f)
	return func() {}
}

func (e *testEngine) Check(filename string, src []byte) error {
	_, err := check.Check(filename, src, e.tree, check.Options{})
	return err
}

// testResult is what the notes server's search returns.
const testResult = `{"content":[{"type":"text","text":"three notes: alpha (2024-01-02), beta (2024-02-03), gamma (2024-03-04)"}]}`

func (e *testEngine) Runs(f func(runlog.Event)) ([]runlog.Run, func()) { return e.runs.Follow(f) }

// Run records the run in the engine's history, as the real engine does.
func (e *testEngine) Run(ctx context.Context, filename, tag string, src []byte, stdout, stderr io.Writer, wrap func(exec.CallFunc) exec.CallFunc) (*exec.Result, error) {
	return e.agentRun(ctx, "ui", tag, filename, src, stdout, stderr, wrap)
}

// agentRun is a run from face, with the engine's history recording it.
func (e *testEngine) agentRun(ctx context.Context, face, tag, filename string, src []byte, stdout, stderr io.Writer, wrap func(exec.CallFunc) exec.CallFunc) (*exec.Result, error) {
	rec := e.runs.Start(face, tag, filename, src)
	res, err := e.run(ctx, filename, src, stdout, stderr, func(next exec.CallFunc) exec.CallFunc {
		if wrap != nil {
			next = wrap(next)
		}
		return rec.Wrap(next)
	})
	rec.End(res, err)
	return res, err
}

func (e *testEngine) run(ctx context.Context, filename string, src []byte, stdout, stderr io.Writer, wrap func(exec.CallFunc) exec.CallFunc) (*exec.Result, error) {
	if err := e.Check(filename, src); err != nil {
		return nil, err
	}
	if strings.Contains(string(src), "flood") {
		// 10000 bytes in 1000 writes, one a millisecond.
		for i := range 1000 {
			if i > 0 {
				time.Sleep(time.Millisecond)
			}
			io.WriteString(stdout, strings.Repeat("x", 10))
		}
		return &exec.Result{Stdout: []byte(strings.Repeat("x", 10000))}, nil
	}
	if strings.Contains(string(src), "forever") {
		io.WriteString(stdout, "waiting\n")
		<-ctx.Done()
		return nil, ctx.Err()
	}
	call := wrap(func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(testResult), nil
	})
	io.WriteString(stdout, "first line\n")
	out, err := call(ctx, "notes", "search", json.RawMessage(`{"query":"x"}`))
	if err != nil {
		return nil, err
	}
	io.WriteString(stdout, "got "+string(out)+"\n")
	return &exec.Result{Stdout: []byte("first line\ngot " + string(out) + "\n"), Calls: []exec.Call{{Server: "notes", Tool: "search"}}}, nil
}

func newTestServer(t *testing.T) (*Server, *httptest.Server, *testEngine) {
	t.Helper()
	eng := newTestEngine(t)
	s, err := New(eng, Options{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); hs.Close() })
	return s, hs, eng
}

// do sends a request with the bearer token (unless header says otherwise).
func do(t *testing.T, hs *httptest.Server, method, path, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	if h, ok := header["Host"]; ok {
		req.Host = h
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestGuard(t *testing.T) {
	_, hs, _ := newTestServer(t)
	self := strings.TrimPrefix(hs.URL, "http://")
	tests := []struct {
		name   string
		method string
		path   string
		header map[string]string
		want   int
	}{
		{"bearer token", "GET", "/api/state", nil, 200},
		{"no token", "GET", "/api/state", map[string]string{"Authorization": ""}, 401},
		{"wrong token", "GET", "/api/state", map[string]string{"Authorization": "Bearer nope"}, 401},
		{"no token, page", "GET", "/", map[string]string{"Authorization": ""}, 401},
		{"wrong token in the URL", "GET", "/?token=nope", map[string]string{"Authorization": ""}, 401},
		{"token in the URL", "GET", "/?token=" + testToken, map[string]string{"Authorization": ""}, 303},
		{"DNS rebinding: another Host", "GET", "/api/state", map[string]string{"Host": "evil.example:80"}, 403},
		{"localhost Host", "GET", "/api/state", map[string]string{"Host": "localhost:1234"}, 200},
		{"[::1] Host", "GET", "/api/state", map[string]string{"Host": "[::1]:1234"}, 200},
		{"own Origin", "POST", "/api/check", map[string]string{"Origin": "http://" + self}, 200},
		{"another loopback Origin", "POST", "/api/check", map[string]string{"Origin": "http://localhost:5173"}, 403},
		{"another site's Origin", "POST", "/api/check", map[string]string{"Origin": "https://evil.example"}, 403},
		{"cross-site fetch", "GET", "/api/state", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"same-site fetch (another port)", "GET", "/api/state", map[string]string{"Sec-Fetch-Site": "same-site"}, 403},
		{"same-origin fetch", "GET", "/api/state", map[string]string{"Sec-Fetch-Site": "same-origin"}, 200},
		{"a form post", "POST", "/api/run", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := ""
			if tt.method == "POST" {
				body = `{"source":"package main\nfunc main() {}\n"}`
			}
			resp := do(t, hs, tt.method, tt.path, body, tt.header)
			if resp.StatusCode != tt.want {
				b, _ := io.ReadAll(resp.Body)
				t.Errorf("got %d, want %d (%s)", resp.StatusCode, tt.want, strings.TrimSpace(string(b)))
			}
		})
	}
}

// TestTokenCookie opens the page the way a user does: the URL with the
// token sets an HttpOnly, SameSite=Strict cookie and redirects to the
// page without the token, which the cookie then opens.
func TestTokenCookie(t *testing.T) {
	_, hs, _ := newTestServer(t)
	resp := do(t, hs, "GET", "/?token="+testToken, "", map[string]string{"Authorization": ""})
	if loc := resp.Header.Get("Location"); loc != "./" {
		t.Errorf("redirect to %q, want ./ (the same page, relative)", loc)
	}
	cookies := resp.Cookies()
	if len(cookies) != 1 || cookies[0].Value != testToken || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookies %v, want one HttpOnly SameSite=Strict cookie with the token", cookies)
	}
	page := do(t, hs, "GET", "/", "", map[string]string{"Authorization": "", "Cookie": cookies[0].Name + "=" + cookies[0].Value})
	if page.StatusCode != 200 {
		t.Fatalf("page with the cookie: %d, want 200", page.StatusCode)
	}
	b, _ := io.ReadAll(page.Body)
	html := string(b)
	if !strings.Contains(html, `<script type="application/json" id="state">`) || !strings.Contains(html, `"name":"notes"`) {
		t.Errorf("the page does not carry the state with server notes")
	}
	// Every inline block must be allowed by the policy, or the browser
	// runs nothing.
	csp := page.Header.Get("Content-Security-Policy")
	for _, m := range regexp.MustCompile(`(?s)<(style|script)>(.*?)</(?:style|script)>`).FindAllStringSubmatch(html, -1) {
		sum := sha256.Sum256([]byte(m[2]))
		if h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, h) {
			t.Errorf("inline <%s> of %d bytes: its hash %s is not in the policy %q", m[1], len(m[2]), h, csp)
		}
	}
	if !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("policy %q: want frame-ancestors 'none' and no unsafe-inline", csp)
	}
}

// TestUnderPrefix serves the page under /ui/ (as another HTTP face could):
// the redirect and the page's requests stay under it.
func TestUnderPrefix(t *testing.T) {
	s, _, _ := newTestServer(t)
	mux := http.NewServeMux()
	mux.Handle("/ui/", http.StripPrefix("/ui", s))
	hs := httptest.NewServer(mux)
	defer hs.Close()
	resp := do(t, hs, "GET", "/ui/?token="+testToken, "", map[string]string{"Authorization": ""})
	loc, err := resp.Request.URL.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Path != "/ui/" || loc.RawQuery != "" {
		t.Errorf("redirect to %v (%v), want /ui/", loc, err)
	}
	if r := do(t, hs, "GET", "/ui/api/state", "", nil); r.StatusCode != 200 {
		t.Errorf("GET /ui/api/state: %d, want 200", r.StatusCode)
	}
}

// TestPins: a server whose definitions differ from their pins says so,
// and the diff is there to read.
func TestPins(t *testing.T) {
	_, hs, _ := newTestServer(t)
	var st struct{ Servers []serverInfo }
	json.NewDecoder(do(t, hs, "GET", "/api/state", "", nil).Body).Decode(&st)
	if len(st.Servers) != 1 || st.Servers[0].PinChanges != 1 {
		t.Errorf("servers %+v, want notes with 1 pin change", st.Servers)
	}
	var d struct {
		Changes int
		Text    string
	}
	json.NewDecoder(do(t, hs, "GET", "/api/pins/notes", "", nil).Body).Decode(&d)
	if d.Changes != 1 || !strings.Contains(d.Text, "+ Search and send the notes.") {
		t.Errorf("pins of notes: %+v", d)
	}
}

func TestCheckProblems(t *testing.T) {
	_, hs, _ := newTestServer(t)
	src := "package main\n\nimport \"mcpfs/servers/notes\"\n\nfunc main() {\n\tnotes.Search(notes.SearchArgs{Query: 1})\n}\n"
	resp := do(t, hs, "POST", "/api/check", mustJSON(map[string]string{"source": src}), nil)
	var got struct {
		OK       bool
		Problems []problem
	}
	json.NewDecoder(resp.Body).Decode(&got)
	if got.OK || len(got.Problems) == 0 {
		t.Fatalf("check of a wrong snippet: %+v, want problems", got)
	}
	if p := got.Problems[0]; p.Line != 6 || p.Col == 0 || p.Msg == "" {
		t.Errorf("problem %+v, want one positioned at line 6", p)
	}
}

// TestRunStreams runs a snippet and reads the event stream: the run
// starts, its output and its call come as they happen (the call with its
// sizes), and the run ends; the history has it.
func TestRunStreams(t *testing.T) {
	_, hs, _ := newTestServer(t)
	req, _ := http.NewRequest("GET", hs.URL+"/api/events", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	events, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer events.Body.Close()
	sc := bufio.NewScanner(events.Body)
	next := func() (string, string) {
		t.Helper()
		var name, data string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = strings.TrimPrefix(line, "data: ")
			case line == "" && name != "":
				return name, data
			}
		}
		t.Fatalf("event stream ended: %v", sc.Err())
		return "", ""
	}
	for _, want := range []string{"servers", "skills"} {
		if name, _ := next(); name != want {
			t.Fatalf("stream starts with %q, want %q", name, want)
		}
	}
	src := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(1) }\n"
	resp := do(t, hs, "POST", "/api/run", mustJSON(map[string]string{"source": src}), nil)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("run: %d, want 202", resp.StatusCode)
	}
	var seq []string
	var final run
	for len(seq) < 10 {
		name, data := next()
		switch name {
		case "run":
			json.Unmarshal([]byte(data), &final)
			seq = append(seq, "run "+final.State)
		case "output":
			var o struct{ Text string }
			json.Unmarshal([]byte(data), &o)
			seq = append(seq, "output "+strings.TrimSpace(o.Text))
		case "call":
			var c struct{ Call callInfo }
			json.Unmarshal([]byte(data), &c)
			seq = append(seq, "call "+c.Call.Server+"."+c.Call.Tool+" done="+boolText(c.Call.Done))
		}
		if name == "run" && final.State != "running" {
			break
		}
	}
	want := []string{"run running", "output first line", "call notes.search done=false", "call notes.search done=true",
		"output got " + testResult, "run ok"}
	if strings.Join(seq, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(seq, "\n"), strings.Join(want, "\n"))
	}
	if len(final.Calls) != 1 || final.Calls[0].ArgBytes != len(`{"query":"x"}`) || final.Calls[0].ResultBytes != len(testResult) {
		t.Errorf("the run's calls: %+v, want one with its argument and result sizes", final.Calls)
	}
	var got run
	json.NewDecoder(do(t, hs, "GET", "/api/runs/1", "", nil).Body).Decode(&got)
	if got.Source != src || got.State != "ok" || !strings.Contains(got.Stdout, "got ") {
		t.Errorf("history has %+v, want the run", got)
	}
	// Tokens, counted as the benchmark counts: the result as a client
	// hands it to the model, against what the snippet printed.
	wantTok := tokenFigures{Results: tokens.Count(tokens.ResultText(json.RawMessage(testResult))), Printed: tokens.Count(got.Stdout)}
	if final.Tokens == nil || *final.Tokens != wantTok || wantTok.Results < 10 {
		t.Errorf("the run's tokens: %+v, want %+v", final.Tokens, wantTok)
	}
}

// TestOutputBatches runs on virtual time: a snippet that prints 1000
// times in a second makes one output event per outputDelay, not one per
// write, and none of its output is lost.
func TestOutputBatches(t *testing.T) { synctest.Test(t, testOutputBatches) }

func testOutputBatches(t *testing.T) {
	eng := newTestEngine(t)
	s, err := New(eng, Options{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch, _ := s.events.subscribe()
	defer s.events.unsubscribe(ch)
	src := "package main\n\nfunc main() { /* flood */ }\n"
	// In process: the bubble holds no sockets.
	req := httptest.NewRequest("POST", "http://127.0.0.1/api/run", strings.NewReader(mustJSON(map[string]string{"source": src})))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusAccepted {
		t.Fatalf("run: %d %s", rec.Code, rec.Body)
	}
	began := time.Now()
	var at []time.Time // when each output event came
	var got strings.Builder
	timeout := time.After(10 * time.Second)
	for done := false; !done; {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatal("the event stream was ended: the page fell behind")
			}
			switch ev.name {
			case "output":
				var o struct{ Text string }
				json.Unmarshal(ev.data, &o)
				got.WriteString(o.Text)
				at = append(at, time.Now())
			case "run":
				var r run
				json.Unmarshal(ev.data, &r)
				done = r.State != "running"
			}
		case <-timeout:
			t.Fatal("the run did not end")
		}
	}
	took := time.Since(began)
	// One event per outputDelay while the snippet prints, and the rest when
	// it ends (sooner).
	for i := 1; i < len(at)-1; i++ {
		if d := at[i].Sub(at[i-1]); d < outputDelay {
			t.Errorf("output event %d came %v after the one before, want at least %v (outputDelay)", i, d, outputDelay)
		}
	}
	want := int(took/outputDelay) + 1
	if got.Len() != 10000 || len(at) < want-1 || len(at) > want+1 {
		t.Errorf("%d output events in %v carried %d bytes, want 10000 bytes in about %d events (one per %v)", len(at), took, got.Len(), want, outputDelay)
	}
	t.Logf("%d output events in %v", len(at), took)
}

// TestAuditTail shows the tail of the audit log at first, then pushes the
// records another process appends, complete lines only, and follows a
// rotation.
func TestAuditTail(t *testing.T) {
	defer func(d time.Duration) { auditPoll = d }(auditPoll)
	auditPoll = 10 * time.Millisecond
	eng := newTestEngine(t)
	eng.auditFile = filepath.Join(t.TempDir(), "calls.jsonl")
	line := func(tool string) string {
		b, _ := json.Marshal(audit.Record{Time: time.Now(), Face: "serve", Server: "notes", Tool: tool, Outcome: "ok", ResultBytes: 10})
		return string(b) + "\n"
	}
	if err := os.WriteFile(eng.auditFile, []byte(line("first")), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := New(eng, Options{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch, _ := s.events.subscribe()
	defer s.events.unsubscribe(ch)
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s: the page has %+v", what, s.auditRecords())
			}
		}
	}
	tools := func() string {
		var names []string
		for _, r := range s.auditRecords() {
			names = append(names, r.Tool)
		}
		return strings.Join(names, " ")
	}
	waitFor("the first record", func() bool { return tools() == "first" })
	// A second reader of the log, which looks at it for certain between
	// the two halves of a record (the page looks every auditPoll).
	probe := &auditTail{path: eng.auditFile}
	if got := probe.readNew(); len(got) != 1 || got[0].Tool != "first" {
		t.Fatalf("first look at the log: got %+v, want the first record", got)
	}

	f, err := os.OpenFile(eng.auditFile, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	second := line("second")
	f.WriteString(second[:10]) // half a line: not a record yet
	if got := probe.readNew(); len(got) != 0 {
		t.Errorf("after half a line a look at the log got %+v, want no record", got)
	}
	if got := tools(); got != "first" {
		t.Errorf("after half a line the page has %q, want first only", got)
	}
	f.WriteString(second[10:])
	f.Close()
	if got := probe.readNew(); len(got) != 1 || got[0].Tool != "second" {
		t.Errorf("after the whole line a look at the log got %+v, want the second record", got)
	}
	waitFor("the second record", func() bool { return tools() == "first second" })
	select {
	case ev := <-ch:
		if ev.name != "audit" || !strings.Contains(string(ev.data), `"tool":"second"`) {
			t.Errorf("event %s %s, want audit with the second record", ev.name, ev.data)
		}
	case <-time.After(5 * time.Second):
		t.Error("no audit event")
	}
	// Rotation: a new, shorter file.
	if err := os.WriteFile(eng.auditFile, []byte(line("third")), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor("the record after the rotation", func() bool { return tools() == "first second third" })
	// Rotation as the log does it: the file renamed, a new one started,
	// here longer than what was read of the old one.
	if err := os.Rename(eng.auditFile, eng.auditFile+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(eng.auditFile, []byte(line("fourth")+line("fifth")), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor("the records of the new file", func() bool { return tools() == "first second third fourth fifth" })
}

// TestStopRun stops a run that would not end by itself.
func TestStopRun(t *testing.T) {
	s, hs, _ := newTestServer(t)
	src := "package main\n\nfunc main() { /* forever */ }\n"
	if r := do(t, hs, "POST", "/api/run", mustJSON(map[string]string{"source": src}), nil); r.StatusCode != http.StatusAccepted {
		t.Fatalf("run: %d", r.StatusCode)
	}
	if r := do(t, hs, "POST", "/api/runs/1/stop", "{}", nil); r.StatusCode != http.StatusAccepted {
		t.Fatalf("stop: %d, want 202", r.StatusCode)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		rn := s.snapshot(s.runs[0])
		if rn.State != "running" {
			if rn.State != "failed" || !strings.Contains(rn.Error, "canceled") {
				t.Errorf("stopped run: state %s, error %q; want failed, canceled", rn.State, rn.Error)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run did not stop")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if r := do(t, hs, "POST", "/api/runs/1/stop", "{}", nil); r.StatusCode != http.StatusConflict {
		t.Errorf("stop of an ended run: %d, want 409", r.StatusCode)
	}
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestSaveSkill saves a snippet as a skill, twice, and restores the
// first version, through the API and a real skill store.
func TestSaveSkill(t *testing.T) {
	_, hs, eng := newTestServer(t)
	src := "package main\n\nimport (\n\t\"fmt\"\n\n\t\"mcpfs/servers/notes\"\n)\n\nfunc main() {\n\tres, err := notes.Search(notes.SearchArgs{Query: \"go\"})\n\tfmt.Println(res, err)\n}\n"
	save := func(src string) *http.Response {
		return do(t, hs, "POST", "/api/skills", mustJSON(map[string]string{"name": "findgo", "description": "Find notes about Go.", "source": src}), nil)
	}
	if r := save(src); r.StatusCode != 200 {
		b, _ := io.ReadAll(r.Body)
		t.Fatalf("save: %d %s", r.StatusCode, b)
	}
	if r := save(strings.Replace(src, `"go"`, `"golang"`, 1)); r.StatusCode != 200 {
		t.Fatalf("second save: %d", r.StatusCode)
	}
	sk, ok := eng.skills.Get("findgo")
	if !ok || sk.Version != 2 || !strings.Contains(string(sk.Files["findgo.go"]), "func Main()") {
		t.Fatalf("skill after two saves: %+v, want version 2 with func Main", sk)
	}
	var detail struct {
		Versions []skills.Version
	}
	json.NewDecoder(do(t, hs, "GET", "/api/skills/findgo", "", nil).Body).Decode(&detail)
	if len(detail.Versions) != 2 || detail.Versions[0].Version != 2 {
		t.Errorf("versions %+v, want 2 then 1", detail.Versions)
	}
	if r := do(t, hs, "POST", "/api/skills/findgo/restore", `{"version":1}`, nil); r.StatusCode != 200 {
		t.Fatalf("restore: %d", r.StatusCode)
	}
	if sk, _ := eng.skills.Get("findgo"); sk.Version != 3 || !strings.Contains(string(sk.Files["findgo.go"]), `"go"`) {
		t.Errorf("after restoring version 1: version %d\n%s", sk.Version, sk.Files["findgo.go"])
	}
	// A snippet that does not check is refused with positioned problems.
	r := save("package main\n\nfunc main() { undefinedThing() }\n")
	var refused struct {
		Problems []problem
	}
	json.NewDecoder(r.Body).Decode(&refused)
	if r.StatusCode != http.StatusUnprocessableEntity || len(refused.Problems) == 0 || refused.Problems[0].Line != 3 {
		t.Errorf("bad save: %d %+v, want 422 with a problem at line 3", r.StatusCode, refused.Problems)
	}
}

func TestSkillFiles(t *testing.T) {
	src := []byte("// A snippet.\npackage main\n\nimport \"fmt\"\n\nfunc helper() string { return \"main\" }\n\nfunc main() {\n\tfmt.Println(helper())\n}\n")
	files, err := SkillFiles("greet", "Say hello.\nTwice.", src)
	if err != nil {
		t.Fatal(err)
	}
	want := "// A snippet.\npackage greet\n\nimport \"fmt\"\n\nfunc helper() string { return \"main\" }\n\nfunc Main() {\n\tfmt.Println(helper())\n}\n"
	if got := string(files["greet.go"]); got != want {
		t.Errorf("greet.go:\n%s\nwant:\n%s", got, want)
	}
	fm, probs := skills.ParseFrontMatter("SKILL.md", files["SKILL.md"])
	if len(probs) > 0 || fm.Name != "greet" || fm.Description != "Say hello. Twice." {
		t.Errorf("front matter %+v %v, want name greet and the description on one line", fm, probs)
	}
	for _, bad := range []struct{ name, desc, src string }{
		{"Greet", "d", "package main"},
		{"greet", " ", "package main"},
		{"greet", "d", "package main\nfunc main() {"},
	} {
		if _, err := SkillFiles(bad.name, bad.desc, []byte(bad.src)); err == nil {
			t.Errorf("SkillFiles(%q, %q, %q) = nil error, want one", bad.name, bad.desc, bad.src)
		}
	}
}

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST:80": true, "127.0.0.1:8080": true, "127.9.9.9": true, "[::1]:1": true,
		"evil.example": false, "localhost.evil.example": false, "10.0.0.1:80": false, "": false, "[::2]:1": false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestAgentRuns: runs the page did not start, made on the same engine by
// an agent (serve's exec) or `mcpfs run`, are in the history with their
// face, calls, output and tokens: a run that ended before the page
// opened with tokens estimated from sizes, a later one counted.
func TestAgentRuns(t *testing.T) {
	eng := newTestEngine(t)
	src := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(1) }\n"
	ctx := context.Background()
	if _, err := eng.agentRun(ctx, "serve", "", "snippet.go", []byte(src), io.Discard, io.Discard, nil); err != nil {
		t.Fatal(err)
	}
	s, err := New(eng, Options{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	defer s.Close()
	ch, _ := s.events.subscribe()
	res, err := eng.agentRun(ctx, "cli", "", "count.go", []byte(src), io.Discard, io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The figures come in a last run event, once the result is counted.
	deadline := time.After(10 * time.Second)
	for done := false; !done; {
		select {
		case ev := <-ch:
			var r run
			done = ev.name == "run" && json.Unmarshal(ev.data, &r) == nil && r.Face == "cli" && r.Tokens != nil
		case <-deadline:
			t.Fatal("no run event with the tokens of the cli run")
		}
	}
	var st struct{ Runs []runSummary }
	json.NewDecoder(do(t, hs, "GET", "/api/state", "", nil).Body).Decode(&st)
	if len(st.Runs) != 2 {
		t.Fatalf("history: %+v, want the two runs", st.Runs)
	}
	live, past := st.Runs[0], st.Runs[1] // newest first
	if past.Face != "serve" || past.State != "ok" || past.Calls != 1 || past.Tokens == nil || !past.Tokens.Estimated {
		t.Errorf("the run made before the page opened: %+v, want face serve, ok, 1 call, estimated tokens", past)
	}
	want := tokenFigures{Results: tokens.Count(tokens.ResultText(json.RawMessage(testResult))), Printed: tokens.Count(string(res.Stdout))}
	if live.Face != "cli" || live.State != "ok" || live.Calls != 1 || live.Tokens == nil || *live.Tokens != want {
		t.Errorf("the cli run: %+v (tokens %+v), want face cli, ok, 1 call, tokens %+v", live, live.Tokens, want)
	}
	var full run
	json.NewDecoder(do(t, hs, "GET", "/api/runs/"+strconv.Itoa(live.ID), "", nil).Body).Decode(&full)
	if full.Source != src || !strings.Contains(full.Stdout, "got ") || len(full.Calls) != 1 || full.Calls[0].Tool != "search" || !full.Calls[0].Done {
		t.Errorf("the cli run in full: %+v, want its source, output and call", full)
	}

	// The page's own runs are not shown twice; an agent's run in
	// progress is stopped where it was started.
	resp := do(t, hs, "POST", "/api/run", mustJSON(map[string]string{"source": src}), nil)
	var started struct{ ID int }
	json.NewDecoder(resp.Body).Decode(&started)
	waitState := func(id int, cond func(run) bool) run {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			var r run
			json.NewDecoder(do(t, hs, "GET", "/api/runs/"+strconv.Itoa(id), "", nil).Body).Decode(&r)
			if cond(r) {
				return r
			}
		}
		t.Fatalf("run %d never reached the state wanted", id)
		return run{}
	}
	waitState(started.ID, func(r run) bool { return r.State == "ok" })
	actx, cancel := context.WithCancel(ctx)
	agentDone := make(chan struct{})
	go func() {
		defer close(agentDone)
		eng.agentRun(actx, "serve", "", "wait.go", []byte("package main\n\nfunc main() { /* forever */ }\n"), io.Discard, io.Discard, nil)
	}()
	agent := started.ID + 1
	waitState(agent, func(r run) bool { return r.Face == "serve" && r.State == "running" })
	if resp := do(t, hs, "POST", "/api/runs/"+strconv.Itoa(agent)+"/stop", "{}", nil); resp.StatusCode != http.StatusConflict {
		t.Errorf("stop an agent's run: %d, want 409", resp.StatusCode)
	}
	cancel()
	waitState(agent, func(r run) bool { return r.State == "failed" })
	<-agentDone // its last events are delivered before the page closes
	json.NewDecoder(do(t, hs, "GET", "/api/state", "", nil).Body).Decode(&st)
	if len(st.Runs) != 4 {
		t.Errorf("history: %d runs, want 4 (the page's run once)", len(st.Runs))
	}
}

// TestTwoPages: a run started on one page is in the other page's history
// (marked as another page's), and only once in its own.
func TestTwoPages(t *testing.T) {
	eng := newTestEngine(t)
	var pages [2]*Server
	var servers [2]*httptest.Server
	for i := range pages {
		s, err := New(eng, Options{Token: testToken})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(s)
		defer hs.Close()
		defer s.Close()
		pages[i], servers[i] = s, hs
	}
	src := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(1) }\n"
	if r := do(t, servers[0], "POST", "/api/run", mustJSON(map[string]string{"source": src}), nil); r.StatusCode != http.StatusAccepted {
		t.Fatalf("run on the first page: %d, want 202", r.StatusCode)
	}
	history := func(i int) []runSummary {
		var st struct{ Runs []runSummary }
		json.NewDecoder(do(t, servers[i], "GET", "/api/state", "", nil).Body).Decode(&st)
		return st.Runs
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		own, other := history(0), history(1)
		if len(own) == 1 && len(other) == 1 && own[0].State == "ok" && other[0].State == "ok" {
			if own[0].Face != "" || other[0].Face != pageFace {
				t.Errorf("faces: own page %q, other page %q; want \"\" and %q", own[0].Face, other[0].Face, pageFace)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("histories: first page %+v, second page %+v; want the run once in each", own, other)
		}
	}
}
