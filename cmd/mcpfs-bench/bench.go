package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// options configure one benchmark run.
type options struct {
	out        string // folder for report.md and tokens.svg; "" writes nothing
	quick      bool   // fewer iterations, for tests and a first look
	npm        bool   // run the npm reference servers when they are installed
	serve      bool   // also measure `mcpfs serve` (builds ./cmd/mcpfs)
	goBench    bool   // also run the packages' `go test -bench` benchmarks
	resident   bool   // only the resident engine's figures, printed, no report
	peers      bool   // also measure the peers (MCPorter), installing them with npm
	tokensOnly bool   // only the token cases: no speed, no go test benchmarks
	benchTime  string // -benchtime for them
	command    string // how the run was started, for the report

	log      *slog.Logger
	progress io.Writer // one line per step; nil discards
}

// iterations are the loop counts of the speed measurements.
type iterations struct {
	calls, callReps, execRuns, fuseOps, cmdReps, startReps int
	residentRuns, residentCold                             int
}

func (o options) iterations() iterations {
	if o.quick {
		return iterations{calls: 200, callReps: 1, execRuns: 10, fuseOps: 2000, cmdReps: 0, startReps: 1, residentRuns: 20, residentCold: 2}
	}
	return iterations{calls: 2000, callReps: 5, execRuns: 200, fuseOps: 20000, cmdReps: 5, startReps: 3, residentRuns: 100, residentCold: 5}
}

// meta says where and how a run happened.
type meta struct {
	Command, Mode        string
	Date, Commit         string
	Machine, CPU         string
	Cores                int
	GoVersion, Tokenizer string
	Fuse                 string
	Took                 time.Duration
}

// results is everything one run measured.
type results struct {
	Meta       meta
	Servers    []string // "name: serverInfo version, N tools"
	Cases      []*tokenCase
	Speed      []speedRow
	GoBench    []goBenchSection
	GoBenchWhy string   // why there are no go test results
	Pending    []string // "Workflow: ..." or a general line: what was not measured and why
}

// caseNamed returns the first case whose name starts with prefix.
func (r *results) caseNamed(prefix string) *tokenCase {
	for _, c := range r.Cases {
		if strings.HasPrefix(c.Name, prefix) {
			return c
		}
	}
	return nil
}

// mcpfsCases are the cases done with mcpfs (the peers' left out).
func (r *results) mcpfsCases() []*tokenCase {
	var out []*tokenCase
	for _, c := range r.Cases {
		if c.Way == "" {
			out = append(out, c)
		}
	}
	return out
}

// runBench runs the suite and, when opts.out is set, writes report.md and
// tokens.svg there.
func runBench(ctx context.Context, opts options) (*results, error) {
	start := time.Now()
	if opts.log == nil {
		opts.log = slog.New(slog.DiscardHandler)
	}
	last := time.Now()
	say := func(format string, args ...any) {
		if opts.progress != nil {
			fmt.Fprintf(opts.progress, "mcpfs-bench: [%5.1fs] "+format+"\n", append([]any{time.Since(last).Seconds()}, args...)...)
		}
		last = time.Now()
	}
	it := opts.iterations()
	cnt, err := newCounter()
	if err != nil {
		return nil, err
	}
	say("starting the servers")
	e, err := newEnv(ctx, opts, cnt)
	if err != nil {
		return nil, err
	}
	defer e.close()

	r := &results{Meta: machine(opts)}
	if opts.resident {
		say("speed: the resident engine, through the mcpfs binary")
		rows, err := e.residentSpeed(ctx, it.residentRuns, it.residentCold, true)
		if err != nil {
			return nil, err
		}
		r.Speed = rows
		return r, nil
	}
	if e.fuseWhy == "" {
		r.Meta.Fuse = "mounted (as root, direct mount); ls, cat and grep ran on the mount"
	} else {
		r.Meta.Fuse = "not mounted: " + e.fuseWhy + "; ls, cat and grep output produced from the tree"
	}
	for _, s := range e.sup.Catalog().Servers {
		r.Servers = append(r.Servers, fmt.Sprintf("%s: %s %s, %d tools", s.Name, s.ServerName, s.ServerVersion, len(s.Tools)))
	}
	if !e.npm {
		r.Pending = append(r.Pending, "The npm reference servers did not run ("+e.npmWhy+"): the discovery among them, the filesystem → memory move, the workflow and the stdio call figures are missing.")
	}

	// Tokens.
	type step struct {
		name string
		run  func() (*tokenCase, error)
	}
	steps := []step{
		{"discovery among the live servers", e.discoveryLive},
		{"discovery among 100 × 50 synthetic tools", func() (*tokenCase, error) { return e.discoverySynthetic(100, 50) }},
	}
	if e.npm {
		steps = append(steps, step{"chaining: filesystem → memory", func() (*tokenCase, error) { return e.chainFileToMemory(ctx) }})
	}
	steps = append(steps,
		step{"chaining: docstore handbook copy", func() (*tokenCase, error) { return e.chainCopyHandbook(ctx) }},
		step{"chaining: 10,000-row filter", func() (*tokenCase, error) { return e.chainFilterRows(ctx) }},
	)
	if e.npm {
		steps = append(steps, step{"workflow across three servers", func() (*tokenCase, error) { return e.workflow(ctx) }})
	} else {
		r.Pending = append(r.Pending, "Workflow: not measured: it needs server-filesystem and server-memory ("+e.npmWhy+").")
	}
	for _, st := range steps {
		say("tokens: %s", st.name)
		c, err := st.run()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", st.name, err)
		}
		r.Cases = append(r.Cases, c)
	}
	var serveRows []speedRow
	if opts.serve {
		say("serve: tools/list, the discovery and the chaining cases through it, exec round trips")
		runs := it.execRuns
		if opts.tokensOnly {
			runs = 0
		}
		cases, rows, err := e.serveCases(ctx, r, runs)
		if err != nil {
			return nil, fmt.Errorf("mcpfs serve: %w", err)
		}
		r.Cases = append(r.Cases, cases...)
		serveRows = rows
	} else {
		r.Pending = append(r.Pending, "Serve: not measured: left out with -serve=false.")
	}
	if opts.peers {
		say("peers: MCPorter %s on the discovery and on filesystem → memory", mcporterVersion)
		cases, err := e.peerCases(ctx, r, say)
		if err != nil {
			return nil, fmt.Errorf("peers: %w", err)
		}
		r.Cases = append(r.Cases, cases...)
	} else {
		r.Pending = append(r.Pending, "Peers: not measured in this run: -peers measures MCPorter "+mcporterVersion+" on the same tasks (it installs it with npm, as cmd/mcpfs-bench/peers/package.json pins it). docs/BENCHMARKS.md has the last figures.")
	}
	if opts.tokensOnly {
		r.Pending = append(r.Pending, "Speed and the go test benchmarks: not measured: -tokens runs the token cases only.")
		r.GoBenchWhy = "left out: -tokens"
		r.Meta.Mode += ", tokens only"
		r.Meta.Took = time.Since(start)
		if opts.out != "" {
			if err := r.write(opts.out); err != nil {
				return nil, err
			}
			say("wrote %s and %s", filepath.Join(opts.out, "report.md"), filepath.Join(opts.out, "tokens.svg"))
		}
		return r, nil
	}

	// Speed.
	say("speed: tool call overhead")
	rows, err := e.callOverhead(ctx, it.calls, it.callReps)
	if err != nil {
		return nil, err
	}
	r.Speed = append(r.Speed, rows...)
	say("speed: snippet runs")
	if rows, err = e.execLatency(ctx, it.execRuns); err != nil {
		return nil, err
	}
	r.Speed = append(r.Speed, rows...)
	r.Speed = append(r.Speed, serveRows...)
	say("speed: FUSE")
	if rows, err = e.fuseSpeed(ctx, it.fuseOps, it.cmdReps); err != nil {
		return nil, err
	}
	r.Speed = append(r.Speed, rows...)
	say("speed: start-up with cached schemas")
	if rows, err = e.mountReady(ctx, it.startReps); err != nil {
		return nil, err
	}
	r.Speed = append(r.Speed, rows...)
	say("speed: the resident engine, through the mcpfs binary")
	if rows, err = e.residentSpeed(ctx, it.residentRuns, it.residentCold, !opts.quick); err != nil {
		return nil, fmt.Errorf("resident engine: %w", err)
	}
	r.Speed = append(r.Speed, rows...)
	say("speed: memory at 10,000 tools")
	if rows, err = memory10k(e.templates()); err != nil {
		return nil, err
	}
	r.Speed = append(r.Speed, rows...)

	switch {
	case !opts.goBench:
		r.GoBenchWhy = "left out: -gobench=false (quick mode leaves them out unless -gobench is given)"
	default:
		if _, err := osexec.LookPath("go"); err != nil {
			r.GoBenchWhy = "the go command is not on PATH"
			break
		}
		r.GoBench = runGoBenchmarks(ctx, opts.benchTime, func(s string) { say("%s", s) })
	}

	r.Meta.Took = time.Since(start)
	if opts.out != "" {
		if err := r.write(opts.out); err != nil {
			return nil, err
		}
		say("wrote %s and %s", filepath.Join(opts.out, "report.md"), filepath.Join(opts.out, "tokens.svg"))
	}
	return r, nil
}

func (r *results) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(r.markdown()), 0o644); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokens.svg"), []byte(tokenChart(r.mcpfsCases())), 0o644); err != nil {
		return fmt.Errorf("write the chart: %w", err)
	}
	return nil
}

// machine describes this machine, this checkout and this build.
func machine(opts options) meta {
	m := meta{
		Command:   opts.command,
		Mode:      "full",
		Date:      time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		Cores:     runtime.NumCPU(),
		GoVersion: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH,
		Tokenizer: "github.com/tiktoken-go/tokenizer",
		CPU:       "unknown CPU",
	}
	if opts.quick {
		m.Mode = "quick"
	}
	run := func(name string, args ...string) string {
		cmd := osexec.Command(name, args...)
		cmd.Dir = moduleRoot()
		out, err := cmd.Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	if n, err := strconv.Atoi(run("nproc")); err == nil && n > 0 {
		m.Cores = n
	}
	m.Machine = run("uname", "-srm")
	if m.Machine == "" {
		m.Machine = runtime.GOOS + " " + runtime.GOARCH
	}
	m.Commit = run("git", "rev-parse", "HEAD")
	if m.Commit == "" {
		m.Commit = "unknown (not a git checkout)"
	} else if run("git", "status", "--porcelain", "--untracked-files=no") != "" {
		m.Commit += " with uncommitted changes"
	}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/tiktoken-go/tokenizer" {
				m.Tokenizer += " " + d.Version
			}
		}
	}
	return m
}
