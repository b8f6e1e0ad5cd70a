package discovery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// discoverTimeout bounds mcp-go's server/discover probe, sent before
// initialize to find servers speaking protocol 2026-07-28. Servers of earlier
// revisions either answer it with an error at once (the npm reference
// servers, mcp-go, the Python SDK: no wait at all, measured) or ignore it,
// which mcp-go's default would wait out for 5 s. A newer server that takes
// longer than this to start merely talks the initialize handshake, which
// servers of that revision keep for older clients.
const discoverTimeout = time.Second

// listChangedDebounce gathers a burst of notifications/tools/list_changed
// into one re-listing.
const listChangedDebounce = 25 * time.Millisecond

// cancelNotifyTimeout bounds sending notifications/cancelled.
const cancelNotifyTimeout = 2 * time.Second

const (
	methodToolsList        = "tools/list"
	methodToolsCall        = "tools/call"
	notifyToolsListChanged = "notifications/tools/list_changed"
	notifyCancelled        = "notifications/cancelled"
	notifyMessage          = "notifications/message"
)

var clientInfo = mcp.Implementation{Name: "mcpfs", Version: moduleVersion()}

func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// RPCError is a JSON-RPC error a server answered a request with.
type RPCError struct {
	Method  string
	Code    int
	Message string
	Data    json.RawMessage // the error's data member, if any
	wrapped error           // mcp-go's sentinel for the code, if any
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("%s: server answered error %d: %s", e.Method, e.Code, e.Message)
}

// Unwrap returns mcp-go's error for the code (mcp.ErrMethodNotFound,
// mcp.ErrInvalidParams, ...), so errors.Is works with those.
func (e *RPCError) Unwrap() error { return e.wrapped }

func newRPCError(method string, d *mcp.JSONRPCErrorDetails) *RPCError {
	e := &RPCError{Method: method, Code: d.Code, Message: d.Message}
	if d.Data != nil {
		e.Data, _ = json.Marshal(d.Data)
	}
	if w := d.AsError(); w != nil && w.Error() != d.Message {
		e.wrapped = w
	}
	return e
}

// conn is one live connection to a server: an mcp-go client over its
// transport, plus the stdio process when there is one. Requests that must
// stay lossless (tools/list, tools/call) go through the transport directly.
type conn struct {
	name     string
	log      *slog.Logger
	client   *client.Client
	tr       transport.Interface
	proc     *process     // stdio only
	httpc    *http.Client // http and sse only
	maxPages int
	maxList  int64 // bytes of one tools/list, all pages

	ids         atomic.Int64
	inflight    atomic.Int64  // tools/call requests waiting for an answer
	unanswered  atomic.Bool   // a call ran out of time since the last ping answered
	listChanged chan struct{} // capacity 1: coalesces signals

	dead     chan struct{}
	deadOnce sync.Once
	deadErr  error

	stopListen func() // ends a subscriptions/listen stream, if open
	bg         sync.WaitGroup
	closeOnce  sync.Once
}

// serverInfo is what initialize told about a server.
type serverInfo struct {
	name, title, version, protocol, instructions string
}

// runServer owns one server for the Supervisor's lifetime: it connects and
// serves until the connection dies, publishes the failure, and starts the
// server again after a capped exponential backoff (sooner when a call asks
// for it), until the Supervisor stops.
func (s *Supervisor) runServer(ctx context.Context, rt *serverRuntime) {
	defer s.wg.Done()
	delay := s.opts.RestartMinDelay
	for {
		cn, readyAt, err := s.runSession(ctx, rt)
		if ctx.Err() != nil {
			if cn != nil {
				cn.close()
			}
			return
		}
		if !readyAt.IsZero() && time.Since(readyAt) >= s.opts.HealthyUptime {
			delay = s.opts.RestartMinDelay // it was healthy: start over
		}
		wait := delay
		delay = min(delay*2, s.opts.RestartMaxDelay)
		err = rt.redact.Error(err)
		now := time.Now()
		if readyAt.IsZero() {
			// It never became ready: the catalog says so, and whoever
			// started it reports that.
			rt.log.Info("server failed to start; trying again later", "err", err, "retry-in", wait)
		} else {
			rt.log.Warn("server failed; starting it again later", "err", err, "retry-in", wait)
		}
		// Published before the teardown, which can take seconds, so no
		// call is routed to a dying connection meanwhile.
		s.update(rt, func(rt *serverRuntime) {
			rt.conn = nil
			rt.failures++
			rt.failedAt = now
			rt.snap.State = StateFailed
			rt.snap.Err = err.Error()
			rt.snap.Since = now
			rt.snap.Stale = len(rt.snap.Tools) > 0 || rt.snap.Stale
			rt.snap.NextRetry = now.Add(wait)
		})
		if cn != nil {
			cn.close()
		}
		t := time.NewTimer(time.Until(now.Add(wait)))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-rt.kick:
			t.Stop()
		}
		s.update(rt, func(rt *serverRuntime) {
			rt.snap.State = StateConnecting
			rt.snap.Since = time.Now()
			rt.snap.NextRetry = time.Time{}
			rt.snap.Restarts++
		})
	}
}

// runSession connects once and serves until the connection ends. It returns
// the connection, for the caller to close, when it became ready (zero if
// never), and why it ended; when ctx ended, the error does not matter.
func (s *Supervisor) runSession(ctx context.Context, rt *serverRuntime) (*conn, time.Time, error) {
	sc := rt.cfg
	log := rt.log
	timeout := s.opts.ConnectTimeout
	if sc.Timeout > 0 {
		timeout = sc.Timeout
	}
	// A kick left from before this attempt is answered by it.
	select {
	case <-rt.kick:
	default:
	}
	if err := s.starts.acquire(ctx, rt); err != nil {
		return nil, time.Time{}, err
	}
	rt.urgent.Store(false)
	began := time.Now()
	cn, info, tools, truncated, err := s.connect(ctx, sc, timeout, log)
	s.starts.release()
	if err != nil {
		log.Debug("connect failed", "elapsed", time.Since(began), "err", err)
		return nil, time.Time{}, err
	}
	log.Info("server ready", "tools", len(tools), "protocol", info.protocol, "elapsed", time.Since(began).Round(time.Millisecond))
	readyAt := time.Now()
	var snap ServerSnapshot
	s.update(rt, func(rt *serverRuntime) {
		rt.conn = cn
		rt.snap.State = StateReady
		rt.snap.Err = ""
		rt.snap.Since = readyAt
		rt.snap.ServerName = info.name
		rt.snap.ServerTitle = info.title
		rt.snap.ServerVersion = info.version
		rt.snap.ProtocolVersion = info.protocol
		rt.snap.Instructions = rt.redact.String(info.instructions)
		rt.snap.Tools = tools
		rt.snap.ToolsTruncated = truncated
		rt.snap.Stale = false
		rt.snap.ListedAt = readyAt
		snap = rt.snap
	})
	if snap.Name != "" { // not closing
		s.storeTools(rt, snap)
	}
	return cn, readyAt, s.serve(ctx, rt, cn, timeout)
}

// serve follows a ready connection: it re-lists tools on list_changed,
// pings the server (see Options.PingInterval), and returns when the
// connection dies, the server stops answering, or ctx ends.
func (s *Supervisor) serve(ctx context.Context, rt *serverRuntime, cn *conn, timeout time.Duration) error {
	var ping <-chan time.Time
	if s.opts.PingInterval > 0 && (cn.proc != nil || cn.httpc != nil) {
		t := time.NewTicker(s.opts.PingInterval)
		defer t.Stop()
		ping = t.C
	}
	missed := 0
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-cn.dead:
			return cn.deadErr
		case <-ping:
			waiting := cn.inflight.Load()
			if cn.proc != nil && waiting == 0 && !cn.unanswered.Load() {
				// A stdio server's exit is seen at once; only one that
				// keeps calls waiting, or let one run out of time, is
				// asked whether it is still there.
				missed = 0
				continue
			}
			err := cn.ping(ctx, min(timeout, s.opts.PingInterval))
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err == nil {
				missed = 0
				cn.unanswered.Store(false)
				continue
			}
			missed++
			cn.log.Debug("ping failed", "err", err, "in-a-row", missed, "calls-waiting", waiting)
			if missed < 2 {
				continue
			}
			if cn.proc == nil {
				return fmt.Errorf("the server stopped answering: two pings in a row failed: %w", err)
			}
			// The ping's deadline is not the calls': err is not wrapped, so
			// the waiting calls do not read as timed out.
			while := fmt.Sprintf("while %d calls waited", waiting)
			if waiting == 0 {
				while = "after a call ran out of time"
			}
			err = fmt.Errorf("the server stopped answering: no answer to two pings in a row %s%s (last ping: %v)",
				while, processState(cn.proc.cmd.Process.Pid), err)
			cn.proc.fail(err) // kills the group: the waiting calls fail now, with err
			return err
		case <-cn.listChanged:
		}
		// Let a burst of notifications arrive, then list once.
		t := time.NewTimer(listChangedDebounce)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-cn.dead:
			t.Stop()
			return cn.deadErr
		case <-t.C:
		}
		select {
		case <-cn.listChanged:
		default:
		}
		lctx, cancel := context.WithTimeout(ctx, timeout)
		tools, truncated, err := cn.listTools(lctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			cn.log.Warn("re-listing tools after list_changed failed; keeping the previous list", "err", err)
			continue
		}
		s.mu.Lock()
		same := rt.snap.ToolsTruncated == truncated && slices.EqualFunc(rt.snap.Tools, tools, func(a, b Tool) bool {
			return a.Name == b.Name && bytes.Equal(a.Raw, b.Raw)
		})
		s.mu.Unlock()
		if same {
			cn.log.Debug("tools/list_changed, but the tools are the same")
			continue
		}
		cn.log.Info("tools changed", "tools", len(tools))
		var snap ServerSnapshot
		s.update(rt, func(rt *serverRuntime) {
			rt.snap.Tools = tools
			rt.snap.ToolsTruncated = truncated
			rt.snap.ListedAt = time.Now()
			snap = rt.snap
		})
		if snap.Name != "" {
			s.storeTools(rt, snap)
		}
	}
}

// connect starts the server, initializes, opens the notification stream and
// lists tools, all within timeout.
func (s *Supervisor) connect(ctx context.Context, sc ServerConfig, timeout time.Duration, log *slog.Logger) (cn *conn, info serverInfo, tools []Tool, truncated bool, err error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	step := "start"
	defer func() {
		if err == nil {
			return
		}
		if cn != nil {
			if cctx.Err() == nil {
				if deadErr := cn.deadDuring(); deadErr != nil {
					err = deadErr
				}
			}
			cn.close()
			cn = nil
		}
		if errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("no answer within %v (the connect timeout; raise the server's \"timeout\" if it is just slow): %w", timeout, err)
		}
		if nl := needsLogin(sc, err); nl != err {
			err = nl // says all: which step does not matter
			return
		}
		err = fmt.Errorf("%s %q: %w", step, sc.Name, err)
	}()

	cn = &conn{
		name:        sc.Name,
		log:         log,
		maxPages:    s.opts.MaxToolPages,
		maxList:     s.opts.MaxListBytes,
		listChanged: make(chan struct{}, 1),
		dead:        make(chan struct{}),
		stopListen:  func() {},
	}
	if sc.MaxListBytes > 0 {
		cn.maxList = sc.MaxListBytes
	}
	if err = s.dial(ctx, cn, sc, timeout); err != nil {
		cn = nil // nothing was started
		return
	}
	cn.client = client.NewClient(cn.tr, client.WithDiscoverTimeout(discoverTimeout))
	cn.client.OnNotification(cn.onNotification)
	cn.client.OnConnectionLost(func(err error) {
		cn.markDead(fmt.Errorf("connection lost: %w", err))
	})
	// The transport lives as long as the connection: ctx, not cctx.
	// The closure must not read cn: the deferred clean-up sets it to nil
	// while Start may still be running.
	c := cn.client
	if err = startBounded(cctx, func() error { return c.Start(ctx) }); err != nil {
		return
	}

	step = "initialize"
	var res *mcp.InitializeResult
	res, err = cn.client.Initialize(cctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ClientInfo: clientInfo}})
	if err != nil {
		return
	}
	info = serverInfo{
		name:         res.ServerInfo.Name,
		title:        res.ServerInfo.Title,
		version:      res.ServerInfo.Version,
		protocol:     res.ProtocolVersion,
		instructions: res.Instructions,
	}
	if info.protocol == "" {
		info.protocol = cn.client.ProtocolVersion()
	}
	if mcp.IsModernProtocol(cn.client.ProtocolVersion()) {
		// 2026-07-28 delivers notifications only to a subscriptions/listen
		// stream the client opened; earlier revisions need no opt-in.
		stop, lerr := cn.client.ListenAsync(ctx, mcp.SubscriptionFilter{ToolsListChanged: true}, func(err error) {
			log.Warn("subscriptions/listen ended; tool list changes will not be seen", "err", err)
		})
		if lerr != nil {
			log.Warn("cannot open subscriptions/listen; tool list changes will not be seen", "err", lerr)
		} else {
			cn.stopListen = stop
		}
	}

	// Listed after the notification stream is open, so a change made in
	// between is not lost.
	step = "list tools"
	tools, truncated, err = cn.listTools(cctx)
	if err != nil && res.Capabilities.Tools == nil {
		log.Info("server declares no tools capability and tools/list failed; publishing no tools", "err", err)
		return cn, info, nil, false, nil
	}
	return
}

// startBounded runs start, returning early with ctx's error if ctx ends
// first; the caller then closes the transport, which ends start.
func startBounded(ctx context.Context, start func() error) error {
	done := make(chan error, 1)
	go func() { done <- start() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (cn *conn) onNotification(n mcp.JSONRPCNotification) {
	switch n.Method {
	case notifyToolsListChanged:
		select {
		case cn.listChanged <- struct{}{}:
		default:
		}
	case notifyMessage:
		cn.log.Debug("server log message", "params", n.Params.AdditionalFields)
	}
}

func (cn *conn) markDead(err error) {
	cn.deadOnce.Do(func() {
		cn.deadErr = err
		close(cn.dead)
	})
}

// deadDuring reports why a stdio server died (exit status and last stderr
// lines, or why mcpfs stopped it) if it dies within a moment: a better
// reason for a failed request than "transport closed".
func (cn *conn) deadDuring() error {
	if cn.proc == nil || !waitFor(cn.dead, 1500*time.Millisecond) {
		return nil
	}
	return cn.deadErr
}

// ping asks the server whether it is there. An error response is an answer
// too: only a transport failure or no answer within timeout fails.
func (cn *conn) ping(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := cn.request(ctx, "ping", map[string]any{})
	var rpcErr *RPCError
	if errors.As(err, &rpcErr) {
		return nil
	}
	return err
}

// close ends the connection and everything it started. Safe to call twice.
func (cn *conn) close() {
	cn.closeOnce.Do(func() {
		cn.stopListen()
		if cn.client != nil {
			if err := cn.client.Close(); err != nil {
				cn.log.Debug("closing transport", "err", err)
			}
		} else if cn.tr != nil {
			_ = cn.tr.Close()
		}
		if cn.proc != nil {
			cn.proc.stop()
		}
		cn.bg.Wait()
		if cn.httpc != nil {
			cn.httpc.CloseIdleConnections()
		}
		cn.markDead(ErrClosed)
	})
}

// request sends one JSON-RPC request through the transport and returns its
// result exactly as received. On a 2026-07-28 connection it adds the
// per-request _meta (and HTTP headers) that mcp-go's client would add.
func (cn *conn) request(ctx context.Context, method string, params map[string]any) (json.RawMessage, error) {
	version := cn.client.ProtocolVersion()
	modern := mcp.IsModernProtocol(version)
	if modern {
		params["_meta"] = map[string]any{
			mcp.MetaKeyProtocolVersion:    version,
			mcp.MetaKeyClientCapabilities: cn.client.GetClientCapabilities(),
			mcp.MetaKeyClientInfo:         clientInfo,
		}
	}
	encoded, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("%s: encode params: %w", method, err)
	}
	req := transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      mcp.NewRequestId("mcpfs-" + strconv.FormatInt(cn.ids.Add(1), 10)),
		Method:  method,
		Params:  json.RawMessage(encoded),
	}
	if modern {
		if h := mcp.StandardHeaders(version, mcp.MCPMethod(method), encoded); len(h) > 0 {
			req.Header = make(http.Header, len(h))
			for k, v := range h {
				req.Header.Set(k, v)
			}
		}
	}
	resp, err := cn.send(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			cn.cancelRemote(req.ID, ctxErr(ctx), modern)
			return nil, fmt.Errorf("%s: %w", method, ctxErr(ctx))
		}
		if errors.Is(err, transport.ErrTransportClosed) {
			// The stdio transport closes when stdout ends; the process's
			// exit (or its being stopped) says why, within a moment.
			if deadErr := cn.deadDuring(); deadErr != nil {
				return nil, fmt.Errorf("%s: %w", method, deadErr)
			}
		}
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if resp.Error != nil {
		return nil, newRPCError(method, resp.Error)
	}
	return resp.Result, nil
}

// send calls the transport on a goroutine of its own, so that ctx bounds
// the call whatever the transport does: the in-process transport runs the
// handler on the caller's goroutine and ignores ctx, and the stdio
// transport's write to a server that stopped reading blocks (up to
// stdinWriteTimeout, or until the connection closes).
func (cn *conn) send(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	type answer struct {
		resp *transport.JSONRPCResponse
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		// Ends when the transport returns: at once on ctx's end, or once a
		// blocked write fails (its deadline, or close closing stdin).
		resp, err := cn.tr.SendRequest(ctx, req)
		done <- answer{resp, err}
	}()
	select {
	case a := <-done:
		return a.resp, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-cn.dead:
		select {
		case a := <-done: // answered just before the end
			return a.resp, a.err
		default:
			return nil, transport.ErrTransportClosed
		}
	}
}

// cancelRemote tells the server to stop working on a request whose context
// ended, in the background and best effort. On a 2026-07-28 HTTP connection
// ending the request's stream is the cancellation, so nothing is sent.
func (cn *conn) cancelRemote(id mcp.RequestId, reason error, modern bool) {
	if _, isHTTP := cn.tr.(transport.HTTPConnection); isHTTP && modern {
		return
	}
	n := mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: notifyCancelled,
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{
				"requestId": id,
				"reason":    reason.Error(),
			}},
		},
	}
	cn.bg.Add(1)
	go func() {
		defer cn.bg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), cancelNotifyTimeout)
		defer cancel()
		if err := cn.tr.SendNotification(ctx, n); err != nil {
			cn.log.Debug("sending notifications/cancelled failed", "err", err)
		}
	}()
}

// listTools fetches the full tool list, following nextCursor up to maxPages,
// and keeps each tool's JSON exactly as the server sent it. A repeated
// cursor or the page bound stops pagination with truncated set.
func (cn *conn) listTools(ctx context.Context) (tools []Tool, truncated bool, err error) {
	seenTool := make(map[string]bool)
	seenCursor := make(map[string]bool)
	cursor := ""
	size := int64(0)
	for page := 0; ; page++ {
		if page == cn.maxPages {
			cn.log.Warn("tools/list has more pages than the bound; the tool list is truncated", "pages", page, "tools", len(tools))
			return tools, true, nil
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := cn.request(ctx, methodToolsList, params)
		if err != nil {
			return nil, false, err
		}
		if size += int64(len(raw)); size > cn.maxList {
			return nil, false, fmt.Errorf("%w: the answer to tools/list is over %d bytes after %d pages (the server's \"maxListBytes\" in its \"mcpfs\" object raises the bound)", ErrListTooLarge, cn.maxList, page+1)
		}
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor *string           `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, false, fmt.Errorf("tools/list page %d: result is not {\"tools\": [...], \"nextCursor\": string}: %w", page+1, err)
		}
		for i, t := range res.Tools {
			name, ok := toolName(t)
			if !ok {
				cn.log.Warn("skipping a tool without a string \"name\"", "page", page+1, "index", i, "tool", truncate(string(t), 200))
				continue
			}
			if seenTool[name] {
				cn.log.Warn("skipping a second tool with the same name; keeping the first", "tool", name)
				continue
			}
			seenTool[name] = true
			tools = append(tools, Tool{Name: name, Raw: t})
		}
		if res.NextCursor == nil || *res.NextCursor == "" {
			return tools, false, nil
		}
		cursor = *res.NextCursor
		if seenCursor[cursor] {
			cn.log.Warn("tools/list repeated a cursor; stopping pagination and publishing a truncated list", "cursor", truncate(cursor, 100), "tools", len(tools))
			return tools, true, nil
		}
		seenCursor[cursor] = true
	}
}

// toolName returns the tool object's "name" if it is a non-empty string.
func toolName(raw json.RawMessage) (string, bool) {
	var t struct {
		Name json.RawMessage `json:"name"`
	}
	if err := json.Unmarshal(raw, &t); err != nil || len(t.Name) == 0 {
		return "", false
	}
	var name string
	if err := json.Unmarshal(t.Name, &name); err != nil || name == "" {
		return "", false
	}
	return name, true
}

// callTool sends tools/call and returns the raw CallToolResult.
func (cn *conn) callTool(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return nil, fmt.Errorf("arguments must be a JSON object: %w", err)
	}
	cn.inflight.Add(1)
	defer cn.inflight.Add(-1)
	res, err := cn.request(ctx, methodToolsCall, map[string]any{"name": tool, "arguments": args})
	if err != nil {
		if ctx.Err() != nil {
			cn.unanswered.Store(true) // hung, or just slow: the pings will tell
		}
		return nil, err
	}
	if len(res) == 0 || string(res) == "null" {
		return nil, fmt.Errorf("tools/call: the server answered with an empty result")
	}
	return res, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
