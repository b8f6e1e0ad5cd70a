package gen

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/discovery"
)

// TestDocStaleness checks what doc.go says about a listing that is not
// live: from the cache while connecting, or kept after a failure.
func TestDocStaleness(t *testing.T) {
	listed := time.Date(2026, 3, 1, 12, 30, 0, 0, time.FixedZone("CET", 3600))
	tools := []discovery.Tool{{Name: "echo", Raw: []byte(`{"name":"echo","description":"Echo it.","inputSchema":{"type":"object"}}`)}}
	cases := []struct {
		name    string
		snap    discovery.ServerSnapshot
		want    []string
		notWant []string
	}{
		{"live", discovery.ServerSnapshot{Name: "s", State: discovery.StateReady, Tools: tools, ListedAt: listed},
			[]string{"State: ready\n"}, []string{"Listing:", "starts it again"}},
		{"cached while connecting", discovery.ServerSnapshot{Name: "s", State: discovery.StateConnecting, Tools: tools, Stale: true, ListedAt: listed},
			[]string{"State: connecting\n", "Listing: not live, from the cache as listed at 2026-03-01 11:30:00 UTC, while the server connects"}, nil},
		{"failed, kept", discovery.ServerSnapshot{Name: "s", State: discovery.StateFailed, Err: "server process exited (signal: killed)",
			Tools: tools, Stale: true, ListedAt: listed, NextRetry: listed.Add(time.Minute), Restarts: 2},
			[]string{"State: failed: server process exited (signal: killed) (mcpfs starts it again by itself, and at once on the next call)",
				"Listing: not live, as listed at 2026-03-01 11:30:00 UTC, before the server failed", "  - Echo — Echo it."}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var doc string
			for _, f := range Server(tc.snap) {
				if strings.HasSuffix(f.Path, "/doc.go") {
					doc = string(f.Data)
				}
			}
			// Comment lines: compare without the "// " prefixes.
			text := strings.ReplaceAll(doc, "// ", "")
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("doc.go lacks %q:\n%s", w, doc)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(text, w) {
					t.Errorf("doc.go has %q:\n%s", w, doc)
				}
			}
		})
	}
}
