package gen

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/fs/gen/shape"
)

// learnedSnapshot is a server without output schemas whose results mcpfs
// has seen: an object (a field missing once, one whose type disagrees),
// an array of objects, and a tool whose top-level keys vary with the call.
func learnedSnapshot(t testing.TB) discovery.ServerSnapshot {
	when := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	learn := func(results ...string) []byte {
		var l *shape.Learned
		for i, r := range results {
			var ok bool
			l, _, ok = l.Add([]byte(r), when.Add(time.Duration(i)*time.Minute))
			if !ok {
				t.Fatalf("not JSON: %s", r)
			}
		}
		return shape.GenInput(l)
	}
	tool := func(name, desc string, learned []byte) discovery.Tool {
		return discovery.Tool{Name: name, Raw: []byte(`{"name":"` + name + `","description":"` + desc + `","inputSchema":{"type":"object"}}`), Learned: learned}
	}
	return discovery.ServerSnapshot{Name: "learned", Key: "learned", Transport: "stdio", State: discovery.StateReady,
		Tools: []discovery.Tool{
			tool("get_env", "Returns the environment.", learn(
				`{"env":{"HOME":"/root","PATH":"/bin"},"pid":12,"user":{"name":"root","uid":0},"tags":["a"],"note":null}`,
				`{"env":{"LANG":"C"},"pid":13,"user":{"name":"x","uid":"7"},"tags":[]}`)),
			tool("list_items", "Lists items.", learn(`[{"id":"a","size":1},{"id":"b","size":2,"done":true}]`)),
			tool("query", "Runs a query.", learn(`{"a":1,"b":2}`, `{"c":1,"d":2}`)),
			tool("plain", "Returns text.", nil),
		}}
}

func TestLearnedTypes(t *testing.T) {
	s := learnedSnapshot(t)
	if s.Tools[2].Learned != nil {
		t.Fatalf("query's top-level keys disagree, but it has a learned type: %s", s.Tools[2].Learned)
	}
	files := Server(s)
	checkServer(t, s, files)
	compareGolden(t, "learned", files)
	byPath := map[string]string{}
	for _, f := range files {
		byPath[f.Path] = string(f.Data)
	}
	for path, want := range map[string][]string{
		"servers/learned/get_env.go": {
			"func GetEnv(args GetEnvArgs) (out mcp.Result, err error)", // code written against mcp.Result keeps compiling
			"type GetEnvResult struct", "learned from 2 results (2026-11-26 10:01 UTC)",
			"map[string]string `json:\"env\"`", "float64           `json:\"pid\"`", "Uid  any", "[]string          `json:\"tags\"`", "`json:\"note,omitempty\"`",
		},
		"servers/learned/list_items.go": {"type ListItemsResult []ListItemsResultItem", "learned from 1 result (", "`json:\"done,omitempty\"`", "float64 `json:\"size\"`"},
	} {
		for _, w := range want {
			if !strings.Contains(byPath[path], w) {
				t.Errorf("%s lacks %q:\n%s", path, w, byPath[path])
			}
		}
	}
	for _, path := range []string{"servers/learned/query.go", "servers/learned/plain.go"} {
		if strings.Contains(byPath[path], "Result struct") || strings.Contains(byPath[path], "learned from") {
			t.Errorf("%s has a learned type:\n%s", path, byPath[path])
		}
	}
}
