package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/check"
)

// ExecResult is the result of the exec tool; the client gets its text.
type ExecResult struct {
	// OK is true when the snippet passed the check and main returned.
	OK bool `json:"ok"`
	// Stdout is what the snippet printed, at most Options.MaxOutput bytes.
	Stdout string `json:"stdout"`
	// StdoutBytes is the size of the whole stdout.
	StdoutBytes int64 `json:"stdout_bytes"`
	// StdoutFile keeps the whole stdout when Stdout is cut; read it with
	// read_file from line StdoutNextLine on.
	StdoutFile     string `json:"stdout_file,omitempty"`
	StdoutNextLine int    `json:"stdout_next_line,omitempty"`
	// Stderr, StderrBytes and StderrFile are the same for stderr.
	Stderr      string `json:"stderr,omitempty"`
	StderrBytes int64  `json:"stderr_bytes,omitempty"`
	StderrFile  string `json:"stderr_file,omitempty"`
	// Errors are why the snippet failed, positioned when the position is
	// known.
	Errors []ExecError `json:"errors,omitempty"`
	// Calls are the tool calls the snippet made, in the order they ended.
	Calls []ExecCall `json:"calls"`
	// DurationMS is how long the run took, in milliseconds.
	DurationMS float64 `json:"duration_ms"`
}

// ExecError is one problem of a snippet.
type ExecError struct {
	// Kind is "check", "compile", "panic", "timeout", "memory", "stack",
	// "crash", "sandbox" or "error".
	Kind    string `json:"kind"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// ExecCall is one tool call a snippet made.
type ExecCall struct {
	Server     string  `json:"server"`
	Tool       string  `json:"tool"`
	DurationMS float64 `json:"duration_ms"`
	Error      string  `json:"error,omitempty"`
}

func (s *Server) handleExec(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := argsOf(req)
	code, err := a.str("code")
	if err != nil {
		return toolError("exec: %v", err), nil
	}
	if strings.TrimSpace(code) == "" {
		return toolError(`exec: "code" is empty: give a Go file, package main, that imports "mcpfs/servers/<server>" packages (search_tools finds them)`), nil
	}
	if len(code) > s.opts.MaxSnippet {
		return toolError("exec: the snippet is %d bytes, over the limit of %d: keep data in tools, not in the snippet", len(code), s.opts.MaxSnippet), nil
	}
	secs, err := a.num("timeout", 0)
	if err != nil {
		return toolError("exec: %v", err), nil
	}
	timeout := time.Duration(secs * float64(time.Second))
	switch {
	case secs < 0:
		return toolError("exec: timeout must be positive, got %v", secs), nil
	case timeout > s.opts.MaxTimeout:
		return toolError("exec: timeout %v is over the limit of %v: make the snippet do less per run", timeout, s.opts.MaxTimeout), nil
	}

	start := time.Now()
	hooks, flush := progressHooks(ctx, req)
	res, runErr := s.engine.Run(ctx, "snippet.go", []byte(code), timeout, hooks)
	flush()
	if runErr != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("exec: %w", ctx.Err())
	}
	out := s.execResult(res, runErr, time.Since(start))
	s.log.Debug("exec", "ok", out.OK, "tool_calls", len(out.Calls), "duration_ms", out.DurationMS, "stdout_bytes", out.StdoutBytes)
	// Text only: exec declares no output schema, and clients that show
	// both would put the output in the context twice.
	r := mcp.NewToolResultText(out.text())
	r.IsError = !out.OK
	return r, nil
}

// execResult turns what the engine returned into an ExecResult, saving
// long output to files.
func (s *Server) execResult(res *exec.Result, runErr error, took time.Duration) *ExecResult {
	out := &ExecResult{OK: runErr == nil, Calls: []ExecCall{}, DurationMS: ms(took)}
	if runErr != nil {
		out.Errors = execErrors(runErr)
	}
	if res == nil {
		return out
	}
	out.DurationMS = ms(res.Duration)
	for _, c := range res.Calls {
		out.Calls = append(out.Calls, ExecCall{Server: c.Server, Tool: c.Tool, DurationMS: ms(c.Duration), Error: c.Err})
	}
	var next int
	out.Stdout, out.StdoutBytes, out.StdoutFile, next = s.cut("stdout", res.Stdout, res.StdoutFile)
	if out.StdoutFile != "" {
		out.StdoutNextLine = next
	}
	out.Stderr, out.StderrBytes, out.StderrFile, _ = s.cut("stderr", res.Stderr, res.StderrFile)
	return out
}

// cut returns the head of a stream of at most MaxOutput bytes, ending at a
// line end when one is near, the stream's full size, the file that keeps
// it whole when the head is not all of it, and the line the rest starts
// at. file is where the runner saved a stream it cut itself ("" if not).
func (s *Server) cut(name string, data []byte, file string) (head string, size int64, path string, nextLine int) {
	size = int64(len(data))
	if file != "" {
		if fi, err := os.Stat(file); err == nil {
			size = fi.Size()
		}
	}
	if size <= int64(s.opts.MaxOutput) && file == "" {
		return string(data), size, "", 0
	}
	h := data[:min(len(data), s.opts.MaxOutput)]
	if i := bytes.LastIndexByte(h, '\n'); i >= len(h)*3/4 {
		h = h[:i+1]
	}
	if file == "" {
		var err error
		if file, err = s.save(name, data); err != nil {
			s.log.Warn("save long output", "stream", name, "error", err)
			file = ""
		}
	}
	return string(h), size, file, bytes.Count(h, []byte("\n"))
}

// save writes a whole stream to a new file in OutputDir, within the
// directory's bounds (exec.SaveOutput).
func (s *Server) save(name string, data []byte) (string, error) {
	return exec.SaveOutput(s.opts.OutputDir, name, data)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// positioned is "file.go:12:3: message".
var positioned = regexp.MustCompile(`^(\S+\.go):(\d+):(\d+): (?s:(.*))$`)

// execErrors describes a failed check or run.
func execErrors(err error) []ExecError {
	var list check.ErrorList
	if errors.As(err, &list) {
		out := make([]ExecError, 0, len(list))
		for _, e := range list {
			out = append(out, ExecError{Kind: "check", File: e.Pos.Filename, Line: e.Pos.Line, Column: e.Pos.Column, Message: e.Msg, Hint: e.Hint})
		}
		return out
	}
	e := ExecError{Kind: "error", Message: err.Error()}
	var re *exec.RunError
	if errors.As(err, &re) {
		e.Message = re.Error()
		switch {
		case errors.Is(re.Kind, exec.ErrCompile):
			e.Kind = "compile"
		case errors.Is(re.Kind, exec.ErrPanic):
			e.Kind = "panic"
		case errors.Is(re.Kind, exec.ErrTimeout):
			e.Kind = "timeout"
		case errors.Is(re.Kind, exec.ErrOutOfMemory):
			e.Kind = "memory"
		case errors.Is(re.Kind, exec.ErrStackOverflow):
			e.Kind = "stack"
		case errors.Is(re.Kind, exec.ErrCrashed):
			e.Kind = "crash"
		}
		if m := positioned.FindStringSubmatch(re.Msg); m != nil {
			e.File = m[1]
			e.Line, _ = strconv.Atoi(m[2])
			e.Column, _ = strconv.Atoi(m[3])
			e.Message = re.Kind.Error() + ": " + m[4]
		}
	} else if errors.Is(err, exec.ErrSandbox) {
		e.Kind = "sandbox"
	}
	return []ExecError{e}
}

// text is the result as the agent reads it: the output first, then one
// line per problem, then the calls and the time.
func (r *ExecResult) text() string {
	var b strings.Builder
	b.WriteString(r.Stdout)
	if r.Stdout != "" && !strings.HasSuffix(r.Stdout, "\n") {
		b.WriteString("\n")
	}
	if r.StdoutFile != "" {
		fmt.Fprintf(&b, "[stdout cut: %d of %d bytes shown; the rest: read_file path=%q offset=%d]\n", len(r.Stdout), r.StdoutBytes, r.StdoutFile, r.StdoutNextLine)
	} else if r.StdoutBytes > int64(len(r.Stdout)) {
		fmt.Fprintf(&b, "[stdout cut: %d of %d bytes shown; the rest could not be saved]\n", len(r.Stdout), r.StdoutBytes)
	}
	if r.Stderr != "" {
		b.WriteString("[stderr]\n" + r.Stderr)
		if !strings.HasSuffix(r.Stderr, "\n") {
			b.WriteString("\n")
		}
		if r.StderrFile != "" {
			fmt.Fprintf(&b, "[stderr cut: %d of %d bytes shown; all of it: read_file path=%q]\n", len(r.Stderr), r.StderrBytes, r.StderrFile)
		}
	}
	for _, e := range r.Errors {
		b.WriteString("[error] ")
		if e.File != "" {
			fmt.Fprintf(&b, "%s:%d:%d: ", e.File, e.Line, e.Column)
		}
		b.WriteString(e.Message)
		if e.Hint != "" {
			b.WriteString("\n\thint: " + strings.ReplaceAll(e.Hint, "\n", "\n\t"))
		}
		b.WriteString("\n")
	}
	b.WriteString("[")
	if r.OK {
		b.WriteString("ok")
	} else {
		b.WriteString("failed")
	}
	fmt.Fprintf(&b, ", %d tool call", len(r.Calls))
	if len(r.Calls) != 1 {
		b.WriteString("s")
	}
	for i, c := range r.Calls {
		if i == 0 {
			b.WriteString(":")
		} else {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %s.%s", c.Server, c.Tool)
		if c.Error != "" {
			b.WriteString(" (error: " + c.Error + ")")
		}
		if i == 9 && len(r.Calls) > 10 {
			fmt.Fprintf(&b, ", … %d more", len(r.Calls)-10)
			break
		}
	}
	fmt.Fprintf(&b, "; took %s]\n", fmtMS(r.DurationMS))
	return b.String()
}

func fmtMS(v float64) string {
	return (time.Duration(v * float64(time.Millisecond))).Round(time.Millisecond / 10).String()
}
