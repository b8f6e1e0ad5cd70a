package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpfs/mcpfs/testenv"
)

func quietOptions() Options {
	return Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// BenchmarkConnectEverythingStdio measures starting server-everything over
// stdio, initializing and listing its tools, then stopping it.
func BenchmarkConnectEverythingStdio(b *testing.B) {
	bin := testenv.Bin(b, "mcp-server-everything")
	cfg := &Config{Servers: []ServerConfig{{Name: "everything", Transport: "stdio", Command: bin, Args: []string{"stdio"}}}}
	var connect, stop time.Duration
	for b.Loop() {
		began := time.Now()
		s := Start(context.Background(), cfg, quietOptions())
		if err := s.Settle(context.Background()); err != nil {
			b.Fatal(err)
		}
		connect += time.Since(began)
		if ss, _ := s.Catalog().Server("everything"); ss.State != StateReady || len(ss.Tools) == 0 {
			b.Fatalf("got %s with %d tools (%s), want ready with tools", ss.State, len(ss.Tools), ss.Err)
		}
		began = time.Now()
		s.Close()
		stop += time.Since(began)
	}
	b.ReportMetric(float64(connect.Milliseconds())/float64(b.N), "connect-ms/op")
	b.ReportMetric(float64(stop.Milliseconds())/float64(b.N), "close-ms/op")
}

// BenchmarkCallToolInProcess measures one CallTool round trip to an
// in-process server: the Supervisor's own overhead.
func BenchmarkCallToolInProcess(b *testing.B) {
	opts := quietOptions()
	opts.Builtins = map[string]func() *server.MCPServer{"demo": func() *server.MCPServer { return demoServer(0) }}
	s := Start(context.Background(), &Config{Servers: []ServerConfig{builtin("demo")}}, opts)
	defer s.Close()
	if err := s.Settle(context.Background()); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"text":"hi"}`)
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.CallTool(ctx, "demo", "echo", args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallToolStdio measures one CallTool round trip to the Go fault
// server over stdio.
func BenchmarkCallToolStdio(b *testing.B) {
	s := Start(context.Background(), &Config{Servers: []ServerConfig{faultServer("fs", "")}}, quietOptions())
	defer s.Close()
	if err := s.Settle(context.Background()); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"text":"hi"}`)
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.CallTool(ctx, "fs", "echo", args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNotificationFlood measures one CallTool round trip to a fault
// server that sends log notifications without pause, and what the flood
// costs mcpfs: cpu-% is this process's CPU time over the wall time (100
// is one core busy; the flooding server's own CPU is not in it), echo-ms
// the mean round trip (ns/op includes a 10 ms pause between calls).
func BenchmarkNotificationFlood(b *testing.B) {
	s := Start(context.Background(), &Config{Servers: []ServerConfig{faultServer("fs", "notify-flood=message")}}, quietOptions())
	defer s.Close()
	if err := s.Settle(context.Background()); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"text":"hi"}`)
	ctx := context.Background()
	cpu0, began := cpuTime(), time.Now()
	var calls time.Duration
	n := 0
	for b.Loop() {
		t0 := time.Now()
		if _, err := s.CallTool(ctx, "fs", "echo", args); err != nil {
			b.Fatal(err)
		}
		calls += time.Since(t0)
		n++
		time.Sleep(10 * time.Millisecond) // the flood runs between calls too
	}
	b.ReportMetric(100*(cpuTime()-cpu0).Seconds()/time.Since(began).Seconds(), "cpu-%")
	b.ReportMetric(calls.Seconds()*1000/float64(n), "echo-ms")
}

// BenchmarkStartCached50 measures, for 50 servers whose processes take 2 s
// to start but whose listings are cached: the time from Start until every
// server's tools are published (from the cache), and until every server is
// live.
func BenchmarkStartCached50(b *testing.B) {
	const n = 50
	mc := newMemCache()
	cfg := &Config{}
	for i := range n {
		sc := faultServer(fmt.Sprintf("s%02d", i), "start-delay=2s")
		cfg.Servers = append(cfg.Servers, sc)
		mc.tools[ServerKey(sc)] = CachedTools{ListedAt: time.Now(), Tools: []Tool{{Name: "echo", Raw: json.RawMessage(`{"name":"echo"}`)}}}
	}
	opts := quietOptions()
	opts.Cache = mc
	opts.ConnectTimeout = time.Minute
	var full, live time.Duration
	for b.Loop() {
		began := time.Now()
		s := Start(context.Background(), cfg, opts)
		c := s.Catalog()
		for _, ss := range c.Servers {
			if len(ss.Tools) == 0 {
				b.Fatalf("%s: no tools in the first catalog", ss.Name)
			}
		}
		full += time.Since(began)
		if err := s.Settle(context.Background()); err != nil {
			b.Fatal(err)
		}
		live += time.Since(began)
		for _, ss := range s.Catalog().Servers {
			if ss.State != StateReady || ss.Stale {
				b.Fatalf("%s: %s (stale %v): %s", ss.Name, ss.State, ss.Stale, ss.Err)
			}
		}
		s.Close()
	}
	b.ReportMetric(float64(full.Microseconds())/float64(b.N), "full-tree-µs/op")
	b.ReportMetric(float64(live.Milliseconds())/float64(b.N), "all-live-ms/op")
}

// BenchmarkKillMidCall measures a server killed (SIGKILL of its process
// group) during a call: how long until the call fails, and until the next
// call succeeds, with the default restart delays.
func BenchmarkKillMidCall(b *testing.B) {
	s := Start(context.Background(), &Config{Servers: []ServerConfig{faultServer("f", "")}}, quietOptions())
	defer s.Close()
	if err := s.Settle(context.Background()); err != nil {
		b.Fatal(err)
	}
	var toFail, toRecover time.Duration
	for b.Loop() {
		for serverPID(s, "f") == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		s.mu.Lock()
		cn := s.servers["f"].conn
		s.mu.Unlock()
		pgid := cn.proc.pgid
		done := make(chan error, 1)
		go func() {
			_, err := s.CallTool(context.Background(), "f", "sleep", nil)
			done <- err
		}()
		for cn.inflight.Load() == 0 { // until the call is in flight
			time.Sleep(time.Millisecond)
		}
		killed := time.Now()
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		if err := <-done; err == nil {
			b.Fatal("the call survived its server's death")
		}
		toFail += time.Since(killed)
		for {
			if _, err := s.CallTool(context.Background(), "f", "echo", nil); err == nil {
				break
			} else if !errors.Is(err, ErrNotReady) {
				b.Fatal(err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		toRecover += time.Since(killed)
	}
	b.ReportMetric(float64(toFail.Milliseconds())/float64(b.N), "call-fails-ms/op")
	b.ReportMetric(float64(toRecover.Milliseconds())/float64(b.N), "next-call-ok-ms/op")
}
