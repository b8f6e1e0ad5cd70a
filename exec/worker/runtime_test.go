package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/fs/gen"
	"github.com/mcpfs/mcpfs/fs/gen/runtime/mcp"
)

// TestRuntimeSymbols keeps runtimeSymbols in step with the runtime
// package: every exported top-level name of its source is in the table,
// with the right kind, and nothing else is.
func TestRuntimeSymbols(t *testing.T) {
	if RuntimeImport != gen.RuntimeImport {
		t.Errorf("RuntimeImport = %q, want gen.RuntimeImport %q", RuntimeImport, gen.RuntimeImport)
	}
	syms := runtimeSymbols[RuntimeImport+"/mcp"]
	if len(runtimeSymbols) != 1 || syms == nil {
		t.Fatalf("runtimeSymbols has keys %v, want only %q", slices.Collect(mapKeys(runtimeSymbols)), RuntimeImport+"/mcp")
	}
	fset := token.NewFileSet()
	files, err := filepath.Glob("../../fs/gen/runtime/mcp/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("runtime sources: %v (%d files)", err, len(files))
	}
	want := map[string]string{} // name → "type" or "value"
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				// Generic functions cannot be host symbols: exec/check
				// rewrites their calls (mcp.Ptr) into interpreted helpers.
				if d.Recv == nil && d.Name.IsExported() && d.Type.TypeParams == nil {
					want[d.Name.Name] = "value"
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							want[s.Name.Name] = "type"
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								want[n.Name] = "value"
							}
						}
					}
				}
			}
		}
	}
	got := map[string]string{}
	for name, v := range syms {
		kind := "value"
		if v.Kind() == reflect.Pointer && v.IsNil() {
			kind = "type" // yaegi's convention: a nil *T stands for type T
			if n := v.Type().Elem().Name(); n != name {
				t.Errorf("symbol %s is the type %s", name, n)
			}
		}
		got[name] = kind
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("runtimeSymbols (name: kind):\n got  %v\n want %v\nedit exec/worker/runtime.go to match fs/gen/runtime/mcp", sorted(got), sorted(want))
	}
}

func mapKeys[M ~map[K]V, K comparable, V any](m M) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func sorted(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+": "+v)
	}
	sort.Strings(out)
	return out
}

// snapshot reads a server listing from fs/gen's test inputs.
func snapshot(t *testing.T, name string) discovery.ServerSnapshot {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../fs/gen/testdata/input", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		ToolsList struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"tools/list"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s := discovery.ServerSnapshot{Name: name, Key: name, Transport: "stdio", State: discovery.StateReady}
	for _, raw := range in.ToolsList.Tools {
		var head struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(raw, &head) // a hostile tool may not be an object
		s.Tools = append(s.Tools, discovery.Tool{Name: head.Name, Raw: raw})
	}
	return s
}

// cannedResults are the CallToolResults the test transport answers with,
// by tool name; other tools get an empty result.
var cannedResults = map[string]string{
	"read_text_file":  `{"content":[{"type":"text","text":"line 1"}],"structuredContent":{"content":"line 1\nline 2"}}`,
	"read_graph":      `{"content":[{"type":"text","text":"{\"entities\":[{\"name\":\"a\",\"entityType\":\"person\",\"observations\":[\"x\"]}],\"relations\":[]}"}]}`,
	"echo":            `{"content":[{"type":"text","text":"Echo: hi"},{"type":"image","data":"AA==","mimeType":"image/png"}],"_meta":{"x":1}}`,
	"get-sum":         `{"content":[{"type":"text","text":"a is not a number"}],"isError":true}`,
	"create_entities": `{"content":[],"structuredContent":{"entities":[]}}`,
	"schemas":         `{"content":[],"structuredContent":{"ok":true,"items":[{"id":7,"tags":["t"]}],"status":"on"}}`,
	"list_directory":  `[1,2]`,
}

// runtimeProgram exercises the runtime through generated packages: the
// JSON each call sends, the decoding of results, errors, and the runtime's
// own functions used directly.
const runtimeProgram = `package main

import (
	"context"
	"errors"
	"fmt"

	"mcpfs/mcp"
	"mcpfs/servers/everything"
	"mcpfs/servers/filesystem"
	"mcpfs/servers/hostile"
	"mcpfs/servers/memory"
)

func main() {
	saved := mcp.Transport
	mcp.Transport = nil
	_, err := everything.Echo(everything.EchoArgs{Message: "before"})
	fmt.Println("no engine:", errors.Is(err, mcp.ErrNoEngine), err)
	mcp.Transport = saved

	file, err := filesystem.ReadTextFile(filesystem.ReadTextFileArgs{Path: "/a.txt", Head: mcp.Float(2)})
	fmt.Printf("read: %q %v\n", file.Content, err)

	_, err = filesystem.ListDirectory(filesystem.ListDirectoryArgs{Path: "/"})
	fmt.Println("not a result:", err)

	_, err = memory.CreateEntities(memory.CreateEntitiesArgs{Entities: []memory.CreateEntitiesEntity{
		{Name: "a", EntityType: "person", Observations: []string{"x", "y"}},
	}})
	fmt.Println("create:", err)

	graph, err := memory.ReadGraph(memory.ReadGraphArgs{})
	fmt.Println("graph:", len(graph.Entities), graph.Entities[0].Name, graph.Entities[0].Observations, err)

	echo, err := everything.Echo(everything.EchoArgs{Message: "hi"})
	fmt.Println("echo:", echo.Text(), len(echo.Content), echo.Content[1].MimeType, err)
	fmt.Printf("echo value: %v\n", echo)
	var words struct{ Echo string }
	fmt.Println("decode:", echo.Decode(&words))

	_, err = everything.GetSum(everything.GetSumArgs{A: 1, B: 2})
	te, ok := mcp.AsToolError(fmt.Errorf("wrapped: %w", err))
	fmt.Println("tool error:", ok, te.Server, te.Tool, te.Message, te.Result.IsError, err)

	_, err = everything.GetAnnotatedMessage(everything.GetAnnotatedMessageArgs{MessageType: "debug", IncludeImage: mcp.Bool(false)})
	fmt.Println("enum:", err)

	_, err = hostile.Props(hostile.PropsArgs{Name: "n", Name2: mcp.Int(3), Extra: map[string]any{"a,b": 1, "a\"b": "q", "": true}})
	fmt.Println("extra:", err)

	res, err := hostile.Schemas(hostile.SchemasArgs{
		Tree:   hostile.SchemasNode{Name: mcp.String("root"), Children: []map[string]any{{"name": "leaf"}}},
		Origin: hostile.SchemasPoint{X: 1, Y: 0},
		Mode:   "New York",
		Labels: map[string]string{"k": "v"},
	})
	fmt.Println("schemas:", err, res.Ok, res.Items[0].Id, res.Items[0].Tags, res.Status == "on")

	var whole mcp.Result
	err = mcp.Call("everything", "echo", map[string]any{"message": "direct", "n": 1}, &whole)
	fmt.Println("direct:", whole.Text(), err)
	err = mcp.CallExtra("everything", "echo", struct {
		M string ` + "`json:\"message\"`" + `
	}{"x"}, map[string]any{"extra": []int{1}}, nil)
	fmt.Println("direct extra:", err)
	merged, err := mcp.Merge(map[string]int{"a": 1}, map[string]any{"b": "c"})
	fmt.Println("merge:", string(merged), err)
	_, err = mcp.Merge(42, map[string]any{"x": 1})
	fmt.Println("merge error:", err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = mcp.CallContext(ctx, "everything", "echo", nil, nil)
	fmt.Println("cancelled:", errors.Is(err, context.Canceled), err)

	err = mcp.Call("everything", "echo", func() {}, nil)
	fmt.Println("bad args:", err != nil)
}
`

// TestRuntimeNativeMatchesSource runs the same program on generated
// packages with the runtime interpreted from the tree's source and with
// the compiled runtime the worker uses: both must send the same JSON and
// print the same output.
func TestRuntimeNativeMatchesSource(t *testing.T) {
	tree := fstest.MapFS{}
	var files []gen.File
	files = append(files, gen.Root(nil)...)
	for _, name := range []string{"filesystem", "memory", "everything", "hostile"} {
		files = append(files, gen.Server(snapshot(t, name))...)
	}
	for _, f := range files {
		if strings.HasSuffix(f.Path, ".go") {
			tree["src/mcpfs/"+f.Path] = &fstest.MapFile{Data: f.Data}
		}
	}

	run := func(t *testing.T, native bool) (string, []string) {
		var calls []string
		hook := func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			calls = append(calls, server+" "+tool+" "+string(args))
			if r, ok := cannedResults[tool]; ok {
				return json.RawMessage(r), nil
			}
			return json.RawMessage(`{"content":[]}`), nil
		}
		var stdout, stderr bytes.Buffer
		fsys := fstest.MapFS{}
		for k, v := range tree {
			fsys[k] = v
		}
		i := interp.New(interp.Options{GoPath: ".", SourcecodeFilesystem: fsys, Stdout: &stdout, Stderr: &stderr})
		if err := i.Use(stdlib.Symbols); err != nil {
			t.Fatal(err)
		}
		if native {
			// The tree's runtime sources stay in place: the compiled
			// package must win over them, as in the worker.
			if err := i.Use(runtimeSymbols); err != nil {
				t.Fatal(err)
			}
			mcp.Transport = hook
			t.Cleanup(func() { mcp.Transport = nil })
		} else {
			if err := i.Use(interp.Exports{"mcpfstest/host/host": {"Transport": reflect.ValueOf(hook)}}); err != nil {
				t.Fatal(err)
			}
			fsys["src/mcpfs/mcp/zz_host.go"] = &fstest.MapFile{Data: []byte("package mcp\n\nimport \"mcpfstest/host\"\n\nfunc init() { Transport = host.Transport }\n")}
		}
		if _, err := i.Eval(runtimeProgram); err != nil {
			t.Fatalf("run: %v\nstderr: %s", err, stderr.String())
		}
		return stdout.String(), calls
	}

	srcOut, srcCalls := run(t, false)
	natOut, natCalls := run(t, true)
	// json names an interpreted type by its structure and a compiled one
	// by its name: the only difference allowed.
	typeName := regexp.MustCompile(`Go value of type .*`)
	if typeName.ReplaceAllString(natOut, "T") != typeName.ReplaceAllString(srcOut, "T") {
		t.Errorf("output differs:\n native:\n%s\n source:\n%s", natOut, srcOut)
	}
	if !slices.Equal(natCalls, srcCalls) {
		t.Errorf("calls differ:\n native: %q\n source: %q", natCalls, srcCalls)
	}
	// A few lines pinned down, so that both being wrong the same way fails.
	for _, want := range []string{
		"no engine: true call everything.echo: " + mcp.ErrNoEngine.Error(),
		`read: "line 1\nline 2" <nil>`,
		"tool error: true everything get-sum a is not a number true everything.get-sum: a is not a number",
		"echo: Echo: hi 2 image/png <nil>",
		"cancelled: true call everything.echo: context canceled",
		"schemas: <nil> true 7 [t] true",
		`merge: {"a":1,"b":"c"} <nil>`,
		"bad args: true",
		"not a result: call filesystem.list_directory: the server's result is not a CallToolResult: json: cannot unmarshal array into Go value of type mcp.Result",
	} {
		if !strings.Contains(natOut, want+"\n") {
			t.Errorf("output lacks %q:\n%s", want, natOut)
		}
	}
	wantCalls := []string{
		`filesystem read_text_file {"path":"/a.txt","head":2}`,
		`filesystem list_directory {"path":"/"}`,
		`memory create_entities {"entities":[{"name":"a","entityType":"person","observations":["x","y"]}]}`,
		`memory read_graph {}`,
		`everything echo {"message":"hi"}`,
		`everything get-sum {"a":1,"b":2}`,
		`everything get-annotated-message {"messageType":"debug","includeImage":false}`,
		`hostile props {"":true,"Name":3,"a\"b":"q","a,b":1,"name":"n"}`,
		`hostile schemas {"tree":{"name":"root","children":[{"name":"leaf"}]},"origin":{"x":1,"y":0},"labels":{"k":"v"},"mode":"New York"}`,
		`everything echo {"message":"direct","n":1}`,
		`everything echo {"extra":[1],"message":"x"}`,
	}
	if !slices.Equal(natCalls, wantCalls) {
		t.Errorf("calls:\n got  %q\n want %q", natCalls, wantCalls)
	}
}

// TestRuntimeNativeErrorsAs checks what the compiled runtime adds over the
// interpreted one: a snippet can match *mcp.ToolError with errors.As and
// type assertions, not only with mcp.AsToolError.
func TestRuntimeNativeErrorsAs(t *testing.T) {
	var stdout, stderr bytes.Buffer
	i := interp.New(interp.Options{GoPath: ".", SourcecodeFilesystem: fstest.MapFS{}, Stdout: &stdout, Stderr: &stderr})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := i.Use(runtimeSymbols); err != nil {
		t.Fatal(err)
	}
	mcp.Transport = func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"content":[{"type":"text","text":"no"}],"isError":true}`), nil
	}
	t.Cleanup(func() { mcp.Transport = nil })
	const program = `package main

import (
	"errors"
	"fmt"

	"mcpfs/mcp"
)

func main() {
	err := mcp.Call("s", "t", nil, nil)
	var te *mcp.ToolError
	fmt.Println(errors.As(fmt.Errorf("w: %w", err), &te), te.Message)
	te2, ok := err.(*mcp.ToolError)
	fmt.Println(ok, te2.Tool)
}
`
	if _, err := i.Eval(program); err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, stderr.String())
	}
	if got, want := stdout.String(), "true no\ntrue t\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// BenchmarkRuntimeCall measures what one tool call costs inside the
// interpreter, with a transport that answers at once: a generated wrapper
// calling the runtime package interpreted from its source (as workers did
// before) or compiled in (as they do now). No process or channel is
// involved; BenchmarkCall in package exec measures those.
func BenchmarkRuntimeCall(b *testing.B) {
	const pkg = `package docstore

import "mcpfs/mcp"

func WordCount(args WordCountArgs) (mcp.Result, error) {
	var out mcp.Result
	err := mcp.Call("docstore", "word_count", args, &out)
	return out, err
}

type WordCountArgs struct {
	Text string ` + "`json:\"text\"`" + `
}
`
	const program = `package main

import "mcpfs/servers/docstore"

func Loop(n int) error {
	for i := 0; i < n; i++ {
		if _, err := docstore.WordCount(docstore.WordCountArgs{Text: "one two three"}); err != nil {
			return err
		}
	}
	return nil
}
`
	result := json.RawMessage(`{"content":[{"type":"text","text":"lines: 1\nwords: 3\ncharacters: 13\nbytes: 13\n"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"docstore","version":"1.0.0"}}}`)
	hook := func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
		return result, nil
	}
	for _, mode := range []string{"source", "native"} {
		b.Run(mode, func(b *testing.B) {
			fsys := fstest.MapFS{"src/mcpfs/servers/docstore/word_count.go": {Data: []byte(pkg)}}
			i := interp.New(interp.Options{GoPath: ".", SourcecodeFilesystem: fsys})
			if err := i.Use(stdlib.Symbols); err != nil {
				b.Fatal(err)
			}
			if mode == "native" {
				if err := i.Use(runtimeSymbols); err != nil {
					b.Fatal(err)
				}
				mcp.Transport = hook
				b.Cleanup(func() { mcp.Transport = nil })
			} else {
				for _, f := range gen.Root(nil) {
					if strings.HasSuffix(f.Path, ".go") {
						fsys["src/mcpfs/"+f.Path] = &fstest.MapFile{Data: f.Data}
					}
				}
				fsys["src/mcpfs/mcp/zz_host.go"] = &fstest.MapFile{Data: []byte("package mcp\n\nimport \"mcpfstest/host\"\n\nfunc init() { Transport = host.Transport }\n")}
				if err := i.Use(interp.Exports{"mcpfstest/host/host": {"Transport": reflect.ValueOf(hook)}}); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := i.Eval(program); err != nil {
				b.Fatal(err)
			}
			v, err := i.Eval("main.Loop")
			if err != nil {
				b.Fatal(err)
			}
			loop := v.Interface().(func(int) error)
			b.ReportAllocs()
			b.ResetTimer()
			if err := loop(b.N); err != nil {
				b.Fatal(err)
			}
		})
	}
}
