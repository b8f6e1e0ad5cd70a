package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/exec/internal/sandbox"
)

// TestRunLegitimate runs snippets an agent would write against the built-in
// docstore and compares their output with what direct calls give.
func TestRunLegitimate(t *testing.T) {
	e := newEngine(t)
	r := newRunner(t, Options{})
	ctx := context.Background()

	handbook := directCall[struct {
		Text       string `json:"text"`
		TotalLines int    `json:"total_lines"`
	}](t, e, "read_document", `{"id":"handbook"}`)
	rows := directCall[struct {
		Rows []map[string]string `json:"rows"`
	}](t, e, "query_rows", `{"id":"access-log","limit":10000}`)
	if len(rows.Rows) != 10000 || len(handbook.Text) < 250_000 {
		t.Fatalf("docstore changed: %d rows, handbook %d bytes", len(rows.Rows), len(handbook.Text))
	}
	var slow []map[string]string
	for _, row := range rows.Rows {
		if ms, _ := strconv.Atoi(row["latency_ms"]); row["status"][0] == '5' && ms > 500 {
			slow = append(slow, row)
		}
	}
	sort.SliceStable(slow, func(i, j int) bool {
		a, _ := strconv.Atoi(slow[i]["latency_ms"])
		b, _ := strconv.Atoi(slow[j]["latency_ms"])
		return a > b
	})
	var wantRows strings.Builder
	fmt.Fprintf(&wantRows, "%d slow 5xx\n", len(slow))
	for _, row := range slow[:5] {
		fmt.Fprintf(&wantRows, "%s %s %s\n", row["request_id"], row["region"], row["latency_ms"])
	}

	tests := []struct {
		name      string
		src       string
		want      string
		wantCalls int
	}{
		{
			name: "handbook count",
			src: `package main

import (
	"fmt"
	"strings"

	"mcpfs/servers/docstore"
)

func main() {
	doc, err := docstore.ReadDocument(docstore.ReadDocumentArgs{Id: "handbook"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Count(doc.Text, "\n"), "lines")
}
`,
			want:      fmt.Sprintf("%d lines\n", handbook.TotalLines),
			wantCalls: 1,
		},
		{
			name: "10000 rows filtered",
			src: `package main

import (
	"fmt"
	"slices"
	"strconv"

	"mcpfs/mcp"
	"mcpfs/servers/docstore"
)

func main() {
	out, err := docstore.QueryRows(docstore.QueryRowsArgs{Id: "access-log", Limit: mcp.Int(10000)})
	if err != nil {
		fmt.Println(err)
		return
	}
	var slow []map[string]string
	for _, row := range out.Rows {
		if ms, _ := strconv.Atoi(row["latency_ms"]); row["status"][0] == '5' && ms > 500 {
			slow = append(slow, row)
		}
	}
	slices.SortStableFunc(slow, func(a, b map[string]string) int {
		x, _ := strconv.Atoi(a["latency_ms"])
		y, _ := strconv.Atoi(b["latency_ms"])
		return y - x
	})
	fmt.Println(len(slow), "slow 5xx")
	for _, row := range slow[:5] {
		fmt.Println(row["request_id"], row["region"], row["latency_ms"])
	}
}
`,
			want:      wantRows.String(),
			wantCalls: 1,
		},
		{
			name: "concurrent calls",
			src: `package main

import (
	"fmt"
	"sync"

	"mcpfs/mcp"
	"mcpfs/servers/docstore"
)

func main() {
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			doc, err := docstore.ReadDocument(docstore.ReadDocumentArgs{Id: "handbook", Offset: mcp.Int(i * 100), Limit: mcp.Int(100)})
			if err != nil {
				fmt.Println(err)
				return
			}
			mu.Lock()
			total += doc.Lines
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Println(total, "lines in 8 pages")
}
`,
			want:      "800 lines in 8 pages\n",
			wantCalls: 8,
		},
		{
			name: "tool error",
			src: `package main

import (
	"fmt"

	"mcpfs/mcp"
	"mcpfs/servers/docstore"
)

func main() {
	_, err := docstore.ReadDocument(docstore.ReadDocumentArgs{Id: "no-such-doc"})
	te, ok := mcp.AsToolError(err)
	fmt.Println(ok, te != nil && te.Tool == "read_document")
}
`,
			want:      "true true\n",
			wantCalls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.Run(ctx, e.request(t, tt.src))
			if err != nil {
				t.Fatalf("run: %v\nstderr: %s", err, res.Stderr)
			}
			if got := string(res.Stdout); got != tt.want {
				t.Errorf("stdout:\n%s\nwant:\n%s", got, tt.want)
			}
			if len(res.Calls) != tt.wantCalls {
				t.Errorf("got %d calls, want %d: %+v", len(res.Calls), tt.wantCalls, res.Calls)
			}
			for _, c := range res.Calls {
				if c.Server != "docstore" || c.Err != "" {
					t.Errorf("call %+v: want a docstore call without error", c)
				}
			}
		})
	}
}

func directCall[T any](t *testing.T, e *engine, tool, args string) T {
	t.Helper()
	raw, err := e.sup.CallTool(context.Background(), "docstore", tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	var res struct {
		Structured T `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("decode %s: %v", tool, err)
	}
	return res.Structured
}

// TestRunErrors covers failures a legitimate snippet can run into: each
// is reported as its kind, with what the snippet printed before.
func TestRunErrors(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory does not fit the worker's memory limit")
	}
	e := newEngine(t)
	r := newRunner(t, Options{Timeout: 3 * 1e9, MaxOutput: 64 << 10, Memory: 256 << 20})
	tests := []struct {
		name    string
		body    string
		imports string
		want    error
		wantMsg string        // in the error
		wantOut string        // in stdout
		timeout time.Duration // the run's own; zero: the Runner's 3 s
	}{
		{name: "panic in main", body: `fmt.Println("before"); var m map[string]int; m["x"] = 1`, want: ErrPanic, wantMsg: "nil map", wantOut: "before"},
		{name: "panicking goroutine", body: `done := make(chan bool); go func() { panic("boom in goroutine") }(); <-done`, want: ErrPanic, wantMsg: "boom in goroutine"},
		{name: "infinite loop", body: `fmt.Println("spinning"); for {}`, want: ErrTimeout, wantMsg: "stopped after 1s", wantOut: "spinning", timeout: time.Second},
		{name: "blocked forever", body: `select {}`, want: ErrTimeout, wantMsg: "stopped after 1s", timeout: time.Second},
		{name: "deep recursion", body: `var f func(int) int; f = func(n int) int { return f(n+1) + 1 }; fmt.Println(f(0))`, want: ErrStackOverflow},
		{name: "memory bomb", body: `fmt.Println("allocating"); var keep []string; for { keep = append(keep, strings.Repeat("x", 16<<20)) }`, imports: `"strings"`, want: ErrOutOfMemory},
		{name: "output flood", body: `line := strings.Repeat("x", 1023); for i := 0; i < 4096; i++ { fmt.Println(line) }`, imports: `"strings"`, wantOut: "[mcpfs: stdout truncated: 65536 of 4194304 bytes shown; the full output is in "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imports := `"fmt"`
			if tt.imports != "" {
				imports += "\n\t" + tt.imports
			}
			src := "package main\n\nimport (\n\t" + imports + "\n)\n\nvar _ = fmt.Sprint\n\nfunc main() {\n\t" + tt.body + "\n}\n"
			req := e.request(t, src)
			req.Timeout = tt.timeout
			res, err := r.Run(context.Background(), req)
			if res == nil {
				t.Fatalf("no result: %v", err)
			}
			if !errors.Is(err, tt.want) && !(tt.want == nil && err == nil) {
				t.Fatalf("got error %v, want %v\nstderr: %.2000s", err, tt.want, res.Stderr)
			}
			if tt.wantMsg != "" && !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tt.wantMsg)
			}
			if !strings.Contains(string(res.Stdout), tt.wantOut) {
				t.Errorf("stdout %.300q does not contain %q", res.Stdout, tt.wantOut)
			}
			t.Logf("%v (in %v)", err, res.Duration)
		})
	}
	// After all of that, the runner still serves a normal run.
	res, err := r.Run(context.Background(), e.request(t, "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"still here\") }\n"))
	if err != nil {
		t.Fatalf("run after failures: %v", err)
	}
	if string(res.Stdout) != "still here\n" {
		t.Fatalf("run after failures printed %q", res.Stdout)
	}
	if missing := sandbox.Missing(res.Layers); missing != "" {
		t.Logf("sandbox layers missing here: %s", missing)
	}
}

// TestTimeoutCancelsCalls: a run that times out while a tool call is in
// flight cancels that call's context, and Run returns only after it ended.
func TestTimeoutCancelsCalls(t *testing.T) {
	e := newEngine(t)
	r := newRunner(t, Options{Timeout: 500 * time.Millisecond})
	req := e.request(t, "package main\n\nimport (\n\t\"fmt\"\n\t\"mcpfs/servers/docstore\"\n)\n\nfunc main() {\n\t_, err := docstore.ListDocuments(docstore.ListDocumentsArgs{})\n\tfmt.Println(err)\n}\n")
	ended := make(chan error, 1)
	req.Call = func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	}
	res, err := r.Run(context.Background(), req)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("got %v, want ErrTimeout", err)
	}
	select {
	case cerr := <-ended:
		if !errors.Is(cerr, context.DeadlineExceeded) && !errors.Is(cerr, context.Canceled) {
			t.Errorf("call ended with %v, want a cancelled context", cerr)
		}
	default:
		t.Error("Run returned while the call was still in flight")
	}
	if len(res.Calls) != 1 || res.Calls[0].Err == "" {
		t.Errorf("calls %+v: want one failed call", res.Calls)
	}
}

// TestCallsFromSnippet covers the call bridge from the snippet's side: a
// call's own context, arguments a snippet hands to the Transport itself,
// and result bytes passed through untouched.
func TestCallsFromSnippet(t *testing.T) {
	e := newEngine(t)
	r := newRunner(t, Options{Timeout: 20 * time.Second})
	tests := []struct {
		name    string
		body    string
		result  string // what the tool answers; empty blocks until the call's context ends
		want    string
		wantErr string // of the one call, as the Runner recorded it
	}{
		{
			name: "call context ends first",
			body: `ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := mcp.CallContext(ctx, "docstore", "list_documents", nil, nil)
	fmt.Println(errors.Is(err, context.DeadlineExceeded), err)`,
			want:    "true call docstore.list_documents: context deadline exceeded\n",
			wantErr: "context canceled",
		},
		{
			name: "arguments that are not JSON",
			body: `_, err := mcp.Transport(context.Background(), "docstore", "word_count", json.RawMessage("{"))
	fmt.Println(err)`,
			result:  `{"content":[]}`,
			want:    "the arguments of docstore.word_count are not valid JSON\n",
			wantErr: "the arguments of docstore.word_count are not valid JSON",
		},
		{
			// Explicit instantiations of the compiled runtime's generic
			// function, as a value and called.
			name:   "mcp.Ptr with its type argument",
			body:   "p := mcp.Ptr[int]\n\tx := p(3)\n\t*x++\n\tvar q func(string) *string = mcp.Ptr[string]\n\tfmt.Println(*x, *mcp.Ptr[float64](2)/4, *p(4), *q(\"s\"), context.Background() != nil)",
			result: `{"content":[]}`,
			want:   "4 0.5 4 s true\n",
		},
		{
			name: "result bytes as sent",
			body: `raw, err := mcp.Transport(context.Background(), "docstore", "word_count", json.RawMessage(` + "`{\"text\": \"a b\"}`" + `))
	fmt.Println(string(raw), err)
	var res mcp.Result
	err = mcp.Call("docstore", "word_count", map[string]string{"text": "x"}, &res)
	fmt.Println(res.Text(), err)`,
			// JSON escapes, spacing and HTML characters arrive as the tool wrote them.
			result: `{"content": [{"type":"text","text":"\u00e9 é <&> \u2028"}]}`,
			want:   `{"content": [{"type":"text","text":"\u00e9 é <&> \u2028"}]} <nil>` + "\né é <&> \u2028 <nil>\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "package main\n\nimport (\n\t\"context\"\n\t\"encoding/json\"\n\t\"errors\"\n\t\"fmt\"\n\t\"time\"\n\n\t\"mcpfs/mcp\"\n)\n\n" +
				"var _, _, _ = json.Valid, errors.Is, time.Second\n\nfunc main() {\n\t" + tt.body + "\n}\n"
			req := e.request(t, src)
			req.Call = func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
				if tt.result == "" {
					<-ctx.Done()
					return nil, ctx.Err()
				}
				return json.RawMessage(tt.result), nil
			}
			res, err := r.Run(context.Background(), req)
			if err != nil {
				t.Fatalf("run: %v\nstderr: %s", err, res.Stderr)
			}
			if got := string(res.Stdout); got != tt.want {
				t.Errorf("stdout:\n%q\nwant:\n%q", got, tt.want)
			}
			if tt.wantErr != "" && (len(res.Calls) != 1 || !strings.Contains(res.Calls[0].Err, tt.wantErr)) {
				t.Errorf("calls %+v: want one that failed with %q", res.Calls, tt.wantErr)
			}
		})
	}
}

// TestStrict: a strict runner refuses to run when a layer is missing.
func TestStrict(t *testing.T) {
	e := newEngine(t)
	old := netnsState.Load()
	netnsState.Store(2) // as if network namespaces were unavailable
	t.Cleanup(func() { netnsState.Store(old) })
	r := newRunner(t, Options{Strict: true, PoolSize: -1})
	_, err := r.Run(context.Background(), e.request(t, trivial))
	if !errors.Is(err, ErrSandbox) || !strings.Contains(err.Error(), "netns") {
		t.Fatalf("got %v, want ErrSandbox naming netns", err)
	}
	lax := newRunner(t, Options{PoolSize: -1})
	res, err := lax.Run(context.Background(), e.request(t, trivial))
	if err != nil {
		t.Fatalf("best effort run: %v", err)
	}
	// The namespaces are made together: without one, none of them.
	want := "netns, pidns, ipcns, utsns"
	if got := sandbox.Missing(res.Layers); got != want {
		t.Errorf("missing layers %q, want %q", got, want)
	}
}
