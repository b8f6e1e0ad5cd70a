package exec

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/exec/check"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

const trivial = "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi\") }\n"

// BenchmarkRun measures a trivial snippet end to end: warm takes a worker
// the pool has ready (runs spaced out); sustained runs back to back, so
// the pool refills while the next run waits. p50 and p99 are reported.
func BenchmarkRun(b *testing.B) {
	e := newEngine(b)
	for _, mode := range []string{"warm", "sustained", "nopool", "nopool-no-pidns"} {
		b.Run(mode, func(b *testing.B) {
			opts := Options{}
			if strings.HasPrefix(mode, "nopool") {
				opts.PoolSize = -1
			}
			if mode == "nopool-no-pidns" {
				// What the PID and mount namespaces (and the worker's own
				// /proc) add to a worker's start: the same without them.
				old, oldErr := pidnsState.Load(), pidnsErr.Load()
				refusePIDNS("left out by the benchmark")
				b.Cleanup(func() {
					pidnsState.Store(old)
					if oldErr != nil {
						pidnsErr.Store(oldErr)
					}
				})
			}
			r := newRunner(b, opts)
			req := e.request(b, trivial)
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if mode == "warm" {
					b.StopTimer()
					waitPool(r)
					b.StartTimer()
				}
				start := time.Now()
				res, err := r.Run(ctx, req)
				lat = append(lat, time.Since(start))
				if err != nil || string(res.Stdout) != "hi\n" {
					b.Fatalf("run: %v %q", err, res.Stdout)
				}
			}
			b.StopTimer()
			reportPercentiles(b, lat)
		})
	}
}

func waitPool(r *Runner) {
	for {
		r.mu.Lock()
		n := len(r.idle)
		r.mu.Unlock()
		if n >= r.opts.PoolSize {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p := func(q float64) float64 {
		return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(p(0.50), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
}

// BenchmarkCall compares one tool call made from a snippet with the same
// call made directly on the Supervisor (the in-process docstore):
//
//   - direct: the Supervisor's CallTool alone.
//   - snippet: ns/call is a call from a snippet (a run of 1000 calls less a
//     trivial run); added-ns/call is that less a direct call timed in the
//     same iterations, which is what mcpfs adds over a direct client call.
//   - canned: the same snippet with the Runner answering every call with a
//     fixed result at once: the worker, the interpreter and the bridge
//     alone, with no server behind them.
func BenchmarkCall(b *testing.B) {
	e := newEngine(b)
	args := json.RawMessage(`{"text":"one two three"}`)
	direct := func(b *testing.B) {
		if _, err := e.sup.CallTool(context.Background(), "docstore", "word_count", args); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("direct", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			direct(b)
		}
	})
	const perRun = 1000
	src := fmt.Sprintf(`package main

import (
	"fmt"
	"mcpfs/servers/docstore"
)

func main() {
	calls := 0
	for i := 0; i < %d; i++ {
		if _, err := docstore.WordCount(docstore.WordCountArgs{Text: "one two three"}); err != nil {
			fmt.Println(err)
			return
		}
		calls++
	}
	fmt.Println(calls)
}
`, perRun)
	canned, err := e.sup.CallTool(context.Background(), "docstore", "word_count", args)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"snippet", "canned"} {
		b.Run(mode, func(b *testing.B) {
			// No pool: each run starts its own worker, so that a pool
			// refilling after one run does not compete with the next one's
			// calls; the start-up is in both timings and drops out.
			r := newRunner(b, Options{PoolSize: -1})
			req := e.request(b, src)
			if mode == "canned" {
				req.Call = func(context.Context, string, string, json.RawMessage) (json.RawMessage, error) {
					return canned, nil
				}
			}
			base := e.request(b, trivial)
			var with, without, directs time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				res, err := r.Run(context.Background(), req)
				with += time.Since(start)
				if err != nil || strings.TrimSpace(string(res.Stdout)) != fmt.Sprint(perRun) {
					b.Fatalf("run: %v %q", err, res.Stdout)
				}
				start = time.Now()
				if _, err := r.Run(context.Background(), base); err != nil {
					b.Fatal(err)
				}
				without += time.Since(start)
				if mode == "snippet" {
					start = time.Now()
					for j := 0; j < perRun; j++ {
						direct(b)
					}
					directs += time.Since(start)
				}
			}
			n := float64(b.N * perRun)
			b.ReportMetric(float64((with-without).Nanoseconds())/n, "ns/call")
			if mode == "snippet" {
				b.ReportMetric(float64((with-without-directs).Nanoseconds())/n, "added-ns/call")
			}
		})
	}
}

// BenchmarkImport measures what importing a 100-tool server package adds
// to a run (shipping, parsing and compiling its sources in the worker).
func BenchmarkImport(b *testing.B) {
	tools := make([]discovery.Tool, 100)
	for i := range tools {
		name := fmt.Sprintf("tool_%03d", i)
		tools[i] = discovery.Tool{Name: name, Raw: json.RawMessage(fmt.Sprintf(`{"name":%q,"description":"Tool number %d does a thing with an item.","inputSchema":{"type":"object","properties":{"id":{"type":"string","description":"item id"},"limit":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}},"required":["id"]},"outputSchema":{"type":"object","properties":{"ok":{"type":"boolean"},"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"score":{"type":"number"}}}}}}}`, name, i))}
	}
	cat := &discovery.Catalog{Version: 1, Servers: []discovery.ServerSnapshot{{Name: "big", Key: "big", Transport: "builtin", State: discovery.StateReady, Tools: tools}}}
	tree := mcpfs.New(cat, mcpfs.Options{})
	src := "package main\n\nimport (\n\t\"fmt\"\n\t\"mcpfs/servers/big\"\n)\n\nvar _ = big.Tool000\n\nfunc main() { fmt.Println(\"hi\") }\n"
	prog, err := check.Check("snippet.go", []byte(src), tree, check.Options{})
	if err != nil {
		b.Fatal(err)
	}
	baseProg, err := check.Check("snippet.go", []byte(trivial), tree, check.Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := newRunner(b, Options{})
	var with, without time.Duration
	for i := 0; i < b.N; i++ {
		waitPool(r)
		start := time.Now()
		if _, err := r.Run(context.Background(), Request{Source: prog.Source, Tree: tree, Packages: prog.TreePackages}); err != nil {
			b.Fatal(err)
		}
		with += time.Since(start)
		waitPool(r)
		start = time.Now()
		if _, err := r.Run(context.Background(), Request{Source: baseProg.Source, Tree: tree, Packages: baseProg.TreePackages}); err != nil {
			b.Fatal(err)
		}
		without += time.Since(start)
	}
	b.ReportMetric(float64((with-without).Microseconds())/1000/float64(b.N), "import-ms")
}
