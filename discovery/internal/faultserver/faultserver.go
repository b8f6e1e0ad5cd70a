// Package faultserver is a small MCP server over stdio, written by hand
// (no SDK) so that it can misbehave in ways a real SDK would not let it:
// ignore requests, hang, exit, write garbage or oversized lines, loop its
// pagination. Tests run it by re-executing their own binary.
//
// Behaviours are chosen with a comma-separated list of modes:
//
//	proto=V          answer initialize with protocol version V only
//	                 (default 2025-11-25); V=2026-07-28 answers
//	                 server/discover and refuses initialize
//	ignore-discover  never answer server/discover
//	hang-initialize  never answer initialize
//	exit             print a line to stderr and exit with status 3 at once
//	garbage          write non-JSON lines to stdout before every message
//	tools=N          list N tools (default 4: echo, sleep, change, fail,
//	                 then tool5, tool6, ...)
//	page=K           K tools per tools/list page (default: all)
//	cursor-loop      pagination cursors that cycle: A → B → A
//	huge-line=N      answer tools/list with a line of N bytes
//	spawn-child      start a child in the same process group that sleeps
//	close-stdout     close stdout right after initialize, keep running
//	ignore-term      ignore SIGTERM
//	linger           keep running after stdin ends
//	sleep-forever    do nothing until killed (the spawned child)
//	start-delay=D    sleep D (a Go duration) before reading stdin
//	exit-first=PATH  exit like "exit" if PATH does not exist, creating it:
//	                 the first start fails, the next succeeds
//	stderr-flood=N   write N lines to stderr at start, in the background
//	print-env        write every environment variable to stderr at start
//	more-tools       also list crash, huge, storm and counter
//	notify-flood=K   from start, send notifications of kind K (message or
//	                 progress) without pause, in the background, until
//	                 stdout is closed
//	deep-list=N      answer tools/list with a tool whose inputSchema nests
//	                 N levels deep
//
// Tools: echo returns its arguments (as text and structuredContent); sleep
// never answers, and prints "cancelled <id>" to stderr when the client
// cancels it; change adds a tool named "extra" and sends
// notifications/tools/list_changed; fail returns isError. Callable whether
// listed or not: crash exits at once with status 1, mid-call; huge answers
// with a text of {"size": N} bytes (default 8 MiB); storm sends {"count": N}
// list_changed notifications (default 1000) and answers; counter (listed
// read-only) answers with how often it was called; wrongid answers with an
// id no request had (and never with the right one); late answers after
// {"ms": N} milliseconds (default 1000); flood sends {"count": N}
// notifications (default 10000) of {"kind": K} (message, the default, or
// progress) and then answers; deep answers with a structuredContent nested
// {"depth": N} levels (default 100000), after a notification nested as
// deep when {"notify": true}.
package faultserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Modes is a parsed mode list.
type Modes struct {
	Proto          string
	IgnoreDiscover bool
	HangInitialize bool
	Exit           bool
	Garbage        bool
	Tools          int
	Page           int
	CursorLoop     bool
	HugeLine       int
	SpawnChild     bool
	CloseStdout    bool
	IgnoreTerm     bool
	Linger         bool
	SleepForever   bool
	StartDelay     time.Duration
	ExitFirst      string
	StderrFlood    int
	PrintEnv       bool
	MoreTools      bool
	NotifyFlood    string
	DeepList       int
}

// ParseModes parses a comma-separated mode list.
func ParseModes(s string) (Modes, error) {
	m := Modes{Proto: "2025-11-25", Tools: 4}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		key, val, _ := strings.Cut(f, "=")
		num := func() (int, error) { return strconv.Atoi(val) }
		var err error
		switch key {
		case "proto":
			m.Proto = val
		case "ignore-discover":
			m.IgnoreDiscover = true
		case "hang-initialize":
			m.HangInitialize = true
		case "exit":
			m.Exit = true
		case "garbage":
			m.Garbage = true
		case "tools":
			m.Tools, err = num()
		case "page":
			m.Page, err = num()
		case "cursor-loop":
			m.CursorLoop = true
		case "huge-line":
			m.HugeLine, err = num()
		case "spawn-child":
			m.SpawnChild = true
		case "close-stdout":
			m.CloseStdout = true
		case "ignore-term":
			m.IgnoreTerm = true
		case "linger":
			m.Linger = true
		case "sleep-forever":
			m.SleepForever = true
		case "start-delay":
			m.StartDelay, err = time.ParseDuration(val)
		case "exit-first":
			m.ExitFirst = val
		case "stderr-flood":
			m.StderrFlood, err = num()
		case "print-env":
			m.PrintEnv = true
		case "more-tools":
			m.MoreTools = true
		case "notify-flood":
			if val != "message" && val != "progress" {
				return m, fmt.Errorf("faultserver: mode %q: want message or progress", f)
			}
			m.NotifyFlood = val
		case "deep-list":
			m.DeepList, err = num()
		default:
			return m, fmt.Errorf("faultserver: unknown mode %q", f)
		}
		if err != nil {
			return m, fmt.Errorf("faultserver: mode %q: %w", f, err)
		}
	}
	return m, nil
}

// Main runs the server on the process's stdin, stdout and stderr with the
// modes in the environment variable env, and exits.
func Main(env string) {
	m, err := ParseModes(os.Getenv(env))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if m.IgnoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	if m.SleepForever {
		for {
			time.Sleep(time.Hour)
		}
	}
	if m.PrintEnv {
		for _, kv := range os.Environ() {
			fmt.Fprintln(os.Stderr, kv)
		}
	}
	if m.ExitFirst != "" {
		if _, err := os.Stat(m.ExitFirst); err != nil {
			_ = os.WriteFile(m.ExitFirst, []byte("started once\n"), 0o600)
			m.Exit = true
		}
	}
	if m.Exit {
		fmt.Fprintln(os.Stderr, "fatal: cannot open the database")
		os.Exit(3)
	}
	if m.StartDelay > 0 {
		time.Sleep(m.StartDelay)
	}
	if m.StderrFlood > 0 {
		go func() {
			for i := range m.StderrFlood {
				fmt.Fprintf(os.Stderr, "flood line %d: the quick brown fox jumps over the lazy dog\n", i)
			}
		}()
	}
	if m.SpawnChild {
		child := exec.Command(os.Args[0], os.Args[1:]...)
		child.Env = append(os.Environ(), env+"=sleep-forever")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "spawn child:", err)
			os.Exit(2)
		}
		fmt.Fprintf(os.Stderr, "child pid %d\n", child.Process.Pid)
		go child.Wait()
	}
	s := &server{m: m, out: os.Stdout, errw: os.Stderr, closeOut: os.Stdout.Close}
	if m.NotifyFlood != "" {
		go func() {
			for i := 0; ; i++ {
				if err := s.write(notification(m.NotifyFlood, i)); err != nil {
					return
				}
			}
		}()
	}
	s.serve(os.Stdin)
	if m.Linger {
		for {
			time.Sleep(time.Hour)
		}
	}
	os.Exit(0)
}

type server struct {
	m        Modes
	mu       sync.Mutex // guards out, extra
	out      io.Writer
	errw     io.Writer
	closeOut func() error
	extra    bool // the change tool was called
	calls    int  // calls of counter
}

type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

func (s *server) serve(in io.Reader) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var msg message
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			fmt.Fprintln(s.errw, "bad message:", err)
			continue
		}
		s.handle(msg)
	}
}

func (s *server) handle(msg message) {
	if len(msg.ID) == 0 { // a notification
		if msg.Method == "notifications/cancelled" {
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			_ = json.Unmarshal(msg.Params, &p)
			fmt.Fprintf(s.errw, "cancelled %s\n", p.RequestID)
		}
		return
	}
	modern := s.m.Proto >= "2026-07-28"
	switch msg.Method {
	case "server/discover":
		switch {
		case s.m.IgnoreDiscover:
		case modern:
			s.result(msg.ID, map[string]any{
				"supportedVersions": []string{s.m.Proto},
				"capabilities":      map[string]any{"tools": map[string]any{"listChanged": true}},
				"instructions":      "fault server",
				"_meta": map[string]any{
					"io.modelcontextprotocol/serverInfo": map[string]any{"name": "faultserver", "version": "1.0.0"},
				},
			})
		default:
			s.error(msg.ID, -32601, "Method not found: server/discover")
		}
	case "initialize":
		switch {
		case s.m.HangInitialize:
		case modern:
			s.error(msg.ID, -32601, "Method not found: initialize (this server speaks "+s.m.Proto+" only)")
		default:
			s.result(msg.ID, map[string]any{
				"protocolVersion": s.m.Proto,
				"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}},
				"serverInfo":      map[string]any{"name": "faultserver", "title": "Fault Server", "version": "1.0.0"},
				"instructions":    "fault server",
			})
			if s.m.CloseStdout {
				s.mu.Lock()
				_ = s.closeOut()
				s.mu.Unlock()
			}
		}
	case "ping":
		s.result(msg.ID, map[string]any{})
	case "subscriptions/listen":
		// Held open: the stream ends when the client cancels.
	case "tools/list":
		s.listTools(msg)
	case "tools/call":
		s.callTool(msg)
	default:
		s.error(msg.ID, -32601, "Method not found: "+msg.Method)
	}
}

func (s *server) toolNames() []string {
	names := []string{"echo", "sleep", "change", "fail"}
	if s.m.Tools < len(names) {
		names = names[:s.m.Tools]
	}
	for i := len(names); i < s.m.Tools; i++ {
		names = append(names, fmt.Sprintf("tool%d", i+1))
	}
	if s.m.MoreTools {
		names = append(names, "crash", "huge", "storm", "counter")
	}
	s.mu.Lock()
	if s.extra {
		names = append(names, "extra")
	}
	s.mu.Unlock()
	return names
}

func (s *server) listTools(msg message) {
	if s.m.DeepList > 0 {
		s.mu.Lock()
		_, _ = io.WriteString(s.out, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"tools":[{"name":"deep","inputSchema":{"type":"object","properties":{"a":`+nested(s.m.DeepList)+`}}}]}}`+"\n")
		s.mu.Unlock()
		return
	}
	if s.m.HugeLine > 0 {
		s.mu.Lock()
		_, _ = io.WriteString(s.out, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"tools":[],"x":"`)
		chunk := strings.Repeat("x", 64<<10)
		for n := 0; n < s.m.HugeLine; n += len(chunk) {
			if _, err := io.WriteString(s.out, chunk); err != nil {
				break
			}
		}
		_, _ = io.WriteString(s.out, "\"}}\n")
		s.mu.Unlock()
		return
	}
	var p struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(msg.Params, &p)
	names := s.toolNames()
	page := s.m.Page
	if page <= 0 {
		page = len(names)
	}
	start := 0
	if p.Cursor != "" {
		if s.m.CursorLoop {
			start = page // every cursor leads to the second page
		} else if n, err := strconv.Atoi(strings.TrimPrefix(p.Cursor, "c")); err == nil {
			start = n
		}
	}
	start = min(start, len(names))
	end := min(start+page, len(names))
	tools := make([]any, 0, end-start)
	for _, n := range names[start:end] {
		t := map[string]any{
			"name":        n,
			"description": "Tool " + n + ".",
			"inputSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"text": map[string]any{"type": "string"}},
				"$defs":      map[string]any{"unused": map[string]any{"type": "null"}},
			},
		}
		if n == "counter" {
			t["annotations"] = map[string]any{"readOnlyHint": true}
		}
		tools = append(tools, t)
	}
	res := map[string]any{"tools": tools}
	switch {
	case s.m.CursorLoop && p.Cursor == "":
		res["nextCursor"] = "A"
	case s.m.CursorLoop && p.Cursor == "A":
		res["nextCursor"] = "B"
	case s.m.CursorLoop:
		res["nextCursor"] = "A"
	case end < len(names):
		res["nextCursor"] = "c" + strconv.Itoa(end)
	}
	s.result(msg.ID, res)
}

func (s *server) callTool(msg message) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(msg.Params, &p)
	switch p.Name {
	case "echo":
		s.result(msg.ID, map[string]any{
			"content":           []any{map[string]any{"type": "text", "text": string(p.Arguments)}},
			"structuredContent": map[string]any{"echo": p.Arguments},
		})
	case "sleep":
		// Never answers.
	case "change":
		s.mu.Lock()
		s.extra = true
		s.mu.Unlock()
		s.result(msg.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "changed"}}})
		s.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
		s.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
	case "crash":
		fmt.Fprintln(s.errw, "crashing on purpose")
		os.Exit(1)
	case "huge":
		var a struct {
			Size int `json:"size"`
		}
		_ = json.Unmarshal(p.Arguments, &a)
		if a.Size <= 0 {
			a.Size = 8 << 20
		}
		s.result(msg.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.Repeat("x", a.Size)}}})
	case "storm":
		var a struct {
			Count int `json:"count"`
		}
		_ = json.Unmarshal(p.Arguments, &a)
		if a.Count <= 0 {
			a.Count = 1000
		}
		for range a.Count {
			s.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
		}
		s.result(msg.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "stormed"}}})
	case "flood":
		var a struct {
			Count int    `json:"count"`
			Kind  string `json:"kind"`
		}
		_ = json.Unmarshal(p.Arguments, &a)
		if a.Count <= 0 {
			a.Count = 10000
		}
		for i := range a.Count {
			s.write(notification(a.Kind, i))
		}
		s.result(msg.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "flooded " + strconv.Itoa(a.Count)}}})
	case "deep":
		var a struct {
			Depth  int  `json:"depth"`
			Notify bool `json:"notify"`
		}
		_ = json.Unmarshal(p.Arguments, &a)
		if a.Depth <= 0 {
			a.Depth = 100000
		}
		bomb := nested(a.Depth)
		s.mu.Lock()
		if a.Notify {
			_, _ = io.WriteString(s.out, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":`+bomb+"}}\n")
		}
		_, _ = io.WriteString(s.out, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"content":[{"type":"text","text":"deep"}],"structuredContent":{"a":`+bomb+"}}}\n")
		s.mu.Unlock()
	case "wrongid":
		s.result(json.RawMessage(`"no-such-request-`+strings.Trim(string(msg.ID), `"`)+`"`), map[string]any{
			"content": []any{map[string]any{"type": "text", "text": "answered the wrong id"}},
		})
	case "late":
		var a struct {
			MS int `json:"ms"`
		}
		_ = json.Unmarshal(p.Arguments, &a)
		if a.MS <= 0 {
			a.MS = 1000
		}
		go func() {
			time.Sleep(time.Duration(a.MS) * time.Millisecond)
			s.result(msg.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "late"}}})
		}()
	case "counter":
		s.mu.Lock()
		s.calls++
		n := s.calls
		s.mu.Unlock()
		s.result(msg.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": strconv.Itoa(n)}}})
	case "fail":
		s.result(msg.ID, map[string]any{
			"content": []any{map[string]any{"type": "text", "text": "it failed"}},
			"isError": true,
		})
	default:
		s.error(msg.ID, -32602, "unknown tool: "+p.Name)
	}
}

func (s *server) result(id json.RawMessage, result any) {
	s.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (s *server) error(id json.RawMessage, code int, msg string) {
	s.write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

func (s *server) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m.Garbage {
		_, _ = io.WriteString(s.out, "this is not JSON\n{\"broken\": \n[1,2,3]\n\n")
	}
	_, err = s.out.Write(append(b, '\n'))
	return err
}

// notification is the i-th notification of a flood of kind ("message",
// the default, or "progress").
func notification(kind string, i int) map[string]any {
	if kind == "progress" {
		return map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": "flood", "progress": i}}
	}
	return map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": "info", "logger": "flood", "data": "flood message " + strconv.Itoa(i)}}
}

// nested returns a JSON value nested depth levels deep: [[[...]]] around
// an object.
func nested(depth int) string {
	return strings.Repeat("[", depth-1) + `{"end":true}` + strings.Repeat("]", depth-1)
}
