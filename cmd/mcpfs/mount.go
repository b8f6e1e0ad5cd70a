package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/exec"
	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/fs/fuse"
)

func newMountCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "mount DIR",
		Short: "Mount the tree at DIR until interrupted",
		Long: `Mount the tree at DIR, an empty folder, and serve it until Ctrl-C (or
SIGTERM). Everything is read only but skills/ and run/. A folder written
in skills/ (SKILL.md and Go files of package <name>) is checked and saved
as a skill; a refused save shows its problems in skills/<name>/ERRORS.txt.
A Go program written to run/<job>.go runs when the file is closed, and
run/<job>.out holds what mcpfs run would print (reading it waits for the
end; see run/README.md). The mount appears at once; servers
connect in the background, and servers/<server>/doc.go says "connecting"
until each is ready. When a server connects, fails, or changes its tools,
the tree changes in place. State changes are printed on stderr.

As root the mount needs nothing else; other users need fusermount3
(Debian/Ubuntu: apt-get install fuse3). A dead mount left at DIR by a
killed mcpfs is removed first.

The mount is served by the resident engine (see mcpfs engine --help) for
as long as this command runs: mcpfs run and every other command use the
same server connections.`,
		Example: "  mkdir -p /tmp/mcp && mcpfs mount /tmp/mcp\n  ls /tmp/mcp/servers && grep -ril invoice /tmp/mcp/servers",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMount(cmd.Context(), g, args[0])
		},
	}
}

func runMount(ctx context.Context, g *globals, dir string) error {
	dir = g.abs(dir)
	// Fail on a bad mount point before starting any server.
	if err := fuse.Check(dir, fuse.Options{Logger: g.log}); err != nil {
		return err
	}
	// Servers connect in the background; the mount does not wait for
	// them.
	e, release, err := g.useEngine(ctx, engine.Options{})
	if err != nil {
		return err
	}
	defer release()
	m, err := mountEngine(g, e, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(g.stderr, "mcpfs: mounted at %s (%s); Ctrl-C to unmount\n", dir, plural(len(e.Catalog().Servers), "server"))
	select {
	case <-ctx.Done():
		if err := m.Unmount(); err != nil {
			return err
		}
		fmt.Fprintf(g.stderr, "mcpfs: unmounted %s\n", dir)
		return nil
	case <-m.Lost():
		m.Unmount()
		return fmt.Errorf("%s was unmounted by someone else (umount); exiting", dir)
	}
}

// engineMount is the engine's tree mounted at a folder, following every
// new tree, with server state changes printed on stderr.
type engineMount struct {
	m      *fuse.Mounted
	stop   func() // stops following the engine
	served chan struct{}
}

// mountEngine mounts e's tree at dir (already checked with fuse.Check)
// and keeps it current until Unmount.
func mountEngine(g *globals, e *engine.Engine, dir string) (*engineMount, error) {
	t := e.Tree()
	// With a skill store, skills/ is writable; skills saved elsewhere
	// reach the mount through the engine's trees (Update shows the
	// store's current skills).
	// run/ is live: programs written there run on the engine.
	search := func(query string) []byte {
		out := e.Search(e.Tree(), query, 10)
		if !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		return []byte(out)
	}
	m, err := fuse.Mount(dir, t, fuse.Options{Logger: g.log, Debug: g.verbose >= 3, Skills: e.Skills(), Run: jobRunner(g, e), Search: search, AuditFile: e.AuditFile()})
	if err != nil {
		return nil, err
	}
	states := &stateReporter{w: g.stderr, last: map[string]string{}}
	states.report(t.Catalog())
	em := &engineMount{m: m, served: make(chan struct{})}
	em.stop = e.Follow(t, func(t *mcpfs.Tree) {
		m.Update(t)
		states.report(t.Catalog())
	})
	go func() {
		m.Wait()
		close(em.served)
	}()
	return em, nil
}

// jobRunner runs the jobs of the mount's run/ on the engine, each with
// the engine's default time limit, and writes each result as `mcpfs run`
// prints it: stdout, stderr, check problems, then "mcpfs: " and the error.
// Stdout also goes to run/<job>.out as it is printed, as much of it as
// the result keeps, so that the result only adds to what was shown.
func jobRunner(g *globals, e *engine.Engine) fuse.Runner {
	return func(ctx context.Context, job fuse.Job) fuse.JobResult {
		keep := e.Settings().Options.MaxOutput
		if keep <= 0 {
			keep = exec.DefaultMaxOutput
		}
		res, err := e.RunWith(ctx, job.Name, job.Source, engine.RunOptions{
			Progress: func(exec.Call) { job.ToolCall() },
			Face:     engine.FaceMount,
			Stdout:   &headWriter{w: job.Output, left: keep},
		})
		var out bytes.Buffer
		p := *g // mcpfs run's own printing, into out
		p.stdout, p.stderr, p.log = &out, &out, slog.New(slog.DiscardHandler)
		err = p.finishRun(job.Name, res, err)
		if err != nil {
			fmt.Fprintf(&out, "mcpfs: %v\n", err)
		}
		return fuse.JobResult{Output: out.Bytes(), Err: err}
	}
}

// headWriter passes on the first left bytes written to it and drops the
// rest; it never fails. A nil w drops everything.
type headWriter struct {
	w    io.Writer
	left int
}

func (h *headWriter) Write(p []byte) (int, error) {
	if h.w != nil && h.left > 0 {
		n := min(h.left, len(p))
		h.left -= n
		h.w.Write(p[:n])
	}
	return len(p), nil
}

// Lost is closed when the mount ends: after Unmount, or when it was
// unmounted from outside.
func (em *engineMount) Lost() <-chan struct{} { return em.served }

// Unmount stops following the engine and unmounts.
func (em *engineMount) Unmount() error {
	em.stop()
	return em.m.Unmount()
}

// stateReporter prints a line on each server state change. A failed
// server that retries is not reported as connecting again, and the same
// failure is reported once.
type stateReporter struct {
	w    io.Writer
	last map[string]string // the last line printed per server
}

func (r *stateReporter) report(cat *discovery.Catalog) {
	seen := map[string]bool{}
	for _, s := range cat.Servers {
		seen[s.Name] = true
		line := serverState(s)
		last, had := r.last[s.Name]
		if line == last || (had && s.State == discovery.StateConnecting && strings.HasPrefix(last, "failed")) {
			continue
		}
		r.last[s.Name] = line
		fmt.Fprintf(r.w, "mcpfs: servers/%s: %s\n", s.Name, line)
	}
	for name := range r.last {
		if !seen[name] {
			delete(r.last, name)
			fmt.Fprintf(r.w, "mcpfs: servers/%s: removed\n", name)
		}
	}
}

// serverState is a server's state as a phrase: "connecting",
// "ready, 6 tools", "failed: start: exec: not found".
func serverState(s discovery.ServerSnapshot) string {
	switch s.State {
	case discovery.StateReady:
		return "ready, " + plural(len(s.Tools), "tool")
	case discovery.StateFailed:
		if strings.HasPrefix(s.Err, "needs login: ") {
			return oneLine(s.Err)
		}
		return "failed: " + oneLine(s.Err)
	default:
		return strings.TrimSpace(string(s.State))
	}
}
