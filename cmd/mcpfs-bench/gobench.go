package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpfs/mcpfs/testenv"
)

// goBenchmarks are the `go test -bench` benchmarks of the hot paths the
// report and docs/BENCHMARKS.md include: package, -bench pattern, why.
var goBenchmarks = []struct{ pkg, pattern, what string }{
	{"./fs/gen", "Server100|Root", "generator: a 100-tool server package, the root files"},
	{"./fs", "TreeLookup", "tree look-ups"},
	{"./exec/check", "CheckWarm|CheckCold", "type check of a snippet, warm and cold"},
	{"./exec", "Run|Call|Import", "worker start and run, the call bridge, importing a 100-tool package"},
	{"./discovery", "CallToolInProcess|CallToolStdio|StartCached50|NotificationFlood", "calls through the supervisor; start with 50 cached servers; a call to a server flooding log notifications, and mcpfs's CPU meanwhile"},
	{"./fs/fuse", "Stat|OpenReadClose|MountReady|LsR|GrepR", "the FUSE adapter: stat, open+read, mount, ls -R and grep -r"},
	{"./cache", ".", "the Badger cache"},
	{"./cmd/mcpfs", "ServeExec", "mcpfs serve: exec round trip over stdio and streamable HTTP"},
}

// onlyGoBenchmarks keeps the goBenchmarks of pkgs ("./fs/search").
func onlyGoBenchmarks(pkgs []string) error {
	var kept = goBenchmarks[:0:0]
	var known []string
	for _, b := range goBenchmarks {
		known = append(known, b.pkg)
		for _, p := range pkgs {
			if strings.TrimSpace(p) == b.pkg {
				kept = append(kept, b)
			}
		}
	}
	if len(kept) != len(pkgs) {
		return fmt.Errorf("%q: want packages among %s", strings.Join(pkgs, ","), strings.Join(known, " "))
	}
	goBenchmarks = kept
	return nil
}

// goBenchResult is one line of `go test -bench` output.
type goBenchResult struct {
	Pkg, Name string
	N         string
	Metrics   []string // "123 ns/op", "4.5 p50-ms", ...
}

// goBenchSection is one package's run.
type goBenchSection struct {
	Pkg, Pattern, What string
	Results            []goBenchResult
	Skipped            []string // "BenchmarkX: reason"
	Err                string
	Took               time.Duration
}

// moduleRoot is the repository root (testenv sits just below it).
func moduleRoot() string { return filepath.Dir(testenv.Dir()) }

// runGoBenchmarks runs each package's benchmarks with `go test`.
func runGoBenchmarks(ctx context.Context, benchtime string, progress func(string)) []goBenchSection {
	var out []goBenchSection
	for _, b := range goBenchmarks {
		progress(fmt.Sprintf("go test -run '^$' -bench '%s' -benchtime %s %s", b.pattern, benchtime, b.pkg))
		sec := goBenchSection{Pkg: b.pkg, Pattern: b.pattern, What: b.what}
		start := time.Now()
		cmd := osexec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", b.pattern, "-benchtime", benchtime, "-count", "1", "-timeout", "20m", b.pkg)
		cmd.Dir = moduleRoot()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.Output()
		sec.Took = time.Since(start)
		sec.Results, sec.Skipped = parseGoBench(b.pkg, stdout)
		if err != nil {
			sec.Err = fmt.Sprintf("%v: %s", err, lastLines(string(stdout)+stderr.String(), 5))
		}
		out = append(out, sec)
	}
	return out
}

// parseGoBench reads benchmark lines ("BenchmarkX-2  100  123 ns/op  4 B/op")
// and skip messages from `go test -bench` output.
func parseGoBench(pkg string, out []byte) (res []goBenchResult, skipped []string) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var pending string // the benchmark whose SKIP message may follow
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		switch {
		case len(f) >= 4 && strings.HasPrefix(f[0], "Benchmark"):
			r := goBenchResult{Pkg: pkg, Name: f[0], N: f[1]}
			for i := 2; i+1 < len(f); i += 2 {
				r.Metrics = append(r.Metrics, f[i]+" "+f[i+1])
			}
			res = append(res, r)
		case len(f) >= 2 && f[0] == "---" && f[1] == "SKIP:":
			if len(f) >= 3 {
				pending = f[2]
			}
		case pending != "" && strings.Contains(line, ".go:"):
			msg := strings.TrimSpace(line)
			if i := strings.Index(msg, ": "); i >= 0 {
				msg = msg[i+2:]
			}
			skipped = append(skipped, pending+": "+msg)
			pending = ""
		}
	}
	return res, skipped
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// Markers around the go test table in docs/BENCHMARKS.md; -gobench-only
// rewrites what is between them.
const (
	goBenchStart = "<!-- go test -bench table: written by go run ./cmd/mcpfs-bench -gobench-only -->"
	goBenchEnd   = "<!-- end of the go test -bench table -->"
)

// goBenchTable renders the go test results as one Markdown table, headed
// by where and when they were measured.
func goBenchTable(m meta, secs []goBenchSection) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Machine: %s, %s, `nproc` %d; %s. Date: %s. Commit: %s.\n\n", m.Machine, m.CPU, m.Cores, m.GoVersion, m.Date, m.Commit)
	b.WriteString("| package | benchmark | what | runs | results |\n|---|---|---|---:|---|\n")
	for _, sec := range secs {
		pkg, what := sec.Pkg, mdCell(sec.What)
		row := func(name, runs, result string) {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", pkg, name, what, runs, result)
			pkg, what = "", "" // said once per package
		}
		for _, r := range sec.Results {
			row(strings.TrimPrefix(r.Name, "Benchmark"), r.N, strings.Join(r.Metrics, ", "))
		}
		for _, sk := range sec.Skipped {
			row("", "", "skipped: "+mdCell(sk))
		}
		if sec.Err != "" {
			row("`"+sec.Pattern+"`", "", "failed: "+mdCell(sec.Err))
		}
	}
	if t := recallTable(secs); t != "" {
		b.WriteString("\nIntent search (fs/search), recall in % by query set:\n\n" + t)
	}
	return b.String()
}

// replaceMarked replaces the text between the markers start and end in
// file with text.
func replaceMarked(file, start, end, text string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("update %s: %w", file, err)
	}
	s := string(data)
	i, j := strings.Index(s, start), strings.Index(s, end)
	if i < 0 || j < i {
		return fmt.Errorf("update %s: the markers %q and %q are missing; put them where the table goes", file, start, end)
	}
	out := s[:i+len(start)] + "\n\n" + text + "\n" + s[j:]
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		return fmt.Errorf("update %s: %w", file, err)
	}
	return nil
}

// runGoBenchOnly runs only the go test benchmarks, prints their table and,
// when file is set, writes it into file between the markers.
func runGoBenchOnly(ctx context.Context, opts options, file string, stdout io.Writer) error {
	if _, err := osexec.LookPath("go"); err != nil {
		return errors.New("the go command is not on PATH")
	}
	m := machine(opts)
	secs := runGoBenchmarks(ctx, opts.benchTime, func(s string) {
		if opts.progress != nil {
			fmt.Fprintf(opts.progress, "mcpfs-bench: %s\n", s)
		}
	})
	table := goBenchTable(m, secs)
	fmt.Fprint(stdout, table)
	if file == "" {
		return nil
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(moduleRoot(), file)
	}
	return replaceMarked(file, goBenchStart, goBenchEnd, table)
}
