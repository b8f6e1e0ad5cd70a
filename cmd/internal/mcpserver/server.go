package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	iofs "io/fs"
	"log"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/skills"
)

// Engine is what the server needs from the process that owns the upstream
// connections: the current tree and a way to run snippets against it.
type Engine interface {
	// Tree returns the current tree (an mcpfs tree: README.md, mcp/,
	// servers/<server>/, skills/). It returns a new value when the
	// catalog changes and the same value otherwise.
	Tree() iofs.FS
	// Run type-checks a snippet against the current tree and runs it in
	// the sandbox. A snippet that does not pass the check returns a
	// check.ErrorList and a nil Result; a failed run returns the Result
	// and a *exec.RunError. Zero timeout means the engine's default.
	Run(ctx context.Context, filename string, src []byte, timeout time.Duration, hooks RunHooks) (*exec.Result, error)
	// WaitReady waits, within a bound of its own, until no server is
	// still connecting without any tools listed, so that a search sees
	// every server that is going to come up.
	WaitReady(ctx context.Context)
}

// RunHooks tell the caller how a run goes while it runs; nil fields are
// not called.
type RunHooks struct {
	// Stdout receives the snippet's output as it is printed.
	Stdout io.Writer
	// Waiting is called once when the run must wait for a run slot,
	// with the number of runs ahead of it.
	Waiting func(running int)
}

// Defaults for the zero values of Options.
const (
	DefaultMaxOutput  = 8 << 10
	DefaultMaxTimeout = 10 * time.Minute
	DefaultMaxSnippet = 1 << 20
)

// Options configure a Server. The zero value is ready to use.
type Options struct {
	// Logger receives one record per tool call at debug level and
	// problems at warn level. Nil discards.
	Logger *slog.Logger
	// Version is reported in serverInfo. Default "(devel)".
	Version string
	// MaxOutput is how much of a snippet's stdout (and of its stderr) the
	// exec tool returns; the rest is saved to a file under OutputDir and
	// read with read_file. Default DefaultMaxOutput (8 KiB, about 2,000
	// tokens).
	MaxOutput int
	// OutputDir is where long outputs are saved, and the only place
	// outside the tree that read_file reads. It must be the engine's
	// runner's OutputDir, so that outputs the runner saved are readable:
	// a directory of the user's own (see exec.Options.OutputDir). Empty
	// (or unsafe) means long output is cut without being saved.
	OutputDir string
	// MaxTimeout caps the timeout an exec call may ask for. Default
	// DefaultMaxTimeout.
	MaxTimeout time.Duration
	// MaxSnippet bounds the size of a snippet. Default DefaultMaxSnippet.
	MaxSnippet int
	// Sources feed search_tools beyond the tree's own servers/ and
	// skills/ (see Source).
	Sources []Source
	// Skills adds the save_skill tool, which saves in this store, and a
	// tool skill_<name> for every skill with a Run entry point. The
	// engine's trees must show the store's skills (skills/<name>/), so
	// that snippets import them and search_tools finds them. Nil offers
	// neither. A Server with Skills must be closed (Close).
	Skills *skills.Store
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Version == "" {
		o.Version = "(devel)"
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if o.MaxTimeout <= 0 {
		o.MaxTimeout = DefaultMaxTimeout
	}
	if o.MaxSnippet <= 0 {
		o.MaxSnippet = DefaultMaxSnippet
	}
	return o
}

// Server is the MCP server face of an Engine. It is safe for concurrent
// use; one Server may serve stdio and HTTP at once.
type Server struct {
	engine Engine
	opts   Options
	log    *slog.Logger
	mcp    *server.MCPServer

	idxMu sync.Mutex
	idx   *index // of the tree idx.tree

	skillMu    sync.Mutex
	skillTools map[string]int // skill tools registered: tool name → skill version
	stopSkills func()
	closeOnce  sync.Once
}

// Instructions is what the server tells a client about itself in the
// initialize result.
const Instructions = `Every tool of the user's MCP servers is a typed Go function, one package per server: mcpfs/servers/<server>.
Find one with search_tools, or list_dir("servers") and read_file("servers/<server>/<tool>.go").
Then exec one Go program (package main) that imports those packages, chains the calls, filters big results in code and prints only what you need.
Reusable code: save_skill; import it as mcpfs/skills/<name>.`

// New returns the server for e.
func New(e Engine, opts Options) *Server {
	opts = opts.withDefaults()
	s := &Server{engine: e, opts: opts, log: opts.Logger, skillTools: map[string]int{}, stopSkills: func() {}}
	s.mcp = server.NewMCPServer("mcpfs", opts.Version,
		server.WithResourceCompletionProvider(pathCompleter{s}),
		server.WithInstructions(Instructions),
		server.WithToolCapabilities(opts.Skills != nil), // skill tools come and go
		server.WithResourceCapabilities(false, false),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithRecovery(),
		server.WithResourceRecovery(),
		server.WithLogger(opts.Logger),
	)
	s.mcp.AddTools(s.tools()...)
	if opts.Skills != nil {
		s.mcp.AddTools(s.saveSkillTool())
		s.syncSkillTools()
		s.watchSkills()
	}
	s.addResources()
	return s
}

// Close stops following the skill store. The server answers calls after
// Close, but its skill tools no longer change.
func (s *Server) Close() {
	s.closeOnce.Do(func() { s.stopSkills() })
}

// MCPServer returns the underlying mcp-go server, for in-process clients.
func (s *Server) MCPServer() *server.MCPServer { return s.mcp }

// ServeStdio serves one client over in and out (newline-delimited
// JSON-RPC) until in ends or ctx is done. Only protocol messages are
// written to out.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	ss := server.NewStdioServer(s.mcp)
	ss.SetErrorLogger(log.New(slogWriter{s.log}, "", 0))
	return ss.Listen(ctx, in, out)
}

// slogWriter turns the stdio server's log lines into warnings.
type slogWriter struct{ log *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.log.Warn("mcp stdio: " + string(trimNewline(p)))
	return len(p), nil
}

func trimNewline(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}

// The tools' names.
const (
	ToolExec     = "exec"
	ToolSearch   = "search_tools"
	ToolListDir  = "list_dir"
	ToolReadFile = "read_file"
)

// Input schemas, written by hand: exact and small, since every client puts
// them in its context.
var (
	execInput = `{"type":"object","properties":{` +
		`"code":{"type":"string","description":"Go source, package main"},` +
		`"timeout":{"type":"number","description":"seconds, default 30"}` +
		`},"required":["code"]}`
	searchInput = `{"type":"object","properties":{` +
		`"query":{"type":"string","description":"what you need, in words"},` +
		`"detail":{"type":"string","enum":["names","summary","signature"]},` +
		`"limit":{"type":"integer"}` +
		`},"required":["query"]}`
	listInput = `{"type":"object","properties":{` +
		`"path":{"type":"string","description":"default: the root"}` +
		`}}`
	readInput = `{"type":"object","properties":{` +
		`"path":{"type":"string"},` +
		`"offset":{"type":"integer","description":"first line, 0-based"},` +
		`"limit":{"type":"integer","description":"most lines"}` +
		`},"required":["path"]}`
)

func (s *Server) tools() []server.ServerTool {
	t, f := true, false
	return []server.ServerTool{
		{
			Tool: mcp.Tool{
				Name:           ToolExec,
				Description:    "Run a Go program that calls the servers' tools as Go functions. Returns what it prints, errors as file:line:col, and the calls made.",
				RawInputSchema: json.RawMessage(execInput),
				Annotations:    mcp.ToolAnnotation{ReadOnlyHint: &f, OpenWorldHint: &t},
			},
			Handler: s.handleExec,
		},
		{
			Tool: mcp.Tool{
				Name:           ToolSearch,
				Description:    "Rank the tools of every server and the saved skills for a need.",
				RawInputSchema: json.RawMessage(searchInput),
				Annotations:    mcp.ToolAnnotation{ReadOnlyHint: &t, OpenWorldHint: &f},
			},
			Handler: s.handleSearch,
		},
		{
			Tool: mcp.Tool{
				Name:           ToolListDir,
				Description:    "List a folder of the tree: servers/<server>/ has one Go file per tool.",
				RawInputSchema: json.RawMessage(listInput),
				Annotations:    mcp.ToolAnnotation{ReadOnlyHint: &t, OpenWorldHint: &f},
			},
			Handler: s.handleListDir,
		},
		{
			Tool: mcp.Tool{
				Name:           ToolReadFile,
				Description:    "Read a file of the tree (a tool's Go API), or output exec saved.",
				RawInputSchema: json.RawMessage(readInput),
				Annotations:    mcp.ToolAnnotation{ReadOnlyHint: &t, OpenWorldHint: &f},
			},
			Handler: s.handleReadFile,
		},
	}
}

// args decodes a tool call's arguments into fields by name, leniently:
// numbers may come as strings (some clients send every argument as one).
type args map[string]any

func argsOf(req mcp.CallToolRequest) args {
	m, _ := req.Params.Arguments.(map[string]any)
	return args(m)
}

// str returns the string argument name, or "" when absent.
func (a args) str(name string) (string, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("argument %q: want a string, got %s", name, jsonType(v))
	}
	return s, nil
}

// num returns the number argument name, or def when absent.
func (a args) num(name string, def float64) (float64, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return def, nil
	}
	switch v := v.(type) {
	case float64:
		return v, nil
	case json.Number:
		return v.Float64()
	case string:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("argument %q: want a number, got %q", name, v)
		}
		return f, nil
	}
	return 0, fmt.Errorf("argument %q: want a number, got %s", name, jsonType(v))
}

// integer returns the integer argument name, or def when absent.
func (a args) integer(name string, def int) (int, error) {
	f, err := a.num(name, float64(def))
	if err != nil {
		return 0, err
	}
	if f != float64(int(f)) {
		return 0, fmt.Errorf("argument %q: want a whole number, got %v", name, f)
	}
	return int(f), nil
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// toolError is a tool result that reports a problem to the agent.
func toolError(format string, a ...any) *mcp.CallToolResult {
	return mcp.NewToolResultError(fmt.Sprintf(format, a...))
}
