package discovery

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The fault server's floods and depth bombs, against the real supervisor
// over stdio: none may grow mcpfs without bound, overflow its stack or
// leave a call waiting for its timeout.

// TestDeepResult: a result nested 100,000 levels deep (and one just over
// the bound) fails its call at once with an error that says why; one
// within the bound passes; the server stays usable.
func TestDeepResult(t *testing.T) {
	s, _ := startSupervisor(t, fastRestarts(), faultServer("f", "more-tools"))
	settle(t, s)
	for _, depth := range []int{100000, MaxJSONDepth + 1} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		began := time.Now()
		_, err := s.CallTool(ctx, "f", "deep", json.RawMessage(`{"depth": `+itoa(depth)+`}`))
		cancel()
		took := time.Since(began)
		if err == nil || !strings.Contains(err.Error(), "nests deeper than") || !strings.Contains(err.Error(), "levels") {
			t.Errorf("depth %d: got %v, want an error saying the answer nests too deep", depth, err)
		}
		if took > 5*time.Second {
			t.Errorf("depth %d: the call failed after %v, want at once", depth, took)
		}
	}
	res, err := s.CallTool(context.Background(), "f", "deep", json.RawMessage(`{"depth": 200}`))
	if err != nil || !strings.Contains(string(res), `"end":true`) {
		t.Errorf("depth 200: %v, %.100s; want the result", err, res)
	}
	callUntilOK(t, s, "f")
}

// TestDeepNotification: a notification nested too deep is dropped with a
// note, and the call it came with still gets its answer.
func TestDeepNotification(t *testing.T) {
	s, h := startSupervisor(t, fastRestarts(), faultServer("f", "more-tools"))
	settle(t, s)
	_, err := s.CallTool(context.Background(), "f", "deep", json.RawMessage(`{"depth": 50000, "notify": true}`))
	if err == nil || !strings.Contains(err.Error(), "nests deeper than") {
		t.Errorf("got %v, want the deep answer refused", err)
	}
	if !h.has("dropped a message from the server that nests deeper than") {
		t.Error("no note of the dropped notification")
	}
	callUntilOK(t, s, "f")
}

// TestDeepListing: a tools/list whose schema nests too deep fails the
// server with the reason, not the process.
func TestDeepListing(t *testing.T) {
	s, _ := startSupervisor(t, fastRestarts(), faultServer("f", "deep-list=20000"))
	cat := settle(t, s)
	ss, _ := cat.Server("f")
	if ss.State != StateFailed || !strings.Contains(ss.Err, "nests deeper than") {
		t.Errorf("server f: %s, %q; want failed, saying the listing nests too deep", ss.State, ss.Err)
	}
}

// TestNotificationFlood: a server that sends log or progress notifications
// without pause costs mcpfs little CPU and memory, its calls are answered
// promptly, and the flood is noted (not logged line by line).
func TestNotificationFlood(t *testing.T) {
	for _, kind := range []string{"message", "progress"} {
		t.Run(kind, func(t *testing.T) {
			t0 := time.Now()
			s, h := startSupervisor(t, fastRestarts(), faultServer("f", "notify-flood="+kind))
			settle(t, s)
			settled := time.Since(t0)
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			cpu0 := cpuTime()
			began := time.Now()
			var worst time.Duration
			for time.Since(began) < 3*time.Second {
				t0 := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				_, err := s.CallTool(ctx, "f", "echo", json.RawMessage(`{"text":"hi"}`))
				cancel()
				if err != nil {
					t.Fatalf("echo during the flood: %v", err)
				}
				worst = max(worst, time.Since(t0))
				time.Sleep(50 * time.Millisecond)
			}
			wall, cpu := time.Since(began), cpuTime()-cpu0
			runtime.GC()
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			t.Logf("flood of %s notifications: %v of CPU in %v (%.0f%%), heap %+d KiB, slowest echo %v",
				kind, cpu.Round(time.Millisecond), wall.Round(time.Millisecond), 100*cpu.Seconds()/wall.Seconds(), grew>>10, worst.Round(time.Millisecond))
			if worst > 2*time.Second {
				t.Errorf("slowest echo during the flood: %v, want well under 2s", worst)
			}
			if grew > 32<<20 {
				t.Errorf("heap grew by %d MiB during the flood, want it bounded", grew>>20)
			}
			if !h.has("dropped", "notifications/"+kind) {
				t.Errorf("no note of the dropped %s notifications", kind)
			}
			// What passes on is bounded by the rate, whatever the flood:
			// each log notification that passes is logged at debug level.
			// (The CPU figure is measured by BenchmarkNotificationFlood.)
			if n, bound := h.count("server log message"), chattyPerSecond*(int(time.Since(began).Seconds())+int(settled.Seconds())+3); n > bound {
				t.Errorf("%d log notifications passed to the client, want at most %d (%d a second)", n, bound, chattyPerSecond)
			}
		})
	}
}

// TestFloodThenAnswer: 100,000 notifications before an answer; the answer
// comes, and the notifications do not pile up.
func TestFloodThenAnswer(t *testing.T) {
	s, _ := startSupervisor(t, fastRestarts(), faultServer("f", "more-tools"))
	settle(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, "f", "flood", json.RawMessage(`{"count": 100000}`))
	if err != nil || !strings.Contains(string(res), "flooded 100000") {
		t.Fatalf("flood: %v, %.100s", err, res)
	}
	callUntilOK(t, s, "f")
}

// count is how many records contain sub.
func (h *testLog) count(sub string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range *h.records {
		if strings.Contains(r, sub) {
			n++
		}
	}
	return n
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestScanHead(t *testing.T) {
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	tests := []struct {
		line   string
		depth  int
		method string
		id     string
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{}}`, 2, "", "7"},
		{`{"jsonrpc":"2.0","id":"a\"b","result":{"id":9,"method":"x"}}`, 2, "", `"a\"b"`},
		{`{"method":"notifications/message","params":{"data":"{\"id\":1}"}}`, 2, "notifications/message", ""},
		{`{ "result" : ` + deep + ` , "id" : -12 }`, 5001, "", "-12"},
		{`{"id":null,"error":{"code":1}}`, 2, "", ""},
		{`{"id":3}`, 1, "", "3"},
		{`{"method":"tools/list","id":"x","params":{"cursor":"c]}"}}`, 2, "tools/list", `"x"`},
	}
	for _, tt := range tests {
		h := scanHead([]byte(tt.line))
		if h.depth != tt.depth || h.method != tt.method || string(h.id) != tt.id {
			t.Errorf("scanHead(%.60q): depth %d, method %q, id %q; want %d, %q, %q", tt.line, h.depth, h.method, h.id, tt.depth, tt.method, tt.id)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(refusal([]byte(`"a\"b"`), 5001), &m); err != nil || m["id"] != `a"b` {
		t.Errorf("refusal: %v, %v; want a JSON-RPC error answer to the id", err, m)
	}
}

func TestFloodGate(t *testing.T) {
	log, h := newTestLog(t)
	var slept time.Duration
	g := floodGate{log: log, sleep: func(d time.Duration) { slept += d }}
	now := time.Unix(1000, 0)
	passed := 0
	for i := 0; i < 10000; i++ {
		if g.pass("notifications/message", now.Add(time.Duration(i)*time.Microsecond)) {
			passed++
		}
		if !g.pass(notifyToolsListChanged, now) {
			t.Fatal("tools/list_changed was dropped")
		}
	}
	if passed != chattyPerSecond {
		t.Errorf("passed %d of 10000 in 10 ms, want %d", passed, chattyPerSecond)
	}
	if want := time.Duration(10000-chattyPerSecond) * time.Second / floodReadPerSecond; slept < want-5*time.Millisecond || slept > want {
		t.Errorf("slept %v for the dropped lines, want about %v", slept, want)
	}
	if h.count("floods notifications/message") != 1 {
		t.Errorf("want one note of the flood in 10 ms")
	}
	if !g.pass("notifications/message", now.Add(2*time.Second)) {
		t.Error("a notification a second later was dropped")
	}
	// Made-up methods share one allowance (and one entry).
	later, invented := now.Add(10*time.Second), 0
	for i := 0; i < 1000; i++ {
		if g.pass("notifications/made-up-"+itoa(i), later) {
			invented++
		}
	}
	if invented != chattyPerSecond || len(g.windows) != 2 {
		t.Errorf("1000 made-up notifications: %d passed, %d allowances kept; want %d and 2", invented, len(g.windows), chattyPerSecond)
	}
}
