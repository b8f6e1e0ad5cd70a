package gen

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// sentCall is one tool call as it reached the transport hook.
type sentCall struct {
	Server, Tool string
	Args         string
}

// TestYaegi runs generated packages and the runtime in the interpreter that
// mcpfs runs snippets with, and checks the JSON that reaches the transport
// and the decoding of results.
func TestYaegi(t *testing.T) {
	mfs := fstest.MapFS{}
	add := func(files []File) {
		for _, f := range files {
			if strings.HasSuffix(f.Path, ".go") {
				mfs["src/mcpfs/"+f.Path] = &fstest.MapFile{Data: f.Data}
			}
		}
	}
	add(Root(nil))
	for _, name := range []string{"filesystem", "memory", "everything", "hostile"} {
		add(Server(loadSnapshot(t, name)))
	}

	// Canned CallToolResults, by tool name.
	results := map[string]string{
		"read_text_file":  `{"content":[{"type":"text","text":"line 1"}],"structuredContent":{"content":"line 1\nline 2"}}`,
		"read_graph":      `{"content":[{"type":"text","text":"{\"entities\":[{\"name\":\"a\",\"entityType\":\"person\",\"observations\":[\"x\"]}],\"relations\":[]}"}]}`,
		"echo":            `{"content":[{"type":"text","text":"Echo: hi"}]}`,
		"get-sum":         `{"content":[{"type":"text","text":"a is not a number"}],"isError":true}`,
		"create_entities": `{"content":[],"structuredContent":{"entities":[]}}`,
		"schemas":         `{"content":[],"structuredContent":{"ok":true,"items":[{"id":7,"tags":["t"]}],"status":"on"}}`,
	}
	var calls []sentCall
	hook := func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
		calls = append(calls, sentCall{server, tool, string(args)})
		if r, ok := results[tool]; ok {
			return json.RawMessage(r), nil
		}
		return json.RawMessage(`{"content":[]}`), nil
	}

	var stdout, stderr bytes.Buffer
	i := interp.New(interp.Options{GoPath: ".", SourcecodeFilesystem: mfs, Stdout: &stdout, Stderr: &stderr})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := i.Use(interp.Exports{"mcpfstest/host/host": {"Transport": reflect.ValueOf(hook)}}); err != nil {
		t.Fatal(err)
	}
	const program = `package main

import (
	"errors"
	"fmt"

	"mcpfs/mcp"
	"mcpfs/servers/everything"
	"mcpfs/servers/filesystem"
	"mcpfs/servers/hostile"
	"mcpfs/servers/memory"
	"mcpfstest/host"
)

func main() {
	_, err := everything.Echo(everything.EchoArgs{Message: "before"})
	fmt.Println("no engine:", errors.Is(err, mcp.ErrNoEngine))

	mcp.Transport = host.Transport

	file, err := filesystem.ReadTextFile(filesystem.ReadTextFileArgs{Path: "/a.txt", Head: mcp.Float(2)})
	fmt.Printf("read: %q %v\n", file.Content, err)

	_, err = memory.CreateEntities(memory.CreateEntitiesArgs{Entities: []memory.CreateEntitiesEntity{
		{Name: "a", EntityType: "person", Observations: []string{"x", "y"}},
	}})
	fmt.Println("create:", err)

	graph, err := memory.ReadGraph(memory.ReadGraphArgs{})
	fmt.Println("graph:", len(graph.Entities), graph.Entities[0].Name, graph.Entities[0].Observations, err)

	echo, err := everything.Echo(everything.EchoArgs{Message: "hi"})
	fmt.Println("echo:", echo.Text(), err)

	_, err = everything.GetSum(everything.GetSumArgs{A: 1, B: 2})
	te, ok := mcp.AsToolError(err)
	fmt.Println("tool error:", ok, te.Tool, err)

	_, err = everything.GetAnnotatedMessage(everything.GetAnnotatedMessageArgs{MessageType: everything.GetAnnotatedMessageMessageTypeDebug, IncludeImage: mcp.Bool(false)})
	fmt.Println("enum:", err)

	_, err = hostile.Props(hostile.PropsArgs{Name: "n", Name2: mcp.Int(3), Extra: map[string]any{"a,b": 1, "a\"b": "q", "": true}})
	fmt.Println("extra:", err)

	res, err := hostile.Schemas(hostile.SchemasArgs{
		Tree:   hostile.SchemasNode{Name: mcp.String("root"), Children: []map[string]any{{"name": "leaf"}}},
		Origin: hostile.SchemasPoint{X: 1, Y: 0},
		Mode:   hostile.SchemasModeNewYork,
		Labels: map[string]string{"k": "v"},
	})
	fmt.Println("schemas:", err)
	fmt.Println("schemas result:", res.Ok, res.Items[0].Id, res.Items[0].Tags, res.Status == "on")
}
`
	if _, err := i.Eval(program); err != nil {
		t.Fatalf("run program: %v\nstderr: %s", err, stderr.String())
	}

	wantOut := []string{
		"no engine: true",
		`read: "line 1\nline 2" <nil>`,
		"create: <nil>",
		"graph: 1 a [x] <nil>",
		"echo: Echo: hi <nil>",
		"tool error: true get-sum everything.get-sum: a is not a number",
		"enum: <nil>",
		"extra: <nil>",
		"schemas: <nil>",
		"schemas result: true 7 [t] true",
	}
	if got := strings.Split(strings.TrimSpace(stdout.String()), "\n"); !reflect.DeepEqual(got, wantOut) {
		t.Errorf("program output:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantOut, "\n"))
	}

	wantCalls := []sentCall{
		{"filesystem", "read_text_file", `{"path":"/a.txt","head":2}`},
		{"memory", "create_entities", `{"entities":[{"name":"a","entityType":"person","observations":["x","y"]}]}`},
		{"memory", "read_graph", `{}`},
		{"everything", "echo", `{"message":"hi"}`},
		{"everything", "get-sum", `{"a":1,"b":2}`},
		{"everything", "get-annotated-message", `{"messageType":"debug","includeImage":false}`},
		{"hostile", "props", `{"":true,"Name":3,"a\"b":"q","a,b":1,"name":"n"}`},
		{"hostile", "schemas", `{"tree":{"name":"root","children":[{"name":"leaf"}]},"origin":{"x":1,"y":0},"labels":{"k":"v"},"mode":"New York"}`},
	}
	if len(calls) != len(wantCalls) {
		t.Fatalf("got %d calls, want %d: %+v", len(calls), len(wantCalls), calls)
	}
	for n, want := range wantCalls {
		got := calls[n]
		if got.Server != want.Server || got.Tool != want.Tool || got.Args != want.Args {
			t.Errorf("call %d:\n got  %s %s %s\n want %s %s %s", n, got.Server, got.Tool, got.Args, want.Server, want.Tool, want.Args)
		}
	}
}

// TestYaegiHostSetsTransport pins down how an engine installs the transport
// without touching the snippet: import the runtime and a host package
// exporting the hook, assign it, then evaluate the snippet's package main
// in the same interpreter.
func TestYaegiHostSetsTransport(t *testing.T) {
	mfs := fstest.MapFS{}
	for _, f := range append(Root(nil), Server(loadSnapshot(t, "everything"))...) {
		if strings.HasSuffix(f.Path, ".go") {
			mfs["src/mcpfs/"+f.Path] = &fstest.MapFile{Data: f.Data}
		}
	}
	var sent string
	hook := func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
		sent = server + " " + tool + " " + string(args)
		return json.RawMessage(`{"content":[{"type":"text","text":"Echo: x"}]}`), nil
	}
	var stdout bytes.Buffer
	i := interp.New(interp.Options{GoPath: ".", SourcecodeFilesystem: mfs, Stdout: &stdout})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := i.Use(interp.Exports{"mcpfshost/host/host": {"Transport": reflect.ValueOf(hook)}}); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{`import ("mcpfs/mcp"; "mcpfshost/host")`, `mcp.Transport = host.Transport`} {
		if _, err := i.Eval(src); err != nil {
			t.Fatalf("eval %q: %v", src, err)
		}
	}
	const snippet = `package main

import (
	"fmt"

	"mcpfs/servers/everything"
)

func main() {
	out, err := everything.Echo(everything.EchoArgs{Message: "x"})
	fmt.Println(out.Text(), err)
}
`
	if _, err := i.Eval(snippet); err != nil {
		t.Fatalf("run snippet: %v", err)
	}
	if got, want := stdout.String(), "Echo: x <nil>\n"; got != want {
		t.Errorf("snippet printed %q, want %q", got, want)
	}
	if want := `everything echo {"message":"x"}`; sent != want {
		t.Errorf("sent %s, want %s", sent, want)
	}
}
