package trust

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/policy"
)

// BenchmarkApply: the view of a catalog of 50 servers with 30 tools each,
// as every catalog the supervisor publishes is turned into a tree.
func BenchmarkApply(b *testing.B) {
	cat := &discovery.Catalog{Version: 1}
	for s := range 50 {
		var tools []discovery.Tool
		for i := range 30 {
			tools = append(tools, tool(fmt.Sprintf("tool_%d", i), "Does a thing with a fairly long description that goes on for a while. Then more.", i%2 == 0))
		}
		cat.Servers = append(cat.Servers, discovery.ServerSnapshot{Name: fmt.Sprintf("s%d", s), Key: fmt.Sprintf("s%d", s), State: discovery.StateReady, Tools: tools})
	}
	v := New(b.TempDir(), policy.Policy{Global: policy.Scope{Deny: []policy.Pattern{{Glob: "*_7"}}, Refuse: []policy.Pattern{{Glob: policy.Destructive}}}}, nil)
	v.Apply(cat)
	b.ResetTimer()
	for b.Loop() {
		v.Apply(cat)
	}
}

// realTools returns the tools of the captured listings of real servers
// (fs/search/testdata/servers), as tools/list gives them.
func realTools(b *testing.B) []json.RawMessage {
	files, err := filepath.Glob("../../../fs/search/testdata/servers/*.json")
	if err != nil || len(files) == 0 {
		b.Fatalf("no captured listings: %v", err)
	}
	var out []json.RawMessage
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		var in struct{ Tools []json.RawMessage }
		if err := json.Unmarshal(data, &in); err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		out = append(out, in.Tools...)
	}
	return out
}

// startCatalog is servers × tools tools made of the real listings under
// new names, with newEvery servers (0: none) listing 10 tools more than
// were pinned.
func startCatalog(b *testing.B, servers, tools int, extra bool) *discovery.Catalog {
	real := realTools(b)
	cat := &discovery.Catalog{Version: 1}
	for s := range servers {
		n := tools
		if extra && s%10 == 0 {
			n += 10
		}
		var ts []discovery.Tool
		for i := range n {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(real[(s*tools+i)%len(real)], &obj); err != nil {
				b.Fatal(err)
			}
			name := fmt.Sprintf("tool_%d", i)
			obj["name"], _ = json.Marshal(name)
			raw, _ := json.Marshal(obj)
			ts = append(ts, discovery.Tool{Name: name, Raw: raw})
		}
		cat.Servers = append(cat.Servers, discovery.ServerSnapshot{Name: fmt.Sprintf("s%d", s), Key: fmt.Sprintf("s%d", s), State: discovery.StateReady, Tools: ts})
	}
	return cat
}

// BenchmarkStart10000: an engine's first Apply over 100 servers × 100
// pinned tools (pins read from disk), with every tenth server listing ten
// tools not trusted yet (shown marked new).
func BenchmarkStart10000(b *testing.B) {
	dir := b.TempDir()
	New(dir, policy.Policy{}, nil).Apply(startCatalog(b, 100, 100, false))
	cat := startCatalog(b, 100, 100, true)
	New(dir, policy.Policy{}, nil).Apply(cat) // pins the new tools, marked new
	var size int64
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			size += fi.Size()
		}
	}
	b.ReportMetric(float64(size), "pin-bytes")
	b.ResetTimer()
	for b.Loop() {
		New(dir, policy.Policy{}, nil).Apply(cat)
	}
}
