package discovery

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
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
