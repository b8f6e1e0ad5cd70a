package exec

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// lines collects what a Request's Stdout receives, with when each write
// came.
type lines struct {
	mu     sync.Mutex
	text   strings.Builder
	writes []time.Time
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.text.Write(p)
	l.writes = append(l.writes, time.Now())
	return len(p), nil
}

// TestStreamOutput: Request.Stdout receives the output as the snippet
// writes it, cut at MaxOutput with a note at once, and ends with what
// Result.Stdout holds. The snippet goes on after each line only once a
// call's answer comes, which the test gives once it has seen the line
// streamed: no timing is assumed.
func TestStreamOutput(t *testing.T) {
	e := newEngine(t)
	r := newRunner(t, Options{MaxOutput: 64})
	src := `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"mcpfs/mcp"
)

func main() {
	fmt.Println("first")
	mcp.Transport(context.Background(), "docstore", "list_documents", json.RawMessage("{}"))
	fmt.Println(strings.Repeat("x", 100))
	mcp.Transport(context.Background(), "docstore", "list_documents", json.RawMessage("{}"))
}
`
	note := "\n[mcpfs: stdout cut at 64 bytes: the rest is not shown; the end of the run says where it is kept]\n"
	req := e.request(t, src)
	var out lines
	req.Stdout = &out
	var calls atomic.Int32
	req.Call = func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
		n := calls.Add(1)
		want := map[int32]string{1: "first\n", 2: "first\n" + strings.Repeat("x", 58) + note}[n]
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			out.mu.Lock()
			got := out.text.String()
			out.mu.Unlock()
			if got == want {
				return json.RawMessage(`{"content":[]}`), nil
			}
			if time.Now().After(end) {
				t.Errorf("call %d: the stream holds %q, want %q before the snippet goes on", n, got, want)
				return nil, errors.New("output not streamed")
			}
		}
	}
	res, err := r.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("calls: got %d, want 2", n)
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	got := out.text.String()
	if want := "first\n" + strings.Repeat("x", 58) + note; !strings.HasPrefix(got, want) {
		t.Errorf("streamed %q, want it to start with %q", got, want)
	}
	if len(res.Stdout) <= 64 || !strings.Contains(string(res.Stdout), "truncated") {
		t.Errorf("Result.Stdout %q, want it cut at 64 bytes with a marker", res.Stdout)
	}
	if strings.Replace(got, note, "", 1) != string(res.Stdout) {
		t.Errorf("streamed %q, want Result.Stdout %q and the note", got, res.Stdout)
	}
}

// TestStreamPanic: a panic's report is held back and streamed as the
// Result has it, trimmed; what the snippet wrote before streams at once.
func TestStreamPanic(t *testing.T) {
	e := newEngine(t)
	r := newRunner(t, Options{})
	for _, tt := range []struct{ name, body string }{
		{"main", `panic("boom")`},
		{"goroutine", `go func() { panic("boom") }(); time.Sleep(time.Second)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Snippets cannot name os.Stderr: an unrestricted job (the sandbox
			// tests' bypass of the checker) stands in for whatever writes there.
			src := "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"time\"\n)\n\nfunc f() {\n\t" + tt.body + "\n}\n\nfunc main() {\n\tfmt.Fprintln(os.Stderr, \"before\")\n\ttime.Sleep(200 * time.Millisecond)\n\tf()\n}\n"
			req := Request{Source: []byte(src), Tree: e.tree, unrestricted: true}
			var out lines
			req.Stderr = &out
			res, err := r.Run(context.Background(), req)
			end := time.Now()
			if err == nil {
				t.Fatal("no error, want a panic")
			}
			out.mu.Lock()
			defer out.mu.Unlock()
			if got := out.text.String(); got != string(res.Stderr) {
				t.Errorf("streamed %q, want Result.Stderr %q", got, res.Stderr)
			}
			if strings.Contains(string(res.Stderr), "goroutine ") || !strings.HasPrefix(string(res.Stderr), "before\n") {
				t.Errorf("Result.Stderr %q, want the line before the panic and no traceback", res.Stderr)
			}
			if len(out.writes) == 0 || end.Sub(out.writes[0]) < 150*time.Millisecond {
				t.Errorf("writes at %v, run ended at %v: want the line before the panic 200 ms before the end", out.writes, end)
			}
		})
	}
}

// blocked is a Stdout whose writes wait until release is closed.
type blocked struct {
	release chan struct{}
	lines
}

func (b *blocked) Write(p []byte) (int, error) {
	<-b.release
	return b.lines.Write(p)
}

// TestStreamBlocked: a destination that does not take the output holds
// up neither the worker nor the run's end; Run returns once it has all.
func TestStreamBlocked(t *testing.T) {
	e := newEngine(t)
	r := newRunner(t, Options{MaxOutput: 1 << 20})
	src := `package main

import (
	"fmt"
	"strings"
)

func main() {
	for i := 0; i < 2000; i++ {
		fmt.Println(strings.Repeat("y", 1000))
	}
}
`
	req := e.request(t, src)
	b := &blocked{release: make(chan struct{})}
	req.Stdout = b
	start := time.Now()
	go func() {
		time.Sleep(time.Second)
		close(b.release)
	}()
	res, err := r.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < time.Second {
		t.Errorf("Run returned before the destination took the output")
	}
	// The worker wrote 2 MB past a pipe of 64 KiB while nothing was
	// taken: the stream kept 1 MiB and let the rest pass.
	b.mu.Lock()
	defer b.mu.Unlock()
	note := "\n[mcpfs: stdout cut at 1048576 bytes: the rest is not shown; the end of the run says where it is kept]\n"
	if got := strings.Replace(b.text.String(), note, "", 1); got != string(res.Stdout) || !strings.Contains(b.text.String(), note) {
		t.Errorf("streamed %d bytes ending %q, want Result.Stdout (%d bytes) ending %q", len(got), tail(got), len(res.Stdout), tail(string(res.Stdout)))
	}
}

func tail(s string) string { return s[max(0, len(s)-200):] }
