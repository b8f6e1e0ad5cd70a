package main

import (
	"context"
	"encoding/json"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpfs/mcpfs/cache"
	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/builtin"
	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/check"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// speedRow is one speed figure, with its baseline where one exists.
type speedRow struct {
	Group    string
	What     string
	Value    string
	Baseline string // "" when there is none
	Ratio    string // Value over Baseline, "" when there is no baseline
	Note     string
}

// spacing is the pause before a "warm" run: time for the Runner to start
// the next pooled worker in the background (a worker starts in 15–30 ms).
const spacing = 150 * time.Millisecond

func ratio(v, base float64) string {
	if base <= 0 {
		return ""
	}
	return fmt.Sprintf("%.2f×", v/base)
}

func micros(d time.Duration) string {
	us := float64(d.Nanoseconds()) / 1000
	switch {
	case us < 10:
		return fmt.Sprintf("%.2f µs", us)
	case us < 1000:
		return fmt.Sprintf("%.1f µs", us)
	case us < 10000:
		return fmt.Sprintf("%.2f ms", us/1000)
	default:
		return fmt.Sprintf("%.1f ms", us/1000)
	}
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// quantile returns the q-quantile (nearest rank) of ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(q*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

const trivialSrc = "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi\") }\n"

// timeRun checks and runs src once, after the pool has had time to start
// a worker, and returns how long the run took (check excluded).
func (e *env) timeRun(ctx context.Context, src string, want string) (time.Duration, error) {
	prog, err := check.Check("bench.go", []byte(src), e.tree, check.Options{})
	if err != nil {
		return 0, fmt.Errorf("check: %w", err)
	}
	time.Sleep(spacing)
	start := time.Now()
	res, err := e.runner.Run(ctx, exec.Request{Filename: "bench.go", Source: prog.Source, Tree: e.tree, Packages: prog.TreePackages, Files: prog.Files, Call: e.sup.CallTool})
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("run: %w", err)
	}
	if got := strings.TrimSpace(string(res.Stdout)); got != want {
		return 0, fmt.Errorf("run printed %q, want %q (stderr %q)", got, want, res.Stderr)
	}
	return d, nil
}

// perCallInSnippet is the time one tool call adds to a snippet: a run
// making n calls minus the same run making none, over n; the median of
// reps.
func (e *env) perCallInSnippet(ctx context.Context, pkg, call string, n, reps int) (time.Duration, error) {
	src := func(n int) string {
		return fmt.Sprintf(`package main

import (
	"fmt"

	"mcpfs/servers/%s"
)

func main() {
	calls := 0
	for i := 0; i < %d; i++ {
		if _, err := %s; err != nil {
			fmt.Println(err)
			return
		}
		calls++
	}
	fmt.Println(calls)
}
`, pkg, n, call)
	}
	var per []time.Duration
	for range reps {
		with, err := e.timeRun(ctx, src(n), strconv.Itoa(n))
		if err != nil {
			return 0, err
		}
		// The same snippet making no call: the import of the server's
		// package and the worker's start are not per-call costs.
		without, err := e.timeRun(ctx, src(0), "0")
		if err != nil {
			return 0, err
		}
		per = append(per, (with-without)/time.Duration(n))
	}
	return median(per), nil
}

// perCallClient is the time of one call through an mcp-go client: the
// baseline, what an MCP host does for each tool call.
func perCallClient(ctx context.Context, c *client.Client, tool string, args map[string]any, n int) (time.Duration, error) {
	if err := c.Start(ctx); err != nil {
		return 0, fmt.Errorf("start the client: %w", err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ClientInfo: mcp.Implementation{Name: "mcpfs-bench", Version: "1"}}}); err != nil {
		return 0, fmt.Errorf("initialize: %w", err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	call := func() error {
		res, err := c.CallTool(ctx, req)
		if err == nil && res.IsError {
			err = fmt.Errorf("tool %s failed", tool)
		}
		return err
	}
	for range 50 {
		if err := call(); err != nil {
			return 0, err
		}
	}
	start := time.Now()
	for range n {
		if err := call(); err != nil {
			return 0, err
		}
	}
	return time.Since(start) / time.Duration(n), nil
}

// perCallEngine is one call straight on the Supervisor: mcpfs's engine
// without the snippet and the worker.
func (e *env) perCallEngine(ctx context.Context, srv, tool, args string, n int) (time.Duration, error) {
	for range 50 {
		if _, err := e.sup.CallTool(ctx, srv, tool, json.RawMessage(args)); err != nil {
			return 0, err
		}
	}
	start := time.Now()
	for range n {
		if _, err := e.sup.CallTool(ctx, srv, tool, json.RawMessage(args)); err != nil {
			return 0, err
		}
	}
	return time.Since(start) / time.Duration(n), nil
}

// callOverhead compares a tool call made from a snippet with the same call
// made by an mcp-go client.
func (e *env) callOverhead(ctx context.Context, n, reps int) ([]speedRow, error) {
	const group = "Tool call"
	var rows []speedRow

	direct, err := func() (time.Duration, error) {
		c, err := client.NewInProcessClient(builtin.NewDocstore())
		if err != nil {
			return 0, err
		}
		defer c.Close()
		return perCallClient(ctx, c, "word_count", map[string]any{"text": "one two three"}, n)
	}()
	if err != nil {
		return nil, fmt.Errorf("call docstore through an mcp-go client: %w", err)
	}
	engine, err := e.perCallEngine(ctx, "docstore", "word_count", `{"text":"one two three"}`, n)
	if err != nil {
		return nil, fmt.Errorf("call docstore through the supervisor: %w", err)
	}
	snippet, err := e.perCallInSnippet(ctx, "docstore", `docstore.WordCount(docstore.WordCountArgs{Text: "one two three"})`, n, reps)
	if err != nil {
		return nil, fmt.Errorf("call docstore from a snippet: %w", err)
	}
	rows = append(rows,
		speedRow{Group: group, What: "docstore word_count (in process): from a snippet", Value: micros(snippet), Baseline: micros(direct), Ratio: ratio(float64(snippet), float64(direct)),
			Note: fmt.Sprintf("baseline: mcp-go in-process client; %d calls per run, (run − the same run with 0 calls) / %d, median of %d", n, n, reps)},
		speedRow{Group: group, What: "docstore word_count (in process): Supervisor.CallTool", Value: micros(engine), Baseline: micros(direct), Ratio: ratio(float64(engine), float64(direct)),
			Note: "the engine alone, without the worker and its pipe"},
	)
	if !e.npm {
		rows = append(rows, speedRow{Group: group, What: "server-everything echo (stdio)", Value: "skipped", Note: "npm servers: " + e.npmWhy})
		return rows, nil
	}
	bins, _ := npmBins()
	direct, err = func() (time.Duration, error) {
		tr := transport.NewStdio(bins["everything"], nil, "stdio")
		c := client.NewClient(tr, client.WithDiscoverTimeout(2*time.Second))
		defer c.Close()
		return perCallClient(ctx, c, "echo", map[string]any{"message": "hi"}, n)
	}()
	if err != nil {
		return nil, fmt.Errorf("call server-everything through an mcp-go stdio client: %w", err)
	}
	snippet, err = e.perCallInSnippet(ctx, "everything", `everything.Echo(everything.EchoArgs{Message: "hi"})`, n, reps)
	if err != nil {
		return nil, fmt.Errorf("call server-everything from a snippet: %w", err)
	}
	rows = append(rows, speedRow{Group: group, What: "server-everything echo (stdio): from a snippet", Value: micros(snippet), Baseline: micros(direct), Ratio: ratio(float64(snippet), float64(direct)),
		Note: "baseline: mcp-go stdio client to its own server-everything process"})
	return rows, nil
}

// execLatency is the end-to-end time of a trivial snippet: check and run.
func (e *env) execLatency(ctx context.Context, n int) ([]speedRow, error) {
	const group = "Snippet run"
	measure := func(warm bool) (checkT, total []time.Duration, err error) {
		for range n {
			if warm {
				time.Sleep(spacing)
			}
			start := time.Now()
			prog, err := check.Check("trivial.go", []byte(trivialSrc), e.tree, check.Options{})
			if err != nil {
				return nil, nil, err
			}
			checked := time.Since(start)
			res, err := e.runner.Run(ctx, exec.Request{Filename: "trivial.go", Source: prog.Source, Tree: e.tree, Packages: prog.TreePackages, Files: prog.Files, Call: e.sup.CallTool})
			if err != nil {
				return nil, nil, err
			}
			if string(res.Stdout) != "hi\n" {
				return nil, nil, fmt.Errorf("trivial snippet printed %q", res.Stdout)
			}
			checkT = append(checkT, checked)
			total = append(total, time.Since(start))
		}
		return checkT, total, nil
	}
	checkT, warm, err := measure(true)
	if err != nil {
		return nil, fmt.Errorf("trivial snippet: %w", err)
	}
	_, sustained, err := measure(false)
	if err != nil {
		return nil, fmt.Errorf("trivial snippet: %w", err)
	}
	return []speedRow{
		{Group: group, What: "trivial snippet, check + run, warm pool: p50", Value: micros(quantile(warm, 0.5)), Note: fmt.Sprintf("%d runs, each %v after the last so a pooled worker is ready", n, spacing)},
		{Group: group, What: "trivial snippet, check + run, warm pool: p99", Value: micros(quantile(warm, 0.99))},
		{Group: group, What: "of which the type check: p50", Value: micros(quantile(checkT, 0.5))},
		{Group: group, What: "trivial snippet, back to back: p50", Value: micros(quantile(sustained, 0.5)), Note: "each run waits for the worker the pool is still starting"},
		{Group: group, What: "trivial snippet, back to back: p99", Value: micros(quantile(sustained, 0.99))},
	}, nil
}

// fuseSpeed compares warm stat and read on the mount with the same files
// on disk, and ls -R / grep -r over the 5,000-tool synthetic tree.
func (e *env) fuseSpeed(ctx context.Context, n, reps int) ([]speedRow, error) {
	const group = "FUSE"
	if e.fuseWhy != "" {
		return []speedRow{{Group: group, What: "mount vs disk", Value: "skipped", Note: e.fuseWhy}}, nil
	}
	m, err := e.mount(e.tree)
	if err != nil {
		return nil, err
	}
	defer e.unmount(m)
	disk := filepath.Join(e.dir, "disk")
	if err := exportTree(e.tree, disk); err != nil {
		return nil, err
	}
	file := path.Join("servers", "docstore", "query_rows.go")
	var rows []speedRow
	for _, op := range []struct{ what, op string }{
		{"warm stat(2) of a tool file", "stat"},
		{"warm open + read + close of a tool file", "read"},
	} {
		// From another process, as an agent reads the mount; then from
		// this one, the process serving it, for comparison.
		onMount, err := timeInChild(op.op, filepath.Join(m.Dir(), filepath.FromSlash(file)), n)
		if err != nil {
			return nil, fmt.Errorf("%s on the mount: %w", op.what, err)
		}
		onDisk, err := timeInChild(op.op, filepath.Join(disk, filepath.FromSlash(file)), n)
		if err != nil {
			return nil, fmt.Errorf("%s on disk: %w", op.what, err)
		}
		inMount, err := timeOp(op.op, filepath.Join(m.Dir(), filepath.FromSlash(file)), n)
		if err != nil {
			return nil, fmt.Errorf("%s on the mount, in process: %w", op.what, err)
		}
		inDisk, err := timeOp(op.op, filepath.Join(disk, filepath.FromSlash(file)), n)
		if err != nil {
			return nil, fmt.Errorf("%s on disk, in process: %w", op.what, err)
		}
		rows = append(rows, speedRow{Group: group, What: op.what, Value: micros(onMount), Baseline: micros(onDisk), Ratio: ratio(float64(onMount), float64(onDisk)),
			Note: fmt.Sprintf("from another process (as an agent reads); baseline: the same tree exported to disk; %d iterations after 200 warm-up. From the serving process itself: %s vs %s (%s)",
				n, micros(inMount), micros(inDisk), ratio(float64(inMount), float64(inDisk)))})
	}

	// Whole-tree commands over 5,000 tool files (not in quick mode).
	if reps == 0 {
		return rows, nil
	}
	cat, target, err := synthCatalog(e.templates(), 100, 50)
	if err != nil {
		return nil, err
	}
	big := mcpfs.New(cat, mcpfs.Options{})
	bm, err := e.mount(big)
	if err != nil {
		return nil, err
	}
	defer e.unmount(bm)
	bigDisk := filepath.Join(e.dir, "disk-5000")
	if err := exportTree(big, bigDisk); err != nil {
		return nil, err
	}
	for _, args := range [][]string{{"ls", "-R", "servers"}, {"grep", "-rli", target.Noun, "servers"}} {
		timeCmd := func(dir string) (time.Duration, error) {
			var ds []time.Duration
			for i := range reps + 1 {
				cmd := inDir(dir, args...)
				start := time.Now()
				out, err := cmd.Output()
				if err != nil && len(out) == 0 {
					return 0, fmt.Errorf("%s: %w", strings.Join(args, " "), err)
				}
				if i > 0 { // the first run warms the mount (and generates the tree)
					ds = append(ds, time.Since(start))
				}
			}
			return median(ds), nil
		}
		onMount, err := timeCmd(bm.Dir())
		if err != nil {
			return nil, err
		}
		onDisk, err := timeCmd(bigDisk)
		if err != nil {
			return nil, err
		}
		rows = append(rows, speedRow{Group: group, What: "warm `" + strings.Join(args, " ") + "` over 5,000 tool files", Value: micros(onMount), Baseline: micros(onDisk), Ratio: ratio(float64(onMount), float64(onDisk)),
			Note: fmt.Sprintf("median of %d runs after one warm-up run", reps)})
	}
	return rows, nil
}

// exportTree writes every file of t under dir, as `mcpfs export` does.
func exportTree(t *mcpfs.Tree, dir string) error {
	return iofs.WalkDir(t, ".", func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := t.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}

// mountReady is the time from start to a readable tool file of every
// server: with the schemas cached by an earlier run, and with none.
func (e *env) mountReady(ctx context.Context, reps int) ([]speedRow, error) {
	const group = "Start-up"
	cacheDir := filepath.Join(e.dir, "cache")
	var probes []string
	for _, s := range e.sup.Catalog().Servers {
		f, err := toolFile(e.tree, s.Name, s.Tools[0].Name)
		if err != nil {
			return nil, err
		}
		probes = append(probes, f)
	}
	start := func(withCache bool) (*discovery.Supervisor, error) {
		opts := discovery.Options{Logger: e.log, ConnectTimeout: 60 * time.Second, Builtins: builtins()}
		if withCache {
			c, err := cache.Open(cacheDir, cache.Options{Logger: e.log})
			if err != nil {
				return nil, fmt.Errorf("open the cache: %w", err)
			}
			opts.Cache = c // closed by the Supervisor
		}
		return discovery.Start(ctx, e.cfg, opts), nil
	}
	// Fill the cache: one run that lists every server.
	sup, err := start(true)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	err = sup.Settle(sctx)
	cancel()
	sup.Close()
	if err != nil {
		return nil, fmt.Errorf("fill the cache: %w", err)
	}

	measure := func(withCache bool) (time.Duration, error) {
		t0 := time.Now()
		sup, err := start(withCache)
		if err != nil {
			return 0, err
		}
		// Clean up in order: the watcher, the servers, then the mount.
		var cleanup []func()
		defer func() {
			for i := len(cleanup) - 1; i >= 0; i-- {
				cleanup[i]()
			}
		}()
		root := ""
		if e.fuseWhy == "" {
			updates, stop := sup.Watch()
			m, err := e.mount(mcpfs.New(<-updates, mcpfs.Options{}))
			if err != nil {
				stop()
				return 0, err
			}
			// Keep the mount current, as mcpfs mount does.
			done := make(chan struct{})
			go func() {
				defer close(done)
				for next := range updates {
					m.Update(mcpfs.New(next, mcpfs.Options{}))
				}
			}()
			cleanup = append(cleanup, func() { e.unmount(m) }, func() {
				stop()
				<-done
			})
			root = m.Dir()
		}
		cleanup = append(cleanup, func() { sup.Close() })
		deadline := time.Now().Add(90 * time.Second)
		for {
			ok := true
			for _, p := range probes {
				var err error
				if root != "" {
					_, err = os.Stat(filepath.Join(root, filepath.FromSlash(p)))
				} else {
					_, err = mcpfs.New(sup.Catalog(), mcpfs.Options{}).Stat(p)
				}
				if err != nil {
					ok = false
					break
				}
			}
			if ok {
				return time.Since(t0), nil
			}
			if time.Now().After(deadline) {
				return 0, fmt.Errorf("tool files not readable after 90 s (probes %v)", probes)
			}
			time.Sleep(time.Millisecond)
		}
	}
	var cached, live []time.Duration
	for range reps {
		d, err := measure(true)
		if err != nil {
			return nil, fmt.Errorf("start with cached schemas: %w", err)
		}
		cached = append(cached, d)
		if d, err = measure(false); err != nil {
			return nil, fmt.Errorf("start without a cache: %w", err)
		}
		live = append(live, d)
	}
	how := "FUSE mount, stat(2) on the mount"
	if e.fuseWhy != "" {
		how = "no FUSE (" + e.fuseWhy + "): the tree's Stat"
	}
	c, l := median(cached), median(live)
	return []speedRow{{Group: group, What: fmt.Sprintf("start → a tool file of each of the %d servers readable, schemas cached", len(probes)), Value: micros(c), Baseline: micros(l), Ratio: ratio(float64(c), float64(l)),
		Note: fmt.Sprintf("baseline: no cache, every server started and listed; %s; cache open included; median of %d", how, reps)}}, nil
}

// rssMiB is this process's resident set size.
func rssMiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}

// memory10k generates the tree of 100 servers × 100 tools, reads every
// file, and reports the memory held and the time taken.
func memory10k(templates []json.RawMessage) ([]speedRow, error) {
	const group = "Memory"
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	rss0 := rssMiB()
	start := time.Now()
	cat, _, err := synthCatalog(templates, 100, 100)
	if err != nil {
		return nil, err
	}
	tree := mcpfs.New(cat, mcpfs.Options{})
	files, size := 0, 0
	err = iofs.WalkDir(tree, ".", func(p string, d iofs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := tree.ReadFile(p)
		files++
		size += len(data)
		return err
	})
	if err != nil {
		return nil, err
	}
	took := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	rss1 := rssMiB()
	raw := 0
	for _, s := range tree.Catalog().Servers {
		raw += len(toolsListJSON(s))
	}
	runtime.KeepAlive(tree)
	heap := float64(int64(m1.HeapInuse)-int64(m0.HeapInuse)) / (1 << 20)
	rawMiB := float64(raw) / (1 << 20)
	return []speedRow{
		{Group: group, What: "10,000 tools (100 × 100): generate the tree and read every file", Value: micros(took), Note: fmt.Sprintf("%s files, %.1f MiB of Go", thousands(files), float64(size)/(1<<20))},
		{Group: group, What: "heap held by the catalog and the fully generated tree", Value: fmt.Sprintf("%.1f MiB", heap), Baseline: fmt.Sprintf("%.1f MiB", rawMiB), Ratio: ratio(heap, rawMiB),
			Note: "baseline: the raw tools/list JSON of the 10,000 tools"},
		{Group: group, What: "process RSS growth", Value: fmt.Sprintf("%.1f MiB", rss1-rss0), Note: fmt.Sprintf("RSS %.0f → %.0f MiB (the process also holds the tokenizer and the servers' clients)", rss0, rss1)},
	}, nil
}
