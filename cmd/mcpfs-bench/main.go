// Command mcpfs-bench measures what mcpfs saves and what it costs, on real
// servers, and writes a report.
//
// It starts the built-in docstore and the pinned npm reference servers
// (testenv/node_modules; see testenv/package.json), runs each workload the
// direct MCP way and the mcpfs way, counts the tokens of both with the
// o200k_base BPE tokenizer, measures the speed of calls, snippet runs, the
// FUSE mount, start-up and memory, optionally runs the packages' `go test
// -bench` benchmarks, and writes docs/bench/report.md and
// docs/bench/tokens.svg. docs/BENCHMARKS.md explains the method.
//
// Usage, from the repository root:
//
//	go run ./cmd/mcpfs-bench                 # the full suite (a few minutes)
//	go run ./cmd/mcpfs-bench -quick -npm=false -out /tmp/bench
//
// Flags:
//
//	-out DIR        where report.md and tokens.svg go (default docs/bench)
//	-quick          fewer iterations, no go test benchmarks
//	-npm=false      only the built-in docstore, even when npm servers are installed
//	-serve=false    leave out mcpfs serve (its tools/list, the discovery and the
//	                chaining cases through it, exec round trips)
//	-peers          also measure MCPorter on the discovery and on filesystem →
//	                memory (installs it with npm on first use, as
//	                cmd/mcpfs-bench/peers/package.json pins it)
//	-tokens         only the token cases (no speed, no go test benchmarks);
//	                prints the rows, writes a report only with -out
//	-gobench        run the go test benchmarks (default: on, off with -quick)
//	-benchtime D    -benchtime for them (default 1s)
//	-gobench-only   run only the go test benchmarks; print their table and
//	                write it into docs/BENCHMARKS.md (-benchmd FILE, "" for none)
//	-gobench-pkg P  only the go test benchmarks of these packages (comma list,
//	                e.g. ./fs/search); with -gobench-only it prints and writes
//	                no file, whose table holds every package
//	-v              log the servers' stderr and mcpfs's diagnostics
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/mcpfs/mcpfs/exec/worker"
)

// init turns this process into a snippet worker when the Runner started it
// as one (the Runner re-executes this program).
func init() {
	if worker.IsWorker() {
		os.Exit(worker.Main())
	}
}

func main() {
	if code, ran := readerMain(); ran {
		os.Exit(code)
	}
	if code, ran := synthServerMain(os.Args[1:]); ran {
		os.Exit(code)
	}
	os.Exit(mainArgs(os.Args[1:], os.Stdout, os.Stderr))
}

func mainArgs(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("mcpfs-bench", flag.ContinueOnError)
	fl.SetOutput(stderr)
	opts := options{progress: stderr}
	var verbose bool
	fl.StringVar(&opts.out, "out", "docs/bench", "`dir` for report.md and tokens.svg")
	fl.BoolVar(&opts.quick, "quick", false, "fewer iterations and no go test benchmarks")
	fl.BoolVar(&opts.npm, "npm", true, "run the npm reference servers when installed")
	fl.BoolVar(&opts.serve, "serve", true, "measure mcpfs serve (builds ./cmd/mcpfs and runs it over stdio)")
	fl.BoolVar(&opts.peers, "peers", false, "also measure MCPorter "+mcporterVersion+" on the same tasks (installs it with npm into cmd/mcpfs-bench/peers/node_modules)")
	fl.BoolVar(&opts.tokensOnly, "tokens", false, "only the token cases, no speed or go test benchmarks; prints the rows and writes a report only with -out")
	fl.BoolVar(&opts.resident, "resident", false, "measure only the resident engine (through the mcpfs binary), print the rows, write no report")
	fl.BoolVar(&opts.goBench, "gobench", true, "run the packages' go test benchmarks (off with -quick unless given)")
	fl.StringVar(&opts.benchTime, "benchtime", "1s", "-benchtime for the go test benchmarks")
	var goBenchOnly bool
	var benchMD, goBenchPkgs string
	fl.StringVar(&goBenchPkgs, "gobench-pkg", "", "run the go test benchmarks of these `packages` only (comma list, e.g. ./fs/search)")
	fl.BoolVar(&goBenchOnly, "gobench-only", false, "run only the go test benchmarks: print their table and write it into -benchmd")
	fl.StringVar(&benchMD, "benchmd", "docs/BENCHMARKS.md", "`file` whose go test table -gobench-only rewrites (\"\" writes none)")
	fl.BoolVar(&verbose, "v", false, "log diagnostics and the servers' stderr")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "mcpfs-bench: unexpected arguments %q\n", fl.Args())
		return 2
	}
	if goBenchPkgs != "" {
		if err := onlyGoBenchmarks(strings.Split(goBenchPkgs, ",")); err != nil {
			fmt.Fprintf(stderr, "mcpfs-bench: -gobench-pkg: %v\n", err)
			return 2
		}
		benchMD = "" // the file's table is of every package
	}
	if opts.tokensOnly {
		given := false
		fl.Visit(func(f *flag.Flag) { given = given || f.Name == "out" })
		if !given {
			opts.out = "" // a partial run does not replace the report
		}
	}
	if opts.quick {
		given := false
		fl.Visit(func(f *flag.Flag) { given = given || f.Name == "gobench" })
		opts.goBench = opts.goBench && given
	}
	level := slog.LevelError
	if verbose {
		level = slog.LevelInfo
	}
	opts.log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	opts.command = strings.TrimSpace("go run ./cmd/mcpfs-bench " + strings.Join(args, " "))

	// An interrupted bench unmounts what it mounted (see interrupt.go).
	ctx, stop := handleInterrupts(context.Background(), os.Stderr)
	defer stop()
	if goBenchOnly {
		if err := runGoBenchOnly(ctx, opts, benchMD, stdout); err != nil {
			fmt.Fprintf(stderr, "mcpfs-bench: %v\n", err)
			return 1
		}
		return 0
	}
	r, err := runBench(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "mcpfs-bench: %v\n", err)
		return 1
	}
	for _, c := range r.Cases {
		fmt.Fprintf(stdout, "%-10s %-48s direct %10s  %s %7s  saving %s\n", c.Workload, c.Name, thousands(c.Direct.Tokens()), c.way(), thousands(c.MCPFS.Tokens()), percent(c.Saving()))
		if c.Way != "" {
			for _, p := range c.MCPFS.Parts {
				fmt.Fprintf(stdout, "%-10s   %-46s %s\n", "", p.What, thousands(p.Tokens))
			}
		}
	}
	for _, s := range r.Speed {
		line := fmt.Sprintf("%-10s %s: %s", s.Group, s.What, s.Value)
		if s.Baseline != "" {
			line += fmt.Sprintf(" (baseline %s, %s)", s.Baseline, s.Ratio)
		}
		if opts.resident && s.Note != "" {
			line += " — " + s.Note
		}
		fmt.Fprintln(stdout, line)
	}
	return 0
}
