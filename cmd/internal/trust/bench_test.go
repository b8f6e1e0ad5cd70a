package trust

import (
	"fmt"
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
