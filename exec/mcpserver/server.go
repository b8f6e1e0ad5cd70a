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
	Run(ctx context.Context, filename string, src []byte, timeout time.Duration) (*exec.Result, error)
	// WaitReady waits, within a bound of its own, until no server is
	// still connecting without any tools listed, so that a search sees
	// every server that is going to come up.
	WaitReady(ctx context.Context)
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
const Instructions = `mcpfs gives you every tool of the user's MCP servers as typed Go functions, one package per server.
Discover: search_tools("words") ranks tools; list_dir("servers") shows servers; read_file("servers/<server>/<tool>.go") shows one tool's Go API.
Write: exec runs one Go snippet (package main) that imports "mcpfs/servers/<server>", chains calls and prints only a summary; filter big results in code.
Save a skill: reusable code goes in skills/<name>/ (SKILL.md with name and description, Go files in package <name>), imported as "mcpfs/skills/<name>"; save_skill saves one, and a skill's func Run becomes the tool skill_<name>.`

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
		`"code":{"type":"string","description":"A Go file: package main, importing \"mcpfs/servers/<server>\" packages."},` +
		`"timeout":{"type":"number","description":"Seconds before the run is stopped. Default 30."}` +
		`},"required":["code"]}`
	searchInput = `{"type":"object","properties":{` +
		`"query":{"type":"string","description":"Words describing what you need."},` +
		`"detail":{"type":"string","enum":["names","summary","signature"],"description":"names, one-line summaries (default), or full Go declarations."},` +
		`"limit":{"type":"integer","description":"Most results to return. Default 10 (5 for signature), at most 50."}` +
		`},"required":["query"]}`
	listInput = `{"type":"object","properties":{` +
		`"path":{"type":"string","description":"A folder of the tree, e.g. servers or servers/<server>. Default: the root."}` +
		`}}`
	readInput = `{"type":"object","properties":{` +
		`"path":{"type":"string","description":"A file of the tree, e.g. servers/<server>/doc.go, or a saved output path from exec."},` +
		`"offset":{"type":"integer","description":"First line to return, 0-based. Default 0."},` +
		`"limit":{"type":"integer","description":"Most lines to return. Default: all, up to 64 KiB."}` +
		`},"required":["path"]}`
)

func (s *Server) tools() []server.ServerTool {
	t, f := true, false
	return []server.ServerTool{
		{
			Tool: mcp.Tool{
				Name:            ToolExec,
				Description:     "Run a Go snippet that calls the tools of every server as Go functions; only what it prints comes back. Returns stdout, errors with file:line:col, the tool calls made and the duration.",
				RawInputSchema:  json.RawMessage(execInput),
				RawOutputSchema: json.RawMessage(execOutputSchema),
				Annotations:     mcp.ToolAnnotation{Title: "Run Go code", ReadOnlyHint: &f, OpenWorldHint: &t},
			},
			Handler: s.handleExec,
		},
		{
			Tool: mcp.Tool{
				Name:           ToolSearch,
				Description:    "Search the tools of every server (and saved skills), ranked by relevance.",
				RawInputSchema: json.RawMessage(searchInput),
				Annotations:    mcp.ToolAnnotation{Title: "Search tools", ReadOnlyHint: &t, OpenWorldHint: &f},
			},
			Handler: s.handleSearch,
		},
		{
			Tool: mcp.Tool{
				Name:           ToolListDir,
				Description:    "List a folder of the tree of Go packages: servers/<server>/ holds one file per tool.",
				RawInputSchema: json.RawMessage(listInput),
				Annotations:    mcp.ToolAnnotation{Title: "List a folder", ReadOnlyHint: &t, OpenWorldHint: &f},
			},
			Handler: s.handleListDir,
		},
		{
			Tool: mcp.Tool{
				Name:           ToolReadFile,
				Description:    "Read a file of the tree, such as a server's doc.go or a tool's Go API.",
				RawInputSchema: json.RawMessage(readInput),
				Annotations:    mcp.ToolAnnotation{Title: "Read a file", ReadOnlyHint: &t, OpenWorldHint: &f},
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
