package gen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpfs/mcpfs/discovery"
)

// TestDocManyTools: doc.go of a server with more than docToolLines tools
// lists their names only, and stays valid Go.
func TestDocManyTools(t *testing.T) {
	for _, n := range []int{docToolLines, docToolLines + 1} {
		s := discovery.ServerSnapshot{Name: "big", State: discovery.StateReady}
		for i := range n {
			name := fmt.Sprintf("tool_%02d", i)
			s.Tools = append(s.Tools, discovery.Tool{Name: name, Raw: []byte(`{"name":"` + name + `","description":"Does thing ` + fmt.Sprint(i) + `. More.","inputSchema":{"type":"object"}}`)})
		}
		files := Server(s)
		checkServer(t, s, files)
		var doc string
		for _, f := range files {
			if f.Path == "servers/big/doc.go" {
				doc = string(f.Data)
			}
		}
		lines := strings.Contains(doc, "//   - Tool00 — Does thing 0.")
		names := strings.Contains(doc, "// Tool00, Tool01, ") && strings.Contains(doc, "grep -il <word> servers/big/")
		if n <= docToolLines && (!lines || names) {
			t.Errorf("%d tools: want a line per tool with its first sentence:\n%s", n, doc)
		}
		if n > docToolLines && (lines || !names) {
			t.Errorf("%d tools: want the names only:\n%s", n, doc)
		}
	}
}
