package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Transport sends one tools/call request and returns the raw JSON of its
// CallToolResult. The engine that runs a snippet sets it; server is the
// server's package name, tool the exact MCP tool name and args the JSON
// object of arguments.
var Transport func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error)

// ErrNoEngine is returned by every call when no engine has set Transport.
var ErrNoEngine = errors.New("no mcpfs engine to send the call to: tool calls run inside `mcpfs run snippet.go` (or the exec tool of `mcpfs serve`)")

// ToolError is a result the tool marked as an error (isError): the server
// ran the call and reported a failure. Message is the text of the result.
type ToolError struct {
	Server  string
	Tool    string
	Message string
	Result  Result
}

// Error returns "<server>.<tool>: <message>".
func (e *ToolError) Error() string {
	return e.Server + "." + e.Tool + ": " + e.Message
}

// AsToolError returns the *ToolError in err's chain, if there is one. Use it
// instead of errors.As, which the snippet interpreter cannot apply to
// interpreted error types.
func AsToolError(err error) (*ToolError, bool) {
	for err != nil {
		if te, ok := err.(*ToolError); ok {
			return te, true
		}
		err = errors.Unwrap(err)
	}
	return nil, false
}

// Call calls a tool with context.Background(); see CallContext.
func Call(server, tool string, args any, out any) error {
	return CallContext(context.Background(), server, tool, args, out)
}

// CallContext calls the tool named tool on server with args marshalled as a
// JSON object (nil sends {}). If the result is an error (isError) it returns
// a *ToolError. Otherwise it decodes the result into out: a *Result receives
// the whole result; anything else is decoded by Result.Decode (the
// structured content, or else the text parsed as JSON). out may be nil.
func CallContext(ctx context.Context, server, tool string, args any, out any) error {
	t := Transport
	if t == nil {
		return fmt.Errorf("call %s.%s: %w", server, tool, ErrNoEngine)
	}
	body, err := marshalArgs(args)
	if err != nil {
		return fmt.Errorf("call %s.%s: encode arguments: %w", server, tool, err)
	}
	raw, err := t(ctx, server, tool, body)
	if err != nil {
		return fmt.Errorf("call %s.%s: %w", server, tool, err)
	}
	var res Result
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("call %s.%s: the server's result is not a CallToolResult: %w", server, tool, err)
	}
	if res.IsError {
		return &ToolError{Server: server, Tool: tool, Message: res.Text(), Result: res}
	}
	if out == nil {
		return nil
	}
	if p, ok := out.(*Result); ok {
		*p = res
		return nil
	}
	if err := res.Decode(out); err != nil {
		return fmt.Errorf("call %s.%s: %w", server, tool, err)
	}
	return nil
}

func marshalArgs(args any) (json.RawMessage, error) {
	if args == nil {
		return json.RawMessage("{}"), nil
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	if string(b) == "null" {
		return json.RawMessage("{}"), nil
	}
	return b, nil
}

// CallExtra is Call with the entries of extra merged into the arguments
// object (see Merge). Generated functions whose argument struct has an
// Extra field call it.
func CallExtra(server, tool string, args any, extra map[string]any, out any) error {
	body, err := Merge(args, extra)
	if err != nil {
		return fmt.Errorf("call %s.%s: %w", server, tool, err)
	}
	return CallContext(context.Background(), server, tool, body, out)
}

// Merge returns args marshalled as a JSON object with the entries of extra
// added (an entry replaces a field of the same JSON name). Generated
// functions use it for the Extra field of argument structs, which carries
// properties whose names cannot be Go struct tags.
func Merge(args any, extra map[string]any) (json.RawMessage, error) {
	b, err := marshalArgs(args)
	if err != nil {
		return nil, fmt.Errorf("encode arguments: %w", err)
	}
	if len(extra) == 0 {
		return b, nil
	}
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, fmt.Errorf("merge Extra: the arguments are not a JSON object: %w", err)
	}
	for k, v := range extra {
		vb, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encode Extra[%q]: %w", k, err)
		}
		obj[k] = vb
	}
	return json.Marshal(obj)
}
