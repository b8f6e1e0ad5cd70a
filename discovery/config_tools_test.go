package discovery

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/mcpfs/mcpfs/discovery/policy"
)

const toolsCfg = `{
  "mcpServers": {"my-docs": {"command": "x"}},
  "mcpfs": {
    "tools": {
      "deny": ["*delete*", "github/merge_*"],
      "refuse": ["destructive"],
      "except": ["my-docs/write_document"],
      "servers": {"my-docs": {"allow": ["list_*", "read_*"], "pin": false}}
    },
    "audit": {"arguments": true, "maxSize": "1MiB", "keep": 5}
  }
}`

func TestParseTools(t *testing.T) {
	cfg, err := Parse(testFile, []byte(toolsCfg), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	pol := cfg.Settings.Tools
	if got := pol.Global.Deny; len(got) != 2 || got[1].Glob != "github/merge_*" || got[1].At != "mcpfs.tools.deny[1] (mcp.json:5:28)" {
		t.Errorf("deny: got %+v", got)
	}
	if got := pol.Global.Refuse; len(got) != 1 || got[0].Glob != policy.Destructive {
		t.Errorf("refuse: got %+v", got)
	}
	s, ok := pol.Servers["my-docs"]
	if !ok || len(s.Allow) != 2 || s.Pin == nil || *s.Pin || !strings.HasPrefix(s.AllowAt, `mcpfs.tools.servers.my-docs.allow (mcp.json:8:`) {
		t.Errorf("servers: got %+v", pol.Servers)
	}
	if a := cfg.Settings.Audit; a != (AuditSettings{Arguments: true, MaxSize: 1 << 20, Keep: 5}) {
		t.Errorf("audit: got %+v", a)
	}
	d := pol.Check(policy.Tool{Server: "my_docs", ServerKey: "my-docs", Name: "write_document", Raw: []byte(`{}`)})
	if !d.Denied || d.Rule != `not in mcpfs.tools.servers.my-docs.allow (mcp.json:8:40)` {
		t.Errorf("write_document: got %+v", d)
	}
	if pol.Pinning("my_docs", "my-docs") {
		t.Error("pinning on, want off")
	}
	if !cfg.Settings.Equal(cfg.Settings) {
		t.Error("settings not Equal to themselves")
	}
	cfg2, _ := Parse(testFile, []byte(strings.Replace(toolsCfg, `"*delete*"`, `"*remove*"`, 1)), noEnv)
	if cfg.Settings.Equal(cfg2.Settings) {
		t.Error("a changed deny pattern: settings Equal")
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings: %q", cfg.Warnings)
	}
}

func TestParseToolsUnknownServerWarns(t *testing.T) {
	cfg, err := Parse(testFile, []byte(`{"mcpServers": {"github": {"command": "x"}}, "mcpfs": {"tools": {"servers": {"gihtub": {"deny": ["x"]}}}}}`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], `mcpfs.tools.servers.gihtub: no server of this name in the config (servers: github)`) {
		t.Errorf("warnings: got %q", cfg.Warnings)
	}
}

func TestParseToolsErrors(t *testing.T) {
	tests := []struct {
		name, in, path string
		line, col      int
		msg            string
	}{
		{"not an object", m + `{"tools": []}}`, "mcpfs.tools", 1, 39, "want an object"},
		{"unknown key", m + `{"tools": {"denny": []}}}`, "mcpfs.tools.denny", 1, 40, `did you mean "deny"?`},
		{"deny not array", m + `{"tools": {"deny": "x"}}}`, "mcpfs.tools.deny", 1, 48, "want an array of tool names or globs"},
		{"deny number", m + `{"tools": {"deny": [1]}}}`, "mcpfs.tools.deny[0]", 1, 49, "want a tool name or glob"},
		{"bad glob", m + `{"tools": {"deny": ["[a"]}}}`, "mcpfs.tools.deny[0]", 1, 49, "not a valid glob"},
		{"two slashes", m + `{"tools": {"allow": ["a/b/c"]}}}`, "mcpfs.tools.allow[0]", 1, 50, `more than one "/"`},
		{"duplicate", m + `{"tools": {"deny": ["x", "x"]}}}`, "mcpfs.tools.deny[1]", 1, 54, "listed twice (first at 1:49)"},
		{"unknown rule", m + `{"tools": {"refuse": ["destructve"]}}}`, "mcpfs.tools.refuse[0]", 1, 51, `did you mean "destructive"?`},
		{"rule not string", m + `{"tools": {"refuse": [true]}}}`, "mcpfs.tools.refuse[0]", 1, 51, "want one of destructive, notReadOnly, openWorld"},
		{"pin not bool", m + `{"tools": {"pin": "no"}}}`, "mcpfs.tools.pin", 1, 47, "want true or false"},
		{"servers in a server", m + `{"tools": {"servers": {"a": {"servers": {}}}}}}`, `mcpfs.tools.servers.a.servers`, 1, 58, "unknown key"},
		{"server scope not object", m + `{"tools": {"servers": {"a": []}}}}`, `mcpfs.tools.servers.a`, 1, 57, "want an object"},
		{"audit unknown key", m + `{"audit": {"args": true}}}`, "mcpfs.audit.args", 1, 40, `unknown key`},
		{"audit small", m + `{"audit": {"maxSize": "1KiB"}}}`, "mcpfs.audit.maxSize", 1, 51, "below the minimum of 64KiB"},
		{"audit keep", m + `{"audit": {"keep": 1000}}}`, "mcpfs.audit.keep", 1, 48, "out of range"},
		{"audit bool", m + `{"audit": {"results": 1}}}`, "mcpfs.audit.results", 1, 51, "want true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(testFile, []byte(tt.in), noEnv)
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *ConfigError", err)
			}
			if ce.JSONPath != tt.path || ce.Line != tt.line || ce.Col != tt.col || !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("got %v (path %q at %d:%d), want %s at %d:%d: ...%s...", err, ce.JSONPath, ce.Line, ce.Col, tt.path, tt.line, tt.col, tt.msg)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	cfg, err := Parse(testFile, []byte(`{"mcpServers": {"gh": {"url": "https://x.example/mcp", "headers": {"Authorization": "Bearer sekrit-token-1"}},
		"fs": {"command": "x", "env": {"API_KEY": "abcdef123456"}}}}`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.Redact(`{"q": "sekrit-token-1 and abcdef123456 and short"}`)
	if want := `{"q": "[redacted] and [redacted] and short"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestParseOAuth(t *testing.T) {
	env := func(k string) (string, bool) {
		if k == "GH_SECRET" {
			return "s3cret-value", true
		}
		return "", false
	}
	cfg, err := Parse(testFile, []byte(`{"mcpServers": {
		"a": {"type": "http", "url": "https://a.example/mcp", "mcpfs": {"oauth": true}},
		"b": {"type": "http", "url": "https://b.example/mcp", "mcpfs": {"oauth": {"clientId": "mcpfs-cli", "clientSecret": "${GH_SECRET}", "scopes": ["repo", "read:org"]}}},
		"c": {"type": "http", "url": "https://c.example/mcp", "mcpfs": {"oauth": false}}}}`), env)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := cfg.Servers[0].OAuth, cfg.Servers[1].OAuth, cfg.Servers[2].OAuth
	if a == nil || a.ClientID != "" || len(a.Scopes) != 0 || c != nil {
		t.Errorf("a: %+v, c: %+v", a, c)
	}
	if b == nil || b.ClientID != "mcpfs-cli" || b.ClientSecret != "s3cret-value" || strings.Join(b.Scopes, " ") != "repo read:org" {
		t.Errorf("b: %+v", b)
	}
	for _, tt := range []struct{ in, msg string }{
		{`{"oauth": "yes"}`, "want true, or an object"},
		{`{"oauth": {"clientID": "x"}}`, `did you mean "clientId"?`},
		{`{"oauth": {"scopes": "repo"}}`, "want an array of strings"},
	} {
		_, err := Parse(testFile, []byte(`{"mcpServers": {"a": {"type": "http", "url": "https://a.example/mcp", "mcpfs": `+tt.in+`}}}`), noEnv)
		if err == nil || !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), "mcpServers.a.mcpfs.oauth") {
			t.Errorf("%s: got %v, want %q", tt.in, err, tt.msg)
		}
	}
}

func TestOAuthStore(t *testing.T) {
	dir := t.TempDir()
	s := NewOAuthStore(dir, "remote")
	ctx := t.Context()
	if _, err := s.GetToken(ctx); !errors.Is(err, transport.ErrNoToken) {
		t.Fatalf("empty store: got %v, want ErrNoToken", err)
	}
	if err := s.Save(OAuthLogin{ClientID: "c1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveToken(ctx, &transport.Token{AccessToken: "at", RefreshToken: "rt", ExpiresIn: 60}); err != nil {
		t.Fatal(err)
	}
	l, err := s.Load()
	if err != nil || l.ClientID != "c1" || l.Token.AccessToken != "at" || time.Until(l.Token.ExpiresAt) < 50*time.Second {
		t.Fatalf("kept %+v %v", l, err)
	}
	tok, err := s.GetToken(ctx)
	if err != nil || time.Until(tok.ExpiresAt) > 31*time.Second || tok.IsExpired() {
		t.Errorf("GetToken: %+v %v; want it to expire 30s early", tok, err)
	}
	fi, err := os.Stat(filepath.Join(dir, "remote.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file: %v %v", fi, err)
	}
	if err := NewOAuthStore(dir, "remote").SaveToken(ctx, &transport.Token{AccessToken: "at2"}); err != nil {
		t.Fatal(err)
	}
	if l, _ := s.Load(); l.ClientID != "c1" || l.Token.AccessToken != "at2" {
		t.Errorf("a new token lost the client: %+v", l)
	}
}
