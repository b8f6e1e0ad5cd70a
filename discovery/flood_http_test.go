package discovery

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// floodHTTPServer is a real mcp-go server over streamable HTTP whose tools
// misbehave: deep answers with a value nested {"depth"} levels (after a
// log notification when {"stream": true}, which turns the answer into an
// event stream); flood sends {"count"} log notifications, then answers.
func floodHTTPServer(t *testing.T) string {
	t.Helper()
	srv := server.NewMCPServer("floody", "1.0.0", server.WithToolCapabilities(true), server.WithLogging())
	srv.AddTool(mcp.NewTool("deep"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.GetArguments()
		depth, _ := args["depth"].(float64)
		if stream, _ := args["stream"].(bool); stream {
			server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": "deep answer coming"})
		}
		var v any = map[string]any{"end": true}
		for range int(depth) - 1 {
			v = []any{v}
		}
		return mcp.NewToolResultStructured(map[string]any{"a": v}, "deep"), nil
	})
	srv.AddTool(mcp.NewTool("flood"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		n, _ := req.GetArguments()["count"].(float64)
		s := server.ServerFromContext(ctx)
		for i := range int(n) {
			s.SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": "flood " + itoa(i)})
		}
		return mcp.NewToolResultText("flooded"), nil
	})
	srv.AddTool(mcp.NewTool("big"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(strings.Repeat("x", 2<<20)), nil
	})
	srv.AddTool(mcp.NewTool("echo"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo"), nil
	})
	hs := httptest.NewServer(server.NewStreamableHTTPServer(srv))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp"
}

// TestHTTPGuard: over streamable HTTP too, an answer nested too deep fails
// its call at once with the reason (as a JSON body and as an event of a
// stream), one within the bound passes, and a flood of log notifications
// is dropped early and noted.
func TestHTTPGuard(t *testing.T) {
	url := floodHTTPServer(t)
	opts := fastRestarts()
	opts.MaxMessageBytes = 1 << 20
	s, h := startSupervisor(t, opts, ServerConfig{Name: "h", Key: "h", Transport: "http", URL: url})
	cat := settle(t, s)
	if ss, _ := cat.Server("h"); ss.State != StateReady {
		t.Fatalf("server h: %s %s", ss.State, ss.Err)
	}
	for _, stream := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		began := time.Now()
		_, err := s.CallTool(ctx, "h", "deep", json.RawMessage(`{"depth": 5000, "stream": `+map[bool]string{true: "true", false: "false"}[stream]+`}`))
		cancel()
		if err == nil || !strings.Contains(err.Error(), "nests deeper than") {
			t.Errorf("deep answer (stream %v): got %v, want it refused, saying why", stream, err)
		}
		if took := time.Since(began); took > 5*time.Second {
			t.Errorf("deep answer (stream %v): failed after %v, want at once", stream, took)
		}
	}
	if res, err := s.CallTool(context.Background(), "h", "deep", json.RawMessage(`{"depth": 100, "stream": true}`)); err != nil || !strings.Contains(string(res), `"end":true`) {
		t.Errorf("depth 100: %v, %.100s; want the result", err, res)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if res, err := s.CallTool(ctx, "h", "flood", json.RawMessage(`{"count": 20000}`)); err != nil || !strings.Contains(string(res), "flooded") {
		t.Fatalf("flood: %v, %.100s", err, res)
	}
	if n := h.count("server log message"); n > 3*chattyPerSecond {
		t.Errorf("%d log notifications passed to the client, want at most about %d a second", n, chattyPerSecond)
	}
	if !h.has("floods notifications/message") {
		t.Error("no note of the flood")
	}
	if _, err := s.CallTool(context.Background(), "h", "echo", nil); err != nil {
		t.Errorf("echo after the flood: %v", err)
	}
	// An answer over the size bound fails its call; the server stays.
	if _, err := s.CallTool(context.Background(), "h", "big", nil); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("an answer over the bound: %v, want it refused as too large", err)
	}
	if _, err := s.CallTool(context.Background(), "h", "echo", nil); err != nil {
		t.Errorf("echo after the big answer: %v", err)
	}
}

// TestGuardTransport reads what the guard passes on for answers of each
// kind, as mcp-go's transport would read them.
func TestGuardTransport(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":7,"result":{"a":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}}`
	big := `{"jsonrpc":"2.0","id":7,"result":{"a":"` + strings.Repeat("x", 5000) + `"}}`
	ok := `{"jsonrpc":"2.0","id":7,"result":{"a":1}}`
	note := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}}`
	bodies := map[string]struct{ ctype, body string }{
		"/json-deep": {"application/json", deep},
		"/json-big":  {"application/json", big},
		"/json-ok":   {"application/json", ok},
		"/sse-deep":  {"text/event-stream", "id: 1\ndata: " + note + "\n\nid: 2\nevent: message\ndata: " + deep + "\n\n"},
		"/sse-big":   {"text/event-stream", "data: " + big + "\n\ndata: " + ok + "\n\n"},
		"/sse-ok":    {"text/event-stream", ": comment\nevent: message\ndata: " + ok + "\n\n"},
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := bodies[r.URL.Path]
		w.Header().Set("Content-Type", b.ctype)
		io.WriteString(w, b.body)
	}))
	defer hs.Close()
	log, h := newTestLog(t)
	c := &http.Client{Transport: newGuardTransport(http.DefaultTransport.(*http.Transport).Clone(), 4096, log)}
	get := func(path string) (string, error) {
		t.Helper()
		resp, err := c.Post(hs.URL+path, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	for _, tt := range []struct{ path, want string }{
		{"/json-deep", `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"mcpfs refused the server's answer: it nests deeper than 1000 levels`},
		{"/json-big", `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"mcpfs refused the server's answer: it is too large, over 4096 bytes`},
		{"/json-ok", ok},
		{"/sse-deep", "id: 1\n\nid: 2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32603,\"message\":\"mcpfs refused the server's answer: it nests deeper"},
		{"/sse-big", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32603,\"message\":\"mcpfs refused the server's answer: it is too large"},
		{"/sse-ok", bodies["/sse-ok"].body},
	} {
		got, err := get(tt.path)
		if err != nil || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: %v, %.200q; want it to start %.200q", tt.path, err, got, tt.want)
		}
	}
	if got, _ := get("/sse-big"); !strings.HasSuffix(got, "data: "+ok+"\n\n") {
		t.Errorf("/sse-big: %.300q; want the next event passed on", got)
	}
	if !h.has("dropped a message from the server that nests deeper than the bound", "notifications/message") {
		t.Error("no note of the deep notification dropped")
	}
}
