package exec

import (
	"context"
	"strings"
	"sync"
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
// writes it, uncut, while Result.Stdout is cut at MaxOutput.
func TestStreamOutput(t *testing.T) {
	e := newEngine(t)
	r := newRunner(t, Options{MaxOutput: 64})
	src := `package main

import (
	"fmt"
	"strings"
	"time"
)

func main() {
	fmt.Println("first")
	time.Sleep(300 * time.Millisecond)
	fmt.Println(strings.Repeat("x", 100))
}
`
	req := e.request(t, src)
	var out lines
	req.Stdout = &out
	res, err := r.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	if want := "first\n" + strings.Repeat("x", 100) + "\n"; out.text.String() != want {
		t.Errorf("streamed %q, want %q", out.text.String(), want)
	}
	// The first line came before the pause, not with the rest at the end.
	if n := len(out.writes); n < 2 || out.writes[n-1].Sub(out.writes[0]) < 250*time.Millisecond {
		t.Errorf("writes at %v, want the first one 300 ms before the last", out.writes)
	}
	if len(res.Stdout) <= 64 || !strings.Contains(string(res.Stdout), "truncated") {
		t.Errorf("Result.Stdout %q, want it cut at 64 bytes with a marker", res.Stdout)
	}
}
