package main

import (
	"encoding/json"
	"errors"
	"path"
	"time"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/check"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// --json output: one JSON document on stdout, for scripts. The field
// names are stable.

// writeJSON prints v as indented JSON on stdout.
func (g *globals) writeJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = g.stdout.Write(append(b, '\n'))
	return err
}

// lsEntry is one entry of `mcpfs ls --json`.
type lsEntry struct {
	Path  string `json:"path"`
	Dir   bool   `json:"dir"`
	Size  int64  `json:"size,omitempty"`
	State string `json:"state,omitempty"` // servers/<s>: the server's state
	Tools *int   `json:"tools,omitempty"`
	Stale bool   `json:"stale,omitempty"`
	Error string `json:"error,omitempty"`
}

// lsJSON lists p (recursively with recursive) as JSON.
func (g *globals) lsJSON(t *mcpfs.Tree, p string, recursive bool) error {
	var out []lsEntry
	add := func(q string, d bool, size int64) {
		e := lsEntry{Path: q, Dir: d}
		if !d {
			e.Size = size
		}
		if dir, name := path.Split(q); dir == mcpfs.ServersDir+"/" && d {
			if s, ok := t.Server(name); ok {
				n := len(s.Tools)
				e.State, e.Tools, e.Stale, e.Error = string(s.State), &n, s.Stale, s.Err
			}
		}
		out = append(out, e)
	}
	info, err := t.Stat(p)
	if err != nil {
		return notFound(p, err)
	}
	if !info.IsDir() {
		add(p, false, info.Size())
		return g.writeJSON(out)
	}
	var walk func(dir string) error
	walk = func(dir string) error {
		entries, err := t.ReadDir(dir)
		if err != nil {
			return notFound(dir, err)
		}
		for _, e := range entries {
			q := path.Join(dir, e.Name())
			var size int64
			if i, err := e.Info(); err == nil {
				size = i.Size()
			}
			add(q, e.IsDir(), size)
			if recursive && e.IsDir() {
				if err := walk(q); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(p); err != nil {
		return err
	}
	if out == nil {
		out = []lsEntry{}
	}
	return g.writeJSON(out)
}

// runJSON is what `mcpfs run --json` prints.
type runJSON struct {
	Stdout     string     `json:"stdout"`
	Stderr     string     `json:"stderr"`
	ExitCode   int        `json:"exit_code"` // mcpfs's exit code (the README's table)
	Error      string     `json:"error,omitempty"`
	Check      []string   `json:"check,omitempty"`        // problems, file:line:col: message
	Servers    []string   `json:"servers_down,omitempty"` // servers/<s>: failed: why
	DurationMS float64    `json:"duration_ms"`
	Calls      []callJSON `json:"calls"`
	StdoutFile string     `json:"stdout_file,omitempty"`
	StderrFile string     `json:"stderr_file,omitempty"`
}

type callJSON struct {
	Server     string  `json:"server"`
	Tool       string  `json:"tool"`
	DurationMS float64 `json:"duration_ms"`
	Error      string  `json:"error,omitempty"`
}

// runResultJSON prints a run's outcome as JSON and returns the error
// whose exit code the command ends with (its text already printed).
func (g *globals) runResultJSON(res *exec.Result, runErr error) error {
	out := runJSON{Calls: []callJSON{}}
	code := exitOK
	var (
		list check.ErrorList
		ue   *engine.UnavailableError
	)
	switch {
	case errors.As(runErr, &list):
		for _, e := range list {
			out.Check = append(out.Check, e.Error())
		}
		code = exitCheck
	case errors.As(runErr, &ue):
		out.Servers = ue.Lines
		code = exitServer
	case runErr != nil:
		code = runExitCode(runErr)
	}
	if runErr != nil {
		out.Error = runErr.Error()
	}
	if res != nil {
		out.Stdout, out.Stderr = string(res.Stdout), string(res.Stderr)
		out.StdoutFile, out.StderrFile = res.StdoutFile, res.StderrFile
		out.DurationMS = ms(res.Duration)
		for _, c := range res.Calls {
			out.Calls = append(out.Calls, callJSON{Server: c.Server, Tool: c.Tool, DurationMS: ms(c.Duration), Error: c.Err})
		}
	}
	out.ExitCode = code
	if err := g.writeJSON(out); err != nil {
		return err
	}
	if code == exitOK {
		return nil
	}
	return &exitError{code, errSilent}
}

// errSilent ends a command whose failure its output already reports.
var errSilent = errors.New("")

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
