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
	bin, err := buildMCPFS(ctx, e.dir)
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
// definitions of the same servers, and the filesystem → memory move done
// through it (fileCase is that move done the mount way; its direct side is
// the same). It returns the token cases and the speed rows.
func (e *env) serveCases(ctx context.Context, fileCase *tokenCase, execRuns int) ([]*tokenCase, []speedRow, error) {
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

	if fileCase != nil {
		c, err := e.serveMove(ctx, s, list, fileCase)
		if err != nil {
			return nil, nil, err
		}
		cases = append(cases, c)
	}
	rows, err := s.execLatency(ctx, execRuns)
	if err != nil {
		return nil, nil, err
	}
	return cases, rows, nil
}

// serveMove is the filesystem → memory move the serve way: the agent
// searches for the two tools, reads their files, and sends the snippet to
// exec. Every request it writes and every response it gets is counted.
func (e *env) serveMove(ctx context.Context, s *serveSession, list string, fileCase *tokenCase) (*tokenCase, error) {
	c := &tokenCase{
		Workload: "Serve", Name: "move a document: fs → memory, via serve",
		Task:   fileCase.Task + ", as an MCP client of `mcpfs serve` (search_tools, read_file, then exec with the same snippet)",
		Direct: ledger{c: e.count, Parts: append([]part(nil), fileCase.Direct.Parts...)},
		MCPFS:  e.newLedger(),
	}
	chainingTarget(c)
	c.MCPFS.add("initialize: instructions", s.instructions)
	c.MCPFS.add(fmt.Sprintf("tools/list of mcpfs serve (%d tools)", len(s.tools)), list)
	type step struct {
		tool string
		args map[string]any
		want string // the text the result must contain
	}
	steps := []step{
		{"search_tools", map[string]any{"query": "read text file"}, "filesystem.ReadTextFile"},
		{"search_tools", map[string]any{"query": "create entities in the knowledge graph"}, "memory.CreateEntities"},
		{"read_file", map[string]any{"path": "servers/filesystem/read_text_file.go"}, "func ReadTextFile("},
		{"read_file", map[string]any{"path": "servers/memory/create_entities.go"}, "func CreateEntities("},
		{"exec", map[string]any{"code": fileCase.Snippet}, "stored handbook.md in memory"},
	}
	for _, st := range steps {
		out, err := s.call(ctx, st.tool, st.args)
		if err != nil {
			return nil, err
		}
		if !strings.Contains(out, st.want) {
			return nil, fmt.Errorf("serve: %s %s: the result lacks %q:\n%s", st.tool, jsonArgs(st.args), st.want, out)
		}
		label := st.tool
		if p, ok := st.args["query"].(string); ok {
			label += " " + fmt.Sprintf("%q", p)
		} else if p, ok := st.args["path"].(string); ok {
			label += " " + p
		}
		c.MCPFS.add(label+" arguments", jsonArgs(st.args))
		c.MCPFS.add(label+" result", out)
		if st.tool == "exec" {
			c.Output = out
		}
	}
	// The move must have happened in the serve process's server-memory.
	check := `package main

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
`
	out, err := s.call(ctx, "exec", map[string]any{"code": check})
	if err != nil {
		return nil, fmt.Errorf("check the stored handbook through serve: %w", err)
	}
	text, err := e.handbook(ctx)
	if err != nil {
		return nil, err
	}
	if got := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0]); got != fmt.Sprint(len(text)) {
		return nil, fmt.Errorf("check the stored handbook through serve: server-memory holds %s bytes, want %d", got, len(text))
	}
	c.Snippet = fileCase.Snippet
	c.Notes = append(c.Notes,
		perSessionNote(c, "initialize: instructions", "tools/list of mcpfs serve"),
		"The direct side is the same as in the mount-way case above: the same calls with the same arguments and results. Checked after the run: the serve process's server-memory holds the file's text (its length, through a second exec that is not counted).")
	return c, nil
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
