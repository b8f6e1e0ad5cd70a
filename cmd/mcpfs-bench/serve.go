package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// serveSession is `mcpfs serve` over stdio, started as a subprocess from
// a binary built from ./cmd/mcpfs, with an mcp-go client connected to it.
// It serves the same servers as the benchmark's own engine (the docstore
// through `mcpfs builtin docstore`), from its own processes.
type serveSession struct {
	cmd          *osexec.Cmd
	c            *client.Client
	raw          *lineLog
	stderr       *tailBuffer
	instructions string
	tools        []string // the names in its tools/list
}

// buildMCPFS builds ./cmd/mcpfs into dir and returns the binary's path.
func buildMCPFS(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "mcpfs")
	cmd := osexec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/mcpfs")
	cmd.Dir = moduleRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build ./cmd/mcpfs: %w: %s", err, lastLines(string(out), 5))
	}
	return bin, nil
}

// binary returns the mcpfs binary built from ./cmd/mcpfs into the
// scratch folder, building it on the first call.
func (e *env) binary(ctx context.Context) (string, error) {
	if e.mcpfsBin != "" {
		return e.mcpfsBin, nil
	}
	bin, err := buildMCPFS(ctx, e.dir)
	if err != nil {
		return "", err
	}
	e.mcpfsBin = bin
	return bin, nil
}

// serveConfig writes the config the serve process loads: the same servers
// as the benchmark's engine. server-memory gets a file of its own.
func (e *env) serveConfig(bin string) (string, error) {
	servers := map[string]any{
		"docstore": map[string]any{"command": bin, "args": []string{"builtin", "docstore"}},
	}
	if e.npm {
		bins, why := npmBins()
		if why != "" {
			return "", errors.New(why)
		}
		servers["everything"] = map[string]any{"command": bins["everything"], "args": []string{"stdio"}}
		servers["filesystem"] = map[string]any{"command": bins["filesystem"], "args": []string{e.filesDir}}
		servers["memory"] = map[string]any{"command": bins["memory"], "env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(e.dir, "serve-memory.jsonl")}}
	}
	data, err := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err != nil {
		return "", err
	}
	p := filepath.Join(e.dir, "serve.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return "", fmt.Errorf("write the serve config: %w", err)
	}
	return p, nil
}

// startServe builds mcpfs, starts `mcpfs serve` on stdio and initializes a
// client; its servers have listed their tools when it returns.
func (e *env) startServe(ctx context.Context) (*serveSession, error) {
	bin, err := e.binary(ctx)
	if err != nil {
		return nil, err
	}
	cfg, err := e.serveConfig(bin)
	if err != nil {
		return nil, err
	}
	s := &serveSession{raw: &lineLog{}, stderr: &tailBuffer{max: 16 << 10}}
	cmd := osexec.Command(bin, "serve")
	cmd.Dir = e.dir
	cmd.Env = append(os.Environ(),
		"MCPFS_CONFIG="+cfg,
		"XDG_CACHE_HOME="+filepath.Join(e.dir, "serve-cache"),
		"XDG_DATA_HOME="+filepath.Join(e.dir, "serve-data"),
		// One process, stopped with the session: no resident engine is
		// left behind (the resident engine has figures of its own).
		"MCPFS_NO_ENGINE=1",
	)
	cmd.Stderr = s.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start mcpfs serve: %w", err)
	}
	s.cmd = cmd
	tr := transport.NewIO(io.TeeReader(stdout, s.raw), stdin, io.NopCloser(strings.NewReader("")))
	s.c = client.NewClient(tr)
	fail := func(err error) (*serveSession, error) {
		s.close()
		return nil, fmt.Errorf("mcpfs serve: %w (stderr: %s)", err, lastLines(s.stderr.String(), 5))
	}
	if err := s.c.Start(ctx); err != nil {
		return fail(err)
	}
	ictx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpfs-bench", Version: "1"}
	res, err := s.c.Initialize(ictx, init)
	if err != nil {
		return fail(err)
	}
	s.instructions = res.Instructions
	// Wait until every server has listed its tools: a search sees them all.
	want := 1
	if e.npm {
		want = 4
	}
	for {
		out, err := s.call(ictx, "list_dir", map[string]any{"path": "servers"})
		if err != nil {
			return fail(err)
		}
		if strings.Count(out, "ready") >= want {
			break
		}
		select {
		case <-ictx.Done():
			return fail(fmt.Errorf("its servers are not all ready after 60 s: %s", out))
		case <-time.After(100 * time.Millisecond):
		}
	}
	return s, nil
}

// call calls a tool of the serve process and returns the text the host
// hands the model; a tool error is an error.
func (s *serveSession) call(ctx context.Context, tool string, args map[string]any) (string, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		return "", fmt.Errorf("call %s: %w", tool, err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return "", err
	}
	text := resultText(raw)
	if res.IsError {
		return text, fmt.Errorf("%s returned an error: %s", tool, text)
	}
	return text, nil
}

// toolsList lists the serve process's tools and returns the tools/list
// result exactly as it came over the pipe.
func (s *serveSession) toolsList(ctx context.Context) (string, error) {
	res, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return "", fmt.Errorf("tools/list: %w", err)
	}
	s.tools = s.tools[:0]
	for _, t := range res.Tools {
		s.tools = append(s.tools, t.Name)
	}
	for _, line := range s.raw.lines() {
		var msg struct {
			Result json.RawMessage `json:"result"`
		}
		var r struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && json.Unmarshal(msg.Result, &r) == nil && len(r.Tools) == len(res.Tools) && len(r.Tools) > 0 {
			return string(msg.Result), nil
		}
	}
	return "", errors.New("tools/list: the response was not found among the lines mcpfs serve wrote")
}

// close ends the session: stdin closes, mcpfs serve stops its servers
// and exits; after 10 s its process group is killed.
func (s *serveSession) close() {
	if s.c != nil {
		s.c.Close()
	}
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-time.After(5 * time.Second):
		s.cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// lineLog keeps the complete lines written to it (the JSON-RPC messages
// mcpfs serve sends), up to 4 MiB.
type lineLog struct {
	mu      sync.Mutex
	partial []byte
	all     []string
	size    int
}

func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		if l.size < 4<<20 {
			l.all = append(l.all, string(l.partial[:i]))
			l.size += i
		}
		l.partial = l.partial[i+1:]
	}
	return len(p), nil
}

func (l *lineLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.all...)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// jsonArgs is the JSON the model writes for a tool call's arguments.
func jsonArgs(args map[string]any) string {
	b, _ := json.Marshal(args)
	return string(b)
}

// serveCases measures the serve face: its tools/list against the upfront
// definitions of the same servers, then the discovery and every chaining
// case of r done through it (each against the direct side of the same case
// done the mount way), and, when execRuns > 0, exec round trips. It returns
// the token cases and the speed rows.
func (e *env) serveCases(ctx context.Context, r *results, execRuns int) ([]*tokenCase, []speedRow, error) {
	s, err := e.startServe(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer s.close()
	list, err := s.toolsList(ctx)
	if err != nil {
		return nil, nil, err
	}
	servers := e.sup.Catalog().Servers

	upfront := &tokenCase{
		Workload: "Serve", Name: fmt.Sprintf("tool definitions: serve vs %d servers", len(servers)),
		Task: fmt.Sprintf("what an MCP host puts in the context before the first message: the tool definitions of the %d configured servers, or the %d tools of mcpfs serve (%s) and its instructions",
			len(servers), len(s.tools), strings.Join(s.tools, ", ")),
		Direct: e.newLedger(), MCPFS: e.newLedger(),
	}
	addDefinitions(&upfront.Direct, servers)
	upfront.MCPFS.add("initialize: instructions", s.instructions)
	upfront.MCPFS.add(fmt.Sprintf("tools/list of mcpfs serve (%d tools)", len(s.tools)), list)
	upfront.Notes = append(upfront.Notes, apiFormNote(e.count, servers, upfront.MCPFS.Tokens()))
	cases := []*tokenCase{upfront}

	for _, w := range e.serveWays() {
		mount := r.caseNamed(w.mountCase)
		if mount == nil {
			continue
		}
		c, err := e.serveWay(ctx, s, list, mount, w)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", w.name, err)
		}
		cases = append(cases, c)
	}
	if execRuns <= 0 {
		return cases, nil, nil
	}
	rows, err := s.execLatency(ctx, execRuns)
	if err != nil {
		return nil, nil, err
	}
	return cases, rows, nil
}

// serveStep is one call the agent makes to mcpfs serve, and text its
// result must contain.
type serveStep struct {
	tool string
	args map[string]any
	want string
}

// serveWay is a case of the mount way done through serve: the calls the
// agent makes (the snippet, if any, is the mount case's, sent to exec),
// and a check of the effect, made after them and not counted.
type serveWay struct {
	name      string // the case's name
	mountCase string // the prefix of the mount-way case's name
	steps     []serveStep
	// check, when set, verifies the effect through s; out is exec's
	// result.
	check func(ctx context.Context, s *serveSession, out string) error
	note  string // what check verified
}

// serveWays are the serve-way counterparts of the discovery among the
// live servers, of every chaining case and of the workflow (each runs when
// its mount case ran).
func (e *env) serveWays() []serveWay {
	search := func(q, want string) serveStep {
		return serveStep{"search_tools", map[string]any{"query": q}, want}
	}
	read := func(p, want string) serveStep {
		return serveStep{"read_file", map[string]any{"path": p}, want}
	}
	var ways []serveWay
	if e.npm {
		ways = append(ways, serveWay{
			name: "discover 1 tool: 3 npm servers, via serve", mountCase: "discover 1 tool: 3 npm servers",
			steps: []serveStep{
				search("read text file", "filesystem.ReadTextFile"),
				read("servers/filesystem/read_text_file.go", "func ReadTextFile("),
			},
			note: "The serve process also serves the docstore (4 servers), which the direct side of this case leaves out.",
		})
	} else {
		ways = append(ways, serveWay{
			name: "discover 1 tool: docstore, via serve", mountCase: "discover 1 tool: docstore",
			steps: []serveStep{
				search("query rows", "docstore.QueryRows"),
				read("servers/docstore/query_rows.go", "func QueryRows("),
			},
		})
	}
	if e.npm {
		ways = append(ways, serveWay{
			name: "move a document: fs → memory, via serve", mountCase: "move a document: filesystem → memory",
			steps: []serveStep{
				search("read text file", "filesystem.ReadTextFile"),
				search("create entities in the knowledge graph", "memory.CreateEntities"),
				read("servers/filesystem/read_text_file.go", "func ReadTextFile("),
				read("servers/memory/create_entities.go", "func CreateEntities("),
				{tool: "exec", want: "stored handbook.md in memory"},
			},
			check: e.checkServeMemory,
			note:  "Checked after the run: the serve process's server-memory holds the file's text (its length, through a second exec that is not counted).",
		})
	}
	ways = append(ways,
		serveWay{
			name: "move a document: docstore → docstore, via serve", mountCase: "move a document: docstore → docstore",
			steps: []serveStep{
				search("read document", "docstore.ReadDocument"),
				search("write document", "docstore.WriteDocument"),
				read("servers/docstore/read_document.go", "func ReadDocument("),
				read("servers/docstore/write_document.go", "func WriteDocument("),
				{tool: "exec", want: "copied handbook to handbook-copy"},
			},
			check: e.checkServeCopy,
			note:  "Checked after the run: the serve process's docstore holds handbook-copy with the handbook's text (its length, through a second exec that is not counted).",
		},
		serveWay{
			name: "filter 10,000 rows → 5, via serve", mountCase: "filter 10,000 rows → 5",
			steps: []serveStep{
				search("query rows", "docstore.QueryRows"),
				read("servers/docstore/query_rows.go", "func QueryRows("),
				{tool: "exec", want: "10000 rows"},
			},
			check: func(_ context.Context, _ *serveSession, out string) error {
				if n := strings.Count(out, "\n"); n < 6 {
					return fmt.Errorf("exec printed %d lines, want a header and 5 rows:\n%s", n, out)
				}
				return nil
			},
			note: "Checked: exec printed the header and 5 rows.",
		},
		serveWay{
			name: "incident report: 3 servers, 5 calls, via serve", mountCase: "incident report: 3 servers",
			steps: []serveStep{
				search("query rows", "docstore.QueryRows"),
				search("search documents", "docstore.Search"),
				search("write file", "filesystem.WriteFile"),
				search("create entities in the knowledge graph", "memory.CreateEntities"),
				search("create relations in the knowledge graph", "memory.CreateRelations"),
				read("servers/docstore/query_rows.go", "func QueryRows("),
				read("servers/docstore/search.go", "func Search("),
				read("servers/filesystem/write_file.go", "func WriteFile("),
				read("servers/memory/create_entities.go", "func CreateEntities("),
				read("servers/memory/create_relations.go", "func CreateRelations("),
				{tool: "exec", want: "stored 2 entities, 1 relation"},
			},
			check: e.checkServeIncident,
			note:  "Checked after the run: the serve process's server-memory holds INC-2291 with its 3 observations (through a second exec that is not counted).",
		},
	)
	return ways
}

// serveWay does the way w through the serve session s: every request the
// agent writes and every response it gets is counted, after serve's
// instructions and tools/list. The direct side is the mount case's.
func (e *env) serveWay(ctx context.Context, s *serveSession, list string, mount *tokenCase, w serveWay) (*tokenCase, error) {
	c := &tokenCase{
		Workload: "Serve", Name: w.name,
		Task:   mount.Task + ", as an MCP client of `mcpfs serve` (search_tools, read_file",
		Direct: ledger{c: e.count, Parts: append([]part(nil), mount.Direct.Parts...)},
		MCPFS:  e.newLedger(),
		Target: mount.Target, Met: mount.Met, Of: mount,
	}
	if mount.Snippet != "" {
		c.Task += ", then exec with the same snippet)"
	} else {
		c.Task += ")"
	}
	c.MCPFS.add("initialize: instructions", s.instructions)
	c.MCPFS.add(fmt.Sprintf("tools/list of mcpfs serve (%d tools)", len(s.tools)), list)
	for _, st := range w.steps {
		args := st.args
		if st.tool == "exec" {
			args = map[string]any{"code": mount.Snippet}
		}
		out, err := s.call(ctx, st.tool, args)
		if err != nil {
			return nil, err
		}
		if !strings.Contains(out, st.want) {
			return nil, fmt.Errorf("serve: %s %s: the result lacks %q:\n%s", st.tool, jsonArgs(args), st.want, out)
		}
		label := st.tool
		if p, ok := args["query"].(string); ok {
			label += " " + fmt.Sprintf("%q", p)
		} else if p, ok := args["path"].(string); ok {
			label += " " + p
		}
		c.MCPFS.add(label+" arguments", jsonArgs(args))
		c.MCPFS.add(label+" result", out)
		if st.tool == "exec" {
			c.Snippet, c.Output = mount.Snippet, out
		}
	}
	if w.check != nil {
		if err := w.check(ctx, s, c.Output); err != nil {
			return nil, err
		}
	}
	if c.Snippet != "" {
		c.Notes = append(c.Notes, perSessionNote(c, "initialize: instructions", "tools/list of mcpfs serve"))
	}
	c.Notes = append(c.Notes, "The direct side is the same as in the mount-way case: the same definitions, and the same calls with the same arguments and results.")
	if w.note != "" {
		c.Notes = append(c.Notes, w.note)
	}
	return c, nil
}

// serveFirstLine runs src through serve's exec (not counted) and returns
// the first line it printed.
func serveFirstLine(ctx context.Context, s *serveSession, src string) (string, error) {
	out, err := s.call(ctx, "exec", map[string]any{"code": src})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(strings.SplitN(out, "\n", 2)[0]), nil
}

// checkServeMemory checks that the serve process's server-memory holds
// the handbook the move stored.
func (e *env) checkServeMemory(ctx context.Context, s *serveSession, _ string) error {
	got, err := serveFirstLine(ctx, s, `package main

import (
	"fmt"

	"mcpfs/servers/memory"
)

func main() {
	g, err := memory.OpenNodes(memory.OpenNodesArgs{Names: []string{"operations-handbook"}})
	if err != nil || len(g.Entities) != 1 || len(g.Entities[0].Observations) != 1 {
		fmt.Println("missing", err)
		return
	}
	fmt.Println(len(g.Entities[0].Observations[0]))
}
`)
	if err != nil {
		return fmt.Errorf("check the stored handbook through serve: %w", err)
	}
	text, err := e.handbook(ctx)
	if err != nil {
		return err
	}
	if got != fmt.Sprint(len(text)) {
		return fmt.Errorf("check the stored handbook through serve: server-memory holds %s bytes, want %d", got, len(text))
	}
	return nil
}

// checkServeIncident checks that the serve process's server-memory holds
// the incident the workflow recorded.
func (e *env) checkServeIncident(ctx context.Context, s *serveSession, _ string) error {
	got, err := serveFirstLine(ctx, s, `package main

import (
	"fmt"

	"mcpfs/servers/memory"
)

func main() {
	g, err := memory.OpenNodes(memory.OpenNodesArgs{Names: []string{"INC-2291"}})
	if err != nil || len(g.Entities) != 1 {
		fmt.Println("missing", err)
		return
	}
	fmt.Println(len(g.Entities[0].Observations))
}
`)
	if err != nil {
		return fmt.Errorf("check the incident through serve: %w", err)
	}
	if got != "3" {
		return fmt.Errorf("check the incident through serve: got %q observations of INC-2291, want 3", got)
	}
	return nil
}

// checkServeCopy checks that the serve process's docstore holds
// handbook-copy with the handbook's text.
func (e *env) checkServeCopy(ctx context.Context, s *serveSession, _ string) error {
	got, err := serveFirstLine(ctx, s, `package main

import (
	"fmt"

	"mcpfs/servers/docstore"
)

func main() {
	a, err := docstore.ReadDocument(docstore.ReadDocumentArgs{Id: "handbook"})
	if err != nil {
		fmt.Println("handbook:", err)
		return
	}
	b, err := docstore.ReadDocument(docstore.ReadDocumentArgs{Id: "handbook-copy"})
	if err != nil {
		fmt.Println("copy:", err)
		return
	}
	fmt.Println(a.Text == b.Text, len(b.Text))
}
`)
	if err != nil {
		return fmt.Errorf("check the copy through serve: %w", err)
	}
	text, err := e.handbook(ctx)
	if err != nil {
		return err
	}
	if want := fmt.Sprint("true ", len(text)); got != want {
		return fmt.Errorf("check the copy through serve: got %q, want %q", got, want)
	}
	return nil
}

// perSessionNote is perTaskNote for the serve way: what the serve side
// pays once per session is the parts whose names start with one of once.
func perSessionNote(c *tokenCase, once ...string) string {
	direct, mcpfs := c.Direct.Tokens(), c.MCPFS.Tokens()
	for _, p := range c.Direct.Parts {
		if strings.HasPrefix(p.What, "tools/list of ") {
			direct -= p.Tokens
		}
	}
	for _, p := range c.MCPFS.Parts {
		for _, o := range once {
			if strings.HasPrefix(p.What, o) {
				mcpfs -= p.Tokens
				break
			}
		}
	}
	return fmt.Sprintf("Per task, leaving out what each way pays once per session (the tool definitions; serve's instructions and tools/list): %s → %s tokens, %s fewer.",
		thousands(direct), thousands(mcpfs), percent(1-float64(mcpfs)/float64(direct)))
}

// execLatency times exec round trips of a trivial snippet through the
// client: request written, snippet checked and run by a pooled worker,
// response read.
func (s *serveSession) execLatency(ctx context.Context, n int) ([]speedRow, error) {
	const group = "Serve"
	run := func() (time.Duration, error) {
		start := time.Now()
		out, err := s.call(ctx, "exec", map[string]any{"code": trivialSrc})
		d := time.Since(start)
		if err != nil {
			return 0, err
		}
		if !strings.HasPrefix(out, "hi\n") {
			return 0, fmt.Errorf("serve exec printed %q, want hi", out)
		}
		return d, nil
	}
	for range 3 { // warm the checker and the pool
		if _, err := run(); err != nil {
			return nil, err
		}
	}
	var warm, b2b []time.Duration
	for range n {
		time.Sleep(spacing)
		d, err := run()
		if err != nil {
			return nil, err
		}
		warm = append(warm, d)
	}
	for range n {
		d, err := run()
		if err != nil {
			return nil, err
		}
		b2b = append(b2b, d)
	}
	how := fmt.Sprintf("%d calls of exec over stdio from an mcp-go client to `mcpfs serve` (a subprocess), each %s after the last so a pooled worker is ready", n, spacing)
	return []speedRow{
		{Group: group, What: "exec round trip, trivial snippet, warm pool: p50", Value: micros(quantile(warm, 0.5)), Note: how},
		{Group: group, What: "exec round trip, trivial snippet, warm pool: p99", Value: micros(quantile(warm, 0.99))},
		{Group: group, What: "exec round trip, back to back: p50", Value: micros(quantile(b2b, 0.5)), Note: "each call waits for the worker the pool is still starting"},
		{Group: group, What: "exec round trip, back to back: p99", Value: micros(quantile(b2b, 0.99))},
	}, nil
}
