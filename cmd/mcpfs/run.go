package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
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
		timeout time.Duration
		mode    string
		asJSON  bool
	)
	cmd := &cobra.Command{
		Use:   "run [--timeout DURATION] [--sandbox auto|strict] FILE|-",
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

The snippet runs on the resident engine (started by the first command
that needs it), which keeps the servers connected: a run waits only for
the servers it imports. --no-engine runs it in this process instead.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var flags engine.Flags
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
			arg := args[0]
			if arg != "-" {
				arg = g.abs(arg)
			}
			filename, src, err := readSnippet(arg, g.stdin)
			if err != nil {
				return err
			}
			return g.run(cmd.Context(), filename, src, flags, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the outcome as JSON: stdout, stderr, exit code, check problems, tool calls with timings")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "stop the snippet after this `duration` (default: the config's mcpfs.limits.timeout, or 30s)")
	cmd.Flags().StringVar(&mode, "sandbox", "auto", "auto: run with the sandbox layers available; strict: refuse unless all are")
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

// run type-checks and runs a snippet on the engine and reports it.
func (g *globals) run(ctx context.Context, filename string, src []byte, flags engine.Flags, asJSON bool) error {
	e, release, err := g.useEngine(ctx, engine.Options{OneShot: true, Flags: flags})
	if err != nil {
		return err
	}
	defer release()
	rs, err := engine.SettingsFor(e.Config(), flags)
	if err != nil {
		return err
	}
	// On a terminal, one status line while the run waits and goes on;
	// the output streams above it as the snippet prints (as JSON it is
	// all in the one object at the end).
	status := g.newRunStatus(asJSON)
	ro := engine.RunOptions{
		Timeout: flags.Timeout,
		Strict:  rs.Options.Strict,
		Waiting: func(running int) {
			status.output(g.stderr).Write(fmt.Appendf(nil, "mcpfs: waiting for a run slot: %d runs are in progress on the engine (the wait counts against --timeout)\n", running))
		},
	}
	if status != nil {
		ro.Connecting = status.serversConnecting
		ro.WrapCall = status.countCalls
	}
	if !asJSON {
		ro.Stdout, ro.Stderr = status.output(g.stdout), status.output(g.stderr)
	}
	res, runErr := e.RunWith(ctx, filename, src, ro)
	status.stop()
	if asJSON {
		return g.runResultJSON(res, runErr)
	}
	return g.finishRunOutput(filename, res, runErr, false)
}

// finishRun prints what a run produced, as mcpfs run shows it, and
// returns the run's error: check problems one positioned line each, the
// servers a snippet imports that are down, or the snippet's output.
func (g *globals) finishRun(filename string, res *exec.Result, runErr error) error {
	return g.finishRunOutput(filename, res, runErr, true)
}

// finishRunOutput is finishRun; withOutput false leaves out the output,
// which was streamed as it came.
func (g *globals) finishRunOutput(filename string, res *exec.Result, runErr error, withOutput bool) error {
	var list check.ErrorList
	if errors.As(runErr, &list) {
		lines := make([]string, len(list))
		for i, e := range list {
			lines[i] = e.Error()
		}
		return withExit(exitCheck, g.checkFailed(filename, lines))
	}
	var ue *engine.UnavailableError
	if errors.As(runErr, &ue) {
		for _, l := range ue.Lines {
			fmt.Fprintln(g.stderr, l)
		}
		return withExit(exitServer, fmt.Errorf("%s imports %s that %s not available: fix the server or the config (mcpfs ls servers)", filename, plural(len(ue.Lines), "server"), isAre(len(ue.Lines))))
	}
	if res != nil {
		g.report(res, withOutput)
	}
	return withExit(runExitCode(runErr), runErr)
}

// runExitCode is the exit code of a run that ended with err.
func runExitCode(err error) int {
	switch {
	case errors.Is(err, exec.ErrTimeout):
		return exitTimeout
	case errors.Is(err, exec.ErrOutOfMemory), errors.Is(err, exec.ErrStackOverflow):
		return exitLimit
	case errors.Is(err, exec.ErrPanic), errors.Is(err, exec.ErrCrashed), errors.Is(err, exec.ErrCompile):
		return exitSnippet
	}
	return exitFailed
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// checkFailed prints the problems of a snippet that did not pass the
// check, one positioned line each, and returns the run's error.
func (g *globals) checkFailed(filename string, problems []string) error {
	for _, p := range problems {
		fmt.Fprintln(g.stderr, p)
	}
	return fmt.Errorf("%s did not pass the check (%s): fix it and run again", filename, plural(len(problems), "problem"))
}

// report logs the sandbox layers and figures of a run and, withOutput,
// copies its output.
func (g *globals) report(res *exec.Result, withOutput bool) {
	for _, l := range res.Layers {
		if l.Active {
			g.log.Info("sandbox layer", "layer", l.Name, "covers", l.Detail)
		} else {
			g.log.Info("sandbox layer missing", "layer", l.Name, "why", l.Detail)
		}
	}
	g.log.Info("run finished", "duration", res.Duration.Round(time.Millisecond), "tool_calls", len(res.Calls))
	if withOutput {
		g.stdout.Write(res.Stdout)
		g.stderr.Write(res.Stderr)
	}
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
