package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// setTransport installs a transport that records the arguments it is sent
// and answers with result; it is removed when the test ends.
func setTransport(t *testing.T, result string, err error) *string {
	t.Helper()
	var sent string
	Transport = func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
		sent = server + " " + tool + " " + string(args)
		return json.RawMessage(result), err
	}
	t.Cleanup(func() { Transport = nil })
	return &sent
}

type args struct {
	Path string `json:"path"`
	Head *int   `json:"head,omitempty"`
}

type typed struct {
	Content string `json:"content"`
}

func TestCallNoEngine(t *testing.T) {
	Transport = nil
	err := Call("fs", "read", args{}, nil)
	if !errors.Is(err, ErrNoEngine) {
		t.Fatalf("got %v, want ErrNoEngine", err)
	}
	if !strings.Contains(err.Error(), "mcpfs run") {
		t.Errorf("error %q does not say where calls run", err)
	}
}

func TestCall(t *testing.T) {
	tests := []struct {
		name     string
		args     any
		result   string
		out      func() any
		wantSent string
		want     string // fmt of the decoded out
		wantErr  string
	}{
		{
			name: "structured", args: args{Path: "a", Head: Int(3)},
			result: `{"content":[{"type":"text","text":"ignored"}],"structuredContent":{"content":"hello"}}`,
			out:    func() any { return &typed{} }, wantSent: `fs read {"path":"a","head":3}`, want: "&{hello}",
		},
		{
			name: "text fallback", args: args{Path: "a"},
			result: `{"content":[{"type":"text","text":"{\"content\":\"from text\"}"}]}`,
			out:    func() any { return &typed{} }, wantSent: `fs read {"path":"a"}`, want: "&{from text}",
		},
		{
			name: "whole result", args: nil,
			result: `{"content":[{"type":"text","text":"a"},{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"text","text":"b"}]}`,
			out:    func() any { return &Result{} }, wantSent: `fs read {}`,
			want: `&{[{text a     []} {image  AA== image/png   []} {text b     []}] [] false}`,
		},
		{
			name: "text is not JSON", args: args{}, result: `{"content":[{"type":"text","text":"plain words"}]}`,
			out: func() any { return &typed{} }, wantErr: "its text is not the expected JSON",
		},
		{
			name: "empty result", args: args{}, result: `{"content":[]}`,
			out: func() any { return &typed{} }, wantErr: "neither structuredContent nor text",
		},
		{
			name: "not a result", args: args{}, result: `[1,2]`,
			out: func() any { return &typed{} }, wantErr: "not a CallToolResult",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sent := setTransport(t, tt.result, nil)
			out := tt.out()
			err := Call("fs", "read", tt.args, out)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantSent != "" && *sent != tt.wantSent {
				t.Errorf("sent %s, want %s", *sent, tt.wantSent)
			}
			if got := fmt.Sprint(out); got != tt.want {
				t.Errorf("decoded %s, want %s", got, tt.want)
			}
		})
	}
}

func TestResultText(t *testing.T) {
	r := Result{Content: []Content{{Type: "text", Text: "a"}, {Type: "image", Data: "AA=="}, {Type: "text", Text: "b"}}}
	if got := r.Text(); got != "a\nb" {
		t.Errorf("Text() = %q, want %q", got, "a\nb")
	}
}

func TestCallToolError(t *testing.T) {
	setTransport(t, `{"content":[{"type":"text","text":"no such file"}],"isError":true}`, nil)
	err := Call("fs", "read", args{}, &typed{})
	te, ok := AsToolError(fmt.Errorf("wrapped: %w", err))
	if !ok {
		t.Fatalf("got %v, want a *ToolError", err)
	}
	if te.Message != "no such file" || err.Error() != "fs.read: no such file" {
		t.Errorf("got message %q and error %q", te.Message, err)
	}
}

func TestCallTransportError(t *testing.T) {
	boom := errors.New("server exited")
	setTransport(t, "", boom)
	err := Call("fs", "read", args{}, nil)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "fs.read") {
		t.Errorf("got %v, want the transport error wrapped with the tool", err)
	}
	if _, ok := AsToolError(err); ok {
		t.Errorf("a transport error is not a tool error")
	}
}

func TestCallExtra(t *testing.T) {
	sent := setTransport(t, `{"content":[]}`, nil)
	if err := CallExtra("fs", "read", args{Path: "a"}, map[string]any{"a,b": 1, "path": "override"}, nil); err != nil {
		t.Fatal(err)
	}
	if want := `fs read {"a,b":1,"path":"override"}`; *sent != want {
		t.Errorf("sent %s, want %s", *sent, want)
	}
	if _, err := Merge(42, map[string]any{"x": 1}); err == nil {
		t.Errorf("Merge of a non-object: got no error")
	}
	if _, err := Merge(args{}, map[string]any{"x": func() {}}); err == nil || !strings.Contains(err.Error(), `Extra["x"]`) {
		t.Errorf("Merge of an unencodable value: got %v", err)
	}
}

func TestPointers(t *testing.T) {
	if *String("s") != "s" || *Int(2) != 2 || *Float(1.5) != 1.5 || !*Bool(true) {
		t.Error("pointer helpers return the wrong values")
	}
}
