package discovery

import (
	"strings"
	"testing"
	"time"
)

// TestMcpfsServerOptions checks the "mcpfs" object of a server entry.
func TestMcpfsServerOptions(t *testing.T) {
	cases := []struct {
		name, entry  string
		call, cache  time.Duration
		errHas, warn string
		list         int64
	}{
		{"durations", `{"command": "x", "mcpfs": {"cacheResults": "10m", "callTimeout": "90s"}}`, 90 * time.Second, 10 * time.Minute, "", "", 0},
		{"milliseconds", `{"command": "x", "mcpfs": {"callTimeout": 1500}}`, 1500 * time.Millisecond, 0, "", "", 0},
		{"unknown key", `{"command": "x", "mcpfs": {"cacheResult": "1m"}}`, 0, 0, "", "mcpServers.s.mcpfs.cacheResult: unknown key", 0},
		{"not an object", `{"command": "x", "mcpfs": true}`, 0, 0, `mcpServers.s.mcpfs: want an object like {"cacheResults": "10m"`, "", 0},
		{"bad duration", `{"command": "x", "mcpfs": {"cacheResults": "ten minutes"}}`, 0, 0, `mcpServers.s.mcpfs.cacheResults: want a positive duration like "30s" or "10m", got "ten minutes"`, "", 0},
		{"negative", `{"command": "x", "mcpfs": {"callTimeout": "-1s"}}`, 0, 0, "want a positive duration", "", 0},
		{"too long", `{"command": "x", "mcpfs": {"cacheResults": "48h"}}`, 0, 0, "is over 24h0m0s", "", 0},
		{"list size", `{"command": "x", "mcpfs": {"maxListBytes": "64MiB"}}`, 0, 0, "", "", 64 << 20},
		{"list size in bytes", `{"command": "x", "mcpfs": {"maxListBytes": 100000}}`, 0, 0, "", "", 100000},
		{"list size too small", `{"command": "x", "mcpfs": {"maxListBytes": "1KiB"}}`, 0, 0, "mcpServers.s.mcpfs.maxListBytes", "", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse("servers.json", []byte(`{"mcpServers": {"s": `+tc.entry+`}}`), func(string) (string, bool) { return "", false })
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("got %v, want an error containing %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sc := cfg.Servers[0]
			if sc.MaxListBytes != tc.list {
				t.Errorf("got maxListBytes %d, want %d", sc.MaxListBytes, tc.list)
			}
			if sc.CallTimeout != tc.call || sc.CacheResults != tc.cache {
				t.Errorf("got callTimeout %v cacheResults %v, want %v and %v", sc.CallTimeout, sc.CacheResults, tc.call, tc.cache)
			}
			if tc.warn != "" && !strings.Contains(strings.Join(cfg.Warnings, "\n"), tc.warn) {
				t.Errorf("warnings: got %q, want one containing %q", cfg.Warnings, tc.warn)
			}
		})
	}
}
