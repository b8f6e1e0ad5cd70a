package builtin

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// testCtx returns a context that ends with the test or after a minute.
func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// connect starts an in-process client on srv and initializes it.
func connect(t testing.TB, srv *server.MCPServer) (*client.Client, *mcp.InitializeResult) {
	t.Helper()
	ctx := testCtx(t)
	c, err := client.NewInProcessClient(srv)
	if err != nil {
		t.Fatalf("NewInProcessClient: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	init, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "builtin-test", Version: "0"},
	}})
	if err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	return c, init
}

// newTestClient connects to a docstore that also validates every structured
// result against its tool's output schema, so a result that breaks its
// declared schema turns into an error result and fails the test.
func newTestClient(t testing.TB) *client.Client {
	t.Helper()
	c, _ := connect(t, newDocstore(server.WithOutputSchemaValidation()))
	return c
}

// call calls a tool and fails the test on a protocol error.
func call(t testing.TB, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := c.CallTool(testCtx(t), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		t.Fatalf("call %s(%v): %v", name, args, err)
	}
	return res
}

// resultText joins the text content of a result.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// decode converts a successful result's structured content to T.
func decode[T any](t testing.TB, res *mcp.CallToolResult) T {
	t.Helper()
	var v T
	if res.IsError {
		t.Fatalf("got error result %q, want success", resultText(res))
	}
	if res.StructuredContent == nil {
		t.Fatalf("result has no structuredContent; text: %.200s", resultText(res))
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatalf("marshal structuredContent: %v", err)
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("decode structuredContent into %T: %v", v, err)
	}
	return v
}

// callOK calls a tool that must succeed and decodes its structured result.
func callOK[T any](t testing.TB, c *client.Client, name string, args map[string]any) T {
	t.Helper()
	return decode[T](t, call(t, c, name, args))
}
