package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/naming"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

func newCallCmd(g *globals) *cobra.Command {
	var (
		asJSON  bool
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "call SERVER TOOL [KEY=VALUE... | JSON]",
		Short: "Call one tool and print its result",
		Long: `Call one tool of one server, for scripts and quick checks, and print its
result: the text of its content, or its structured content as JSON. TOOL
is the tool's MCP name or its Go name (list_documents or ListDocuments).

Arguments are KEY=VALUE pairs, each VALUE read by the type the tool's
input schema gives KEY (a number, true/false, or JSON for arrays and
objects; a string otherwise), or one JSON object. A result that is an
error exits 1.`,
		Example: `  mcpfs call docstore list_documents
  mcpfs call docstore QueryRows id=access-log limit=3 'where={"region":"eu-west"}'
  mcpfs call docstore read_document '{"id": "handbook"}'`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, release, err := g.useEngine(cmd.Context(), engine.Options{OneShot: true})
			if err != nil {
				return err
			}
			defer release()
			t, err := g.treeFor(cmd.Context(), e, mcpfs.ServersDir+"/"+naming.Package(args[0]))
			if err != nil {
				return err
			}
			srv, ok := findServer(t.Catalog(), args[0])
			if !ok {
				return usagef("no server %q (mcpfs ls servers lists them)", args[0])
			}
			tool, ok := findTool(srv, args[1])
			if !ok {
				return usagef("server %s has no tool %q (mcpfs ls servers/%s lists them)", srv.Name, args[1], srv.Name)
			}
			params, err := callArgs(tool, args[2:])
			if err != nil {
				return usageError{err}
			}
			ctx := cmd.Context()
			if timeout > 0 {
				var cancel func()
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			raw, err := e.Supervisor().CallTool(ctx, srv.Name, tool.Name, params)
			if err != nil {
				return fmt.Errorf("call %s.%s: %w", srv.Name, tool.Name, err)
			}
			e.LearnFrom(srv.Name, tool.Name, raw)
			return g.printCallResult(raw, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the whole result (content, structuredContent, isError) as JSON")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "give up after this `duration` (default: the server's callTimeout)")
	return cmd
}

// findServer finds a server by config key or package name.
func findServer(cat *discovery.Catalog, name string) (discovery.ServerSnapshot, bool) {
	for _, s := range cat.Servers {
		if s.Name == name || s.Key == name || s.Name == naming.Package(name) {
			return s, true
		}
	}
	return discovery.ServerSnapshot{}, false
}

// findTool finds a tool by its MCP name or its Go name.
func findTool(s discovery.ServerSnapshot, name string) (discovery.Tool, bool) {
	for _, t := range s.Tools {
		if t.Name == name {
			return t, true
		}
	}
	for _, t := range s.Tools {
		if naming.Exported(t.Name) == name || strings.EqualFold(naming.Exported(t.Name), name) {
			return t, true
		}
	}
	return discovery.Tool{}, false
}

// callArgs turns KEY=VALUE words (or one JSON object) into the call's
// arguments, reading each value by the type the input schema gives it.
func callArgs(tool discovery.Tool, words []string) (json.RawMessage, error) {
	if len(words) == 1 && strings.HasPrefix(strings.TrimSpace(words[0]), "{") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(words[0]), &obj); err != nil {
			return nil, fmt.Errorf("the arguments are not a JSON object: %v", err)
		}
		return json.RawMessage(words[0]), nil
	}
	var def struct {
		InputSchema struct {
			Properties map[string]struct {
				Type any `json:"type"`
			} `json:"properties"`
		} `json:"inputSchema"`
	}
	json.Unmarshal(tool.Raw, &def)
	out := map[string]any{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("argument %q: want KEY=VALUE, or one JSON object", w)
		}
		prop, known := def.InputSchema.Properties[k]
		if !known {
			var names []string
			for n := range def.InputSchema.Properties {
				names = append(names, n)
			}
			return nil, fmt.Errorf("argument %q: %s has no argument %q (it takes: %s)", w, tool.Name, k, strings.Join(slices.Sorted(slices.Values(names)), ", "))
		}
		val, err := typedValue(schemaTypes(prop.Type), v)
		if err != nil {
			return nil, fmt.Errorf("argument %s: %v", k, err)
		}
		out[k] = val
	}
	return json.Marshal(out)
}

// schemaTypes returns the JSON types a schema's "type" allows.
func schemaTypes(t any) []string {
	switch t := t.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// typedValue reads v as the first of types it parses as; a string when
// the schema says nothing more.
func typedValue(types []string, v string) (any, error) {
	for _, t := range types {
		switch t {
		case "integer":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				return n, nil
			}
		case "number":
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				return f, nil
			}
		case "boolean":
			if b, err := strconv.ParseBool(v); err == nil {
				return b, nil
			}
		case "array", "object":
			var x any
			if err := json.Unmarshal([]byte(v), &x); err == nil {
				return x, nil
			}
		case "null":
			if v == "null" {
				return nil, nil
			}
		case "string":
			return v, nil
		}
	}
	if len(types) == 0 {
		return v, nil
	}
	return nil, fmt.Errorf("%q is not of type %s", v, strings.Join(types, " or "))
}

// printCallResult prints a tools/call result: its text content, or its
// structured content, or (asJSON) all of it. An isError result is an
// error.
func (g *globals) printCallResult(raw json.RawMessage, asJSON bool) error {
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Structured json.RawMessage `json:"structuredContent"`
		IsError    bool            `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("the server's result is not a tool result: %v", err)
	}
	if asJSON {
		var buf bytes.Buffer
		json.Indent(&buf, raw, "", "  ")
		buf.WriteByte('\n')
		g.stdout.Write(buf.Bytes())
	} else {
		var text []string
		for _, c := range res.Content {
			if c.Type == "text" {
				text = append(text, c.Text)
			}
		}
		switch {
		case len(text) > 0:
			out := strings.Join(text, "\n")
			if !strings.HasSuffix(out, "\n") {
				out += "\n"
			}
			fmt.Fprint(g.stdout, out)
		case len(res.Structured) > 0:
			var buf bytes.Buffer
			json.Indent(&buf, res.Structured, "", "  ")
			buf.WriteByte('\n')
			g.stdout.Write(buf.Bytes())
		default:
			var buf bytes.Buffer
			json.Indent(&buf, raw, "", "  ")
			buf.WriteByte('\n')
			g.stdout.Write(buf.Bytes())
		}
	}
	if res.IsError {
		return fmt.Errorf("the tool returned an error")
	}
	return nil
}
