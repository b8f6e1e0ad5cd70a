package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/check"
	"github.com/mcpfs/mcpfs/exec/worker"
)

// init turns this process into a snippet worker when `mcpfs run` (or the
// test binary standing in for mcpfs) started it as one: before main, before
// cobra, before anything else reads flags, files or the environment.
func init() {
	if worker.IsWorker() {
		os.Exit(worker.Main())
	}
}

// maxSnippet bounds the size of a snippet file.
const maxSnippet = 4 << 20

func newRunCmd(g *globals) *cobra.Command {
	var (
		timeout  time.Duration
		mode     string
		noEngine bool
	)
	cmd := &cobra.Command{
		Use:   "run [--timeout DURATION] [--sandbox auto|strict] [--no-engine] FILE|-",
		Short: "Run a Go snippet that calls the tools",
		Long: `Run a Go snippet (a package main file; - reads it from stdin) that imports
mcpfs/servers/<server> packages and calls their tools. The snippet is
type-checked first: problems are printed as file:line:col lines. It then runs
in a sandboxed worker process with no file, network or process access; only
its tool calls reach the servers. Its stdout and stderr are copied to yours.

--sandbox=strict refuses to run unless every sandbox layer is available
(resource limits, network namespace, Landlock, seccomp); the default runs
with what the system offers. -v lists the layers in force.

The config's "mcpfs" section sets the defaults: the standard packages a
snippet may import, its limits (timeout, maxTimeout, memory, output) and the
sandbox mode; --timeout and --sandbox override them, and --timeout may not
exceed limits.maxTimeout. mcpfs doctor shows the settings in force.

When an mcpfs mount or mcpfs serve of the same data dir and config file is
running, the snippet runs there, on its connected servers (-v says so);
otherwise run starts the servers itself. --no-engine always starts them.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var flags runFlags
			switch mode {
			case "auto", "strict":
			default:
				return usagef("--sandbox must be auto or strict, got %q", mode)
			}
			if cmd.Flags().Changed("sandbox") {
				flags.Sandbox = mode
			}
			if cmd.Flags().Changed("timeout") {
				if timeout <= 0 {
					return usagef("--timeout must be positive, got %v", timeout)
				}
				flags.Timeout = timeout
			}
			filename, src, err := readSnippet(args[0], g.stdin)
			if err != nil {
				return err
			}
			// The settings decide whether a running engine may run the
			// snippet; a config that does not load is reported by g.run.
			strict := flags.Sandbox == "strict"
			if cfg, err := discovery.Load(g.config, discovery.LoadOptions{}); err == nil {
				rs, err := settingsFor(cfg, flags)
				if err != nil {
					return err
				}
				strict = rs.Options.Strict
			}
			if !noEngine {
				if used, err := g.runEngine(cmd.Context(), filename, src, flags.Timeout, strict); used {
					return err
				}
			}
			return g.run(cmd.Context(), filename, src, flags)
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "stop the snippet after this `duration` (default: the config's mcpfs.limits.timeout, or 30s)")
	cmd.Flags().StringVar(&mode, "sandbox", "auto", "auto: run with the sandbox layers available; strict: refuse unless all are")
	cmd.Flags().BoolVar(&noEngine, "no-engine", false, "start the servers even when a running mcpfs mount or serve could run the snippet")
	return cmd
}

// readSnippet reads FILE or, for "-", stdin.
func readSnippet(arg string, stdin io.Reader) (string, []byte, error) {
	var (
		r    io.Reader
		name = filepath.Base(arg)
	)
	if arg == "-" {
		r, name = stdin, "snippet.go"
	} else {
		f, err := os.Open(arg)
		if err != nil {
			return "", nil, usagef("read snippet: %w", err)
		}
		defer f.Close()
		r = f
	}
	src, err := io.ReadAll(io.LimitReader(r, maxSnippet+1))
	if err != nil {
		return "", nil, fmt.Errorf("read snippet %s: %w", arg, err)
	}
	if len(src) > maxSnippet {
		return "", nil, usagef("snippet %s is over %d MiB: keep data in tools, not in the snippet", arg, maxSnippet>>20)
	}
	return name, src, nil
}

// runEngine runs the snippet on a running mcpfs mount or serve of the
// same data dir and config, when there is one; used is false, and nothing
// ran, when there is none.
func (g *globals) runEngine(ctx context.Context, filename string, src []byte, timeout time.Duration, strict bool) (used bool, err error) {
	stop := func() {}
	run, used, err := g.runOnEngine(ctx, filename, src, timeout, strict, func() { stop = g.progress(nil) })
	stop()
	if !used || err != nil {
		return used, err
	}
	if len(run.resp.Check) > 0 {
		return true, g.checkFailed(filename, run.resp.Check)
	}
	if run.res != nil {
		g.report(run.res)
	}
	return true, run.err()
}

func (g *globals) run(ctx context.Context, filename string, src []byte, flags runFlags) error {
	s, err := g.connect(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	rs, err := settingsFor(s.cfg, flags)
	if err != nil {
		return err
	}
	tree := s.tree()

	prog, err := check.Check(filename, src, tree, rs.Check())
	if err != nil {
		var list check.ErrorList
		if errors.As(err, &list) {
			lines := make([]string, len(list))
			for i, e := range list {
				lines[i] = e.Error()
			}
			return g.checkFailed(filename, lines)
		}
		return fmt.Errorf("check %s: %w", filename, err)
	}

	opts := rs.Options
	opts.Logger = g.log
	opts.PoolSize = -1 // one run: no worker waits for a second
	opts.OutputDir = outputDir(g.dataDir)
	runner := exec.NewRunner(opts)
	defer runner.Close()

	var calls atomic.Int64
	stop := g.progress(&calls)
	res, runErr := runner.Run(ctx, exec.Request{
		Filename: filename,
		Source:   prog.Source,
		Tree:     tree,
		Packages: prog.TreePackages,
		Files:    prog.Files,
		Call:     s.sup.CallTool,
		Progress: func(exec.Call) { calls.Add(1) },
	})
	stop()
	if res == nil {
		return runErr
	}
	g.report(res)
	return runErr
}

// checkFailed prints the problems of a snippet that did not pass the
// check, one positioned line each, and returns the run's error.
func (g *globals) checkFailed(filename string, problems []string) error {
	for _, p := range problems {
		fmt.Fprintln(g.stderr, p)
	}
	return fmt.Errorf("%s did not pass the check (%s): fix it and run again", filename, plural(len(problems), "problem"))
}

// report logs the sandbox layers and figures of a run and copies its
// output.
func (g *globals) report(res *exec.Result) {
	for _, l := range res.Layers {
		if l.Active {
			g.log.Info("sandbox layer", "layer", l.Name, "covers", l.Detail)
		} else {
			g.log.Info("sandbox layer missing", "layer", l.Name, "why", l.Detail)
		}
	}
	g.log.Info("run finished", "duration", res.Duration.Round(time.Millisecond), "tool_calls", len(res.Calls))
	g.stdout.Write(res.Stdout)
	g.stderr.Write(res.Stderr)
}

// outputDir is where cut output is saved in full: <data dir>/output, or a
// temp dir when no data dir is set.
func outputDir(dataDir string) string {
	if dataDir != "" {
		return filepath.Join(dataDir, "output")
	}
	return ""
}

// progress shows, on a terminal, how long a run has taken and how many
// tool calls it made (when calls is not nil), once it has run for a
// second. It returns the func that stops it and clears the line. Piped
// stderr gets nothing.
func (g *globals) progress(calls *atomic.Int64) (stop func()) {
	f, ok := g.stderr.(*os.File)
	if !ok || !isTerminal(f) {
		return func() {}
	}
	start := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		shown := false
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				if shown {
					fmt.Fprint(f, "\r\033[K")
				}
				return
			case <-t.C:
				if el := time.Since(start); el >= time.Second {
					if calls != nil {
						fmt.Fprintf(f, "\r\033[Krunning %s, %s", el.Round(100*time.Millisecond), plural(int(calls.Load()), "tool call"))
					} else {
						fmt.Fprintf(f, "\r\033[Krunning %s", el.Round(100*time.Millisecond))
					}
					shown = true
				}
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
