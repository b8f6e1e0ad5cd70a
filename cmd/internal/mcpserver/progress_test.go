package mcpserver

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestExecProgress: with a progress token, exec's output reaches the
// client line by line as notifications/progress while the snippet runs;
// without one, nothing is sent.
func TestExecProgress(t *testing.T) {
	_, _, c := newTestServer(t, Options{})
	type note struct {
		token any
		msg   string
		at    time.Time
	}
	var mu sync.Mutex
	var notes []note
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != "notifications/progress" {
			return
		}
		f := n.Params.AdditionalFields
		msg, _ := f["message"].(string)
		mu.Lock()
		notes = append(notes, note{f["progressToken"], msg, time.Now()})
		mu.Unlock()
	})
	code := "package main\n\nimport (\n\t\"fmt\"\n\t\"time\"\n)\n\nfunc main() {\n\tfmt.Println(\"first\")\n\ttime.Sleep(time.Second)\n\tfmt.Println(\"second\")\n}\n"
	exec := func(token any) time.Time {
		req := mcp.CallToolRequest{}
		req.Params.Name = ToolExec
		req.Params.Arguments = map[string]any{"code": code}
		if token != nil {
			req.Params.Meta = &mcp.Meta{ProgressToken: token}
		}
		res, err := c.CallTool(context.Background(), req)
		if err != nil || res.IsError {
			t.Fatalf("exec: %v %+v", err, res)
		}
		return time.Now()
	}

	exec(nil)
	mu.Lock()
	if len(notes) != 0 {
		t.Errorf("progress sent without a token: %+v", notes)
	}
	mu.Unlock()

	ended := exec("run-1")
	// The result waits for its progress to be written (flush), but
	// mcp-go writes notifications from a goroutine of their own: give the
	// last one a moment on a loaded machine.
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := len(notes)
		mu.Unlock()
		if n >= 2 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 2 || notes[0].msg != "first" || notes[1].msg != "second" {
		t.Fatalf("progress: got %+v, want the two lines", notes)
	}
	if notes[0].token != "run-1" {
		t.Errorf("progress token %v, want run-1", notes[0].token)
	}
	if early := ended.Sub(notes[0].at); early < 500*time.Millisecond {
		t.Errorf("the first line came %v before the result: want it while the snippet slept", early)
	}
}
