package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/check"
)

func TestSettingsFor(t *testing.T) {
	tests := []struct {
		name   string
		config string // the "mcpfs" object
		flags  engine.Flags
		check  func(t *testing.T, rs *engine.Settings)
		err    string // a fragment of the error; "" = none
	}{
		{"defaults", `{}`, engine.Flags{}, func(t *testing.T, rs *engine.Settings) {
			o := rs.Options
			if o.Timeout != exec.DefaultTimeout || o.MaxTimeout != exec.DefaultMaxTimeout || o.Memory != exec.DefaultMemory ||
				o.MaxOutput != exec.DefaultMaxOutput || o.MaxOutputFile != exec.DefaultMaxOutputFile ||
				o.MaxConcurrentCalls != exec.DefaultMaxConcurrentCalls || o.Strict || o.PoolSize != exec.DefaultPoolSize {
				t.Errorf("got %+v, want the exec defaults", o)
			}
			if !slices.Equal(rs.Allow, check.DefaultAllow) {
				t.Errorf("allow: got %v, want DefaultAllow", rs.Allow)
			}
			for _, k := range engine.SettingKeys {
				if rs.From[k] != engine.FromDefault {
					t.Errorf("%s comes from %q, want %q", k, rs.From[k], engine.FromDefault)
				}
			}
		}, ""},
		{"config", `{"imports": {"allow": ["hash/crc32"], "deny": ["net/url"]},
			"limits": {"timeout": "1m", "maxTimeout": "2m", "memory": "512MiB", "output": "4KiB", "outputFile": "1MiB", "concurrentCalls": 2},
			"sandbox": "strict", "pool": 0}`, engine.Flags{}, func(t *testing.T, rs *engine.Settings) {
			o := rs.Options
			if o.Timeout != time.Minute || o.MaxTimeout != 2*time.Minute || o.Memory != 512<<20 || o.MaxOutput != 4<<10 ||
				o.MaxOutputFile != 1<<20 || o.MaxConcurrentCalls != 2 || !o.Strict || o.PoolSize != -1 {
				t.Errorf("got %+v, want the config's values (pool 0 as -1)", o)
			}
			if !slices.Contains(rs.Allow, "hash/crc32") || slices.Contains(rs.Allow, "net/url") {
				t.Errorf("allow: got %v, want hash/crc32 in and net/url out", rs.Allow)
			}
			for _, k := range engine.SettingKeys {
				if rs.From[k] != engine.FromConfig {
					t.Errorf("%s comes from %q, want %q", k, rs.From[k], engine.FromConfig)
				}
			}
			if got, want := rs.Value("imports"), fmt.Sprintf("%d standard packages (+hash/crc32 -net/url)", len(check.DefaultAllow)); got != want {
				t.Errorf("imports: got %q, want %q", got, want)
			}
		}, ""},
		{"flags win", `{"limits": {"timeout": "1m"}, "sandbox": "strict"}`, engine.Flags{Timeout: 5 * time.Second, Sandbox: "auto"}, func(t *testing.T, rs *engine.Settings) {
			if rs.Options.Timeout != 5*time.Second || rs.Options.Strict {
				t.Errorf("got timeout %v strict %v, want 5s and auto", rs.Options.Timeout, rs.Options.Strict)
			}
			if rs.From["timeout"] != "--timeout" || rs.From["sandbox"] != "--sandbox" {
				t.Errorf("from: got %v, want the flags", rs.From)
			}
		}, ""},
		{"short cap shortens the default", `{"limits": {"maxTimeout": "10s"}}`, engine.Flags{}, func(t *testing.T, rs *engine.Settings) {
			if rs.Options.Timeout != 10*time.Second {
				t.Errorf("timeout: got %v, want 10s", rs.Options.Timeout)
			}
		}, ""},
		{"long timeout raises the default cap", `{"limits": {"timeout": "20m"}}`, engine.Flags{}, func(t *testing.T, rs *engine.Settings) {
			if rs.Options.MaxTimeout != 20*time.Minute {
				t.Errorf("maxTimeout: got %v, want 20m", rs.Options.MaxTimeout)
			}
		}, ""},
		{"engine default under the cap", `{"limits": {"maxTimeout": "10s"}}`, engine.Flags{DefaultTimeout: time.Minute}, func(t *testing.T, rs *engine.Settings) {
			if rs.Options.Timeout != 10*time.Second {
				t.Errorf("timeout: got %v, want 10s", rs.Options.Timeout)
			}
		}, ""},
		{"config timeout beats the engine default", `{"limits": {"timeout": "5s"}}`, engine.Flags{DefaultTimeout: time.Minute}, func(t *testing.T, rs *engine.Settings) {
			if rs.Options.Timeout != 5*time.Second {
				t.Errorf("timeout: got %v, want 5s", rs.Options.Timeout)
			}
		}, ""},
		{"output over its maximum", `{"limits": {"output": "512MiB"}}`, engine.Flags{}, nil, "over the maximum of 256MiB"},
		{"output file alone lowers the output", `{"limits": {"outputFile": "4KiB"}}`, engine.Flags{}, func(t *testing.T, rs *engine.Settings) {
			if rs.Options.MaxOutput != 4<<10 || rs.Options.MaxOutputFile != 4<<10 {
				t.Errorf("got output %d file %d, want both 4 KiB", rs.Options.MaxOutput, rs.Options.MaxOutputFile)
			}
		}, ""},
		{"flag over the cap", `{"limits": {"maxTimeout": "1m"}}`, engine.Flags{Timeout: 2 * time.Minute}, nil,
			"--timeout 2m0s is over the longest a run may take, 1m0s (mcpfs.limits.maxTimeout in /cfg/mcp.json)"},
		{"flag over the default cap", `{}`, engine.Flags{Timeout: time.Hour}, nil, "1h0m0s is over the longest a run may take, 10m0s (the default)"},
		{"refused import", `{"imports": {"allow": ["net/http"]}}`, engine.Flags{}, nil,
			`/cfg/mcp.json:1:52: mcpfs.imports.allow[0]: "net/http" can never be allowed in snippets: it opens network connections`},
		{"import not offered", `{"imports": {"allow": ["image/png"]}}`, engine.Flags{}, nil, `"image/png" is not one that snippets can be given`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := discovery.Parse("/cfg/mcp.json", []byte(`{"mcpServers": {}, "mcpfs": `+tt.config+`}`), nil)
			if err != nil {
				if tt.err != "" && strings.Contains(err.Error(), tt.err) {
					return // found by the parser
				}
				t.Fatal(err)
			}
			rs, err := engine.SettingsFor(cfg, tt.flags)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want an error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, rs)
		})
	}
}

// TestEngineAppliesSettings edits the "mcpfs" section of a running
// engine's config: new runs get the new allowlist, a run in progress
// finishes on the runner it started on, and an edit that allows a package
// that can never be allowed is refused while the last good settings stay.
func TestEngineAppliesSettings(t *testing.T) {
	write, g, logs := watchedConfig(t, `{"mcpServers": {}}`)
	cfg, err := g.loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	e := engine.Start(context.Background(), cfg, g.engineOptions(engine.Options{WarmRunner: true}))
	defer e.Close()
	ctx := context.Background()

	const usesURL = "package main\n\nimport (\n\t\"fmt\"\n\t\"net/url\"\n)\n\nfunc main() {\n\tu, _ := url.Parse(\"https://example.com/x\")\n\tfmt.Println(u.Host)\n}\n"
	res, err := e.Run(ctx, "url.go", []byte(usesURL), 0)
	if err != nil || strings.TrimSpace(string(res.Stdout)) != "example.com" {
		t.Fatalf("before the edit: got %v, %v; want example.com", res, err)
	}

	// A run that is still going when the settings change.
	type outcome struct {
		res *exec.Result
		err error
	}
	slow := make(chan outcome, 1)
	started := &firstWrite{c: make(chan struct{})}
	go func() {
		res, err := e.RunWith(ctx, "slow.go", []byte("package main\n\nimport (\n\t\"fmt\"\n\t\"time\"\n)\n\nfunc main() {\n\tfmt.Println(\"started\")\n\ttime.Sleep(2 * time.Second)\n\tfmt.Println(\"slept\")\n}\n"), engine.RunOptions{Stdout: started})
		slow <- outcome{res, err}
	}()
	// It runs on the current runner once it prints.
	select {
	case <-started.c:
	case got := <-slow:
		t.Fatalf("the slow run ended before it printed: %v, %v", got.res, got.err)
	case <-time.After(30 * time.Second):
		t.Fatal("the slow run printed nothing within 30s")
	}

	write(`{"mcpServers": {}, "mcpfs": {"imports": {"deny": ["net/url"]}, "limits": {"timeout": "45s"}}}`)
	waitFor(t, "the new settings", func() bool { return e.Settings().Options.Timeout == 45*time.Second })
	_, err = e.Run(ctx, "url.go", []byte(usesURL), 0)
	var list check.ErrorList
	if !errors.As(err, &list) || !strings.Contains(err.Error(), check.ConfigDenyKey) {
		t.Fatalf("after denying net/url: got %v, want a check error naming %s", err, check.ConfigDenyKey)
	}
	got := <-slow
	if got.err != nil || string(got.res.Stdout) != "started\nslept\n" {
		t.Fatalf("the run in progress: got %v, %v; want it to finish", got.res, got.err)
	}

	// A refused package: reported, the last good settings stay.
	write(`{"mcpServers": {}, "mcpfs": {"imports": {"allow": ["os/exec"]}}}`)
	waitFor(t, "the refusal in the log", func() bool { return strings.Contains(logs.String(), "can never be allowed") })
	if e.Settings().Options.Timeout != 45*time.Second {
		t.Errorf("after a refused edit: timeout %v, want the last good 45s", e.Settings().Options.Timeout)
	}
}

// firstWrite closes c at its first write.
type firstWrite struct {
	once sync.Once
	c    chan struct{}
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.c) })
	return len(p), nil
}

// waitFor polls ok until it holds, failing after a generous deadline.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: gave up", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
