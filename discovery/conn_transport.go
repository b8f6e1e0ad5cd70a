package discovery

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// sseResponseTimeout lifts mcp-go's 60 s cap on an SSE response, so the
// caller's context alone bounds a call.
const sseResponseTimeout = 24 * time.Hour

// dial builds cn's transport for sc; for stdio it also starts the process.
// ctx bounds the connection's life, timeout the SSE endpoint handshake.
func (s *Supervisor) dial(ctx context.Context, cn *conn, sc ServerConfig, timeout time.Duration) error {
	switch sc.Transport {
	case "stdio":
		if len(s.opts.ServerEnv) > 0 {
			env := maps.Clone(s.opts.ServerEnv)
			maps.Copy(env, sc.Env)
			sc.Env = env
		}
		proc, err := startProcess(sc, s.opts.MaxMessageBytes, int(min(cn.maxList, int64(s.opts.MaxMessageBytes))), cn.log)
		if err != nil {
			return err
		}
		cn.proc = proc
		cn.tr = transport.NewIO(proc.stdout, proc.stdin, nil)
		cn.bg.Add(1)
		go func() {
			defer cn.bg.Done()
			<-proc.exited
			cn.markDead(proc.exitError())
		}()
		return nil
	case "http":
		cn.httpc = newHTTPClient(s.opts.MaxMessageBytes, cn.log)
		tr, err := transport.NewStreamableHTTP(sc.URL,
			s.oauthOption(sc),
			transport.WithHTTPHeaders(maps.Clone(sc.Headers)),
			// Deprecated upstream for 2026-07-28, and it keeps the
			// connection on 2025-11-25; without it a legacy server's
			// list_changed never arrives.
			transport.WithContinuousListening(), //lint:ignore SA1019 needed for list_changed from servers before 2026-07-28 (see above)
			transport.WithHTTPBasicClient(cn.httpc),
			transport.WithHTTPLogger(cn.log),
		)
		if err != nil {
			return fmt.Errorf("url %q: %w", sc.URL, err)
		}
		cn.tr = tr
		return nil
	case "sse":
		cn.httpc = newHTTPClient(s.opts.MaxMessageBytes, cn.log)
		tr, err := transport.NewSSE(sc.URL,
			transport.WithHeaders(maps.Clone(sc.Headers)),
			transport.WithHTTPClient(cn.httpc),
			transport.WithSSELogger(cn.log),
			transport.WithEndpointTimeout(timeout),
			transport.WithResponseTimeout(sseResponseTimeout),
		)
		if err != nil {
			return fmt.Errorf("url %q: %w", sc.URL, err)
		}
		cn.tr = tr
		return nil
	case "builtin":
		newServer, ok := s.opts.Builtins[sc.Builtin]
		if !ok {
			known := slices.Sorted(maps.Keys(s.opts.Builtins))
			return fmt.Errorf("no built-in server named %q in this binary (built in: %s)", sc.Builtin, orNone(known))
		}
		srv := newServer()
		if srv == nil {
			return fmt.Errorf("built-in server %q: constructor returned nil", sc.Builtin)
		}
		cn.tr = transport.NewInProcessTransport(srv)
		return nil
	default:
		return fmt.Errorf("unknown transport %q (want stdio, http, sse or builtin)", sc.Transport)
	}
}

// newHTTPClient returns a client with its own connection pool, so closing
// one server's connection leaves no idle connections (and goroutines)
// behind, whose answers pass the guard (max bytes a message, the depth
// bound, the flood gate).
func newHTTPClient(max int, log *slog.Logger) *http.Client {
	return &http.Client{Transport: newGuardTransport(http.DefaultTransport.(*http.Transport).Clone(), max, log)}
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
