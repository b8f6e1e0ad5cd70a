package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpfs/mcpfs/discovery"
	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/fs/gen/shape"
)

// learnedNote says what a learned result type costs in tokens: the file
// of server-everything's get-env (the one tool of the three reference
// servers that returns JSON without an output schema) before and after
// mcpfs learned its result from one real call.
func (e *env) learnedNote(ctx context.Context) (string, error) {
	const srv, tool = "everything", "get-env"
	s, ok := e.sup.Catalog().Server(srv)
	if !ok {
		return "", fmt.Errorf("learned types: no server %s", srv)
	}
	res, err := e.sup.CallTool(ctx, srv, tool, json.RawMessage(`{}`))
	if err != nil {
		return "", fmt.Errorf("learned types: call %s.%s: %w", srv, tool, err)
	}
	data, ok := shape.Result(res)
	if !ok {
		return "", fmt.Errorf("learned types: %s.%s did not return JSON", srv, tool)
	}
	l, _, _ := (*shape.Learned)(nil).Add(data, time.Now())
	learned := s
	learned.Tools = append([]discovery.Tool(nil), s.Tools...)
	found := false
	for i := range learned.Tools {
		if learned.Tools[i].Name == tool {
			learned.Tools[i].Learned = shape.GenInput(l)
			found = true
		}
	}
	if !found {
		return "", fmt.Errorf("learned types: %s has no tool %s", srv, tool)
	}
	count := func(snap discovery.ServerSnapshot) (int, error) {
		t := mcpfs.New(&discovery.Catalog{Version: 1, Servers: []discovery.ServerSnapshot{snap}}, mcpfs.Options{})
		p, err := toolFile(t, srv, tool)
		if err != nil {
			return 0, err
		}
		b, err := t.ReadFile(p)
		if err != nil {
			return 0, err
		}
		return e.count.count(string(b)), nil
	}
	before, err := count(s)
	if err != nil {
		return "", err
	}
	after, err := count(learned)
	if err != nil {
		return "", err
	}
	fields := 0
	if l.Root != nil {
		fields = len(l.Root.Fields)
	}
	return fmt.Sprintf("Learned result types: after one real call, everything's get-env (JSON text, no output schema; the only such tool of the three servers) gets a GetEnvResult of %d fields: its file goes from %s to %s tokens (+%s). Files of tools that declare an output schema, or whose results are not JSON, are unchanged; the README's sentence on learned types is the only fixed cost.",
		fields, thousands(before), thousands(after), thousands(after-before)), nil
}
