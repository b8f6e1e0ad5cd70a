package discovery

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// env returns a lookupEnv function over a fixed map.
func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

var noEnv = env(nil)

const testFile = "/cfg/mcp.json"

// m starts a config whose "mcpfs" object comes next (at 1:29).
const m = `{"mcpServers": {}, "mcpfs": `

func TestParseErrors(t *testing.T) {
	deep := `{"mcpfs": {"x": ` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}, "mcpServers": {}}`
	tests := []struct {
		name      string
		in        string
		path      string // want JSONPath exactly
		line, col int    // want position; 0 = no position
		msg       string // want a fragment of Msg
	}{
		// Bytes that are not JSON text.
		{"empty file", ``, "", 0, 0, "file is empty"},
		{"whitespace only", " \n\t\r\n", "", 0, 0, "only whitespace"},
		{"utf-16 bom", "\xff\xfe{\x00}\x00", "", 0, 0, "UTF-16"},
		{"invalid utf-8", "{\n  \"mcpServers\": {\"caf\xe9\": {}}\n}", "", 2, 22, "invalid UTF-8 (byte 0xe9)"},
		{"too large", `{"mcpServers": {}, "x": "` + strings.Repeat("a", maxConfigSize) + `"}`, "", 0, 0, "at most 4194304 bytes"},

		// Syntax.
		{"truncated object", `{"mcpServers": {"a": {"command": "x"`, "mcpServers.a", 1, 37, "object opened at 1:22 is not closed"},
		{"truncated in string", `{"mcpServers": {"a`, "mcpServers", 1, 19, "string opened at 1:17 is not closed"},
		{"truncated after colon", `{"mcpServers":`, "", 1, 15, "not closed"},
		{"truncated array", `{"mcpServers": {"a": {"args": ["x"`, "mcpServers.a.args", 1, 35, "array opened at 1:31 is not closed"},
		{"trailing comma object", "{\"mcpServers\": {\n  \"a\": {\"command\": \"x\",}\n}}", "mcpServers.a", 2, 23, "trailing comma before }"},
		{"trailing comma array", `{"mcpServers": {"a": {"command": "x", "args": ["y",]}}}`, "mcpServers.a.args", 1, 51, "trailing comma before ]"},
		{"line comment", "{\n  // my servers\n  \"mcpServers\": {}\n}", "", 2, 3, "JSON does not allow comments"},
		{"block comment after value", `{"mcpServers": {} /* none yet */}`, "", 1, 19, "JSON does not allow comments"},
		{"hash comment", "{\n# servers\n\"mcpServers\": {}}", "", 2, 1, "# is not a comment"},
		{"single quotes", `{'mcpServers': {}}`, "", 1, 2, "double quotes, not single quotes"},
		{"unquoted key", `{mcpServers: {}}`, "", 1, 2, `object key mcpServers must be in double quotes`},
		{"missing colon", `{"mcpServers" {}}`, "", 1, 15, `expected : after object key "mcpServers"`},
		{"missing comma between members", "{\"mcpServers\": {\"a\": {\"command\": \"x\"\n \"args\": []}}}", "mcpServers.a", 2, 2, `missing comma after the value of "command"`},
		{"missing comma between elements", `{"mcpServers": {"a": {"command": "x", "args": ["y" "z"]}}}`, "mcpServers.a.args", 1, 52, "missing comma between array elements"},
		{"capitalised literal", `{"mcpServers": {"a": {"command": "x", "disabled": True}}}`, "mcpServers.a.disabled", 1, 51, `unexpected word "True"`},
		{"NaN", `{"mcpServers": {"a": {"command": "x", "timeout": NaN}}}`, "mcpServers.a.timeout", 1, 50, `unexpected word "NaN"`},
		{"leading zero", `{"mcpServers": {"a": {"command": "x", "timeout": 0100}}}`, "mcpServers.a.timeout", 1, 50, `invalid number "0100"`},
		{"windows path escape", `{"mcpServers": {"a": {"command": "C:\tools\srv.exe"}}}`, "mcpServers.a.command", 1, 43, `invalid escape \s`},
		{"raw line break in string", "{\"mcpServers\": {\"a\": {\"command\": \"x\ny\"}}}", "mcpServers.a.command", 1, 36, "line break inside a string"},
		{"data after top level", `{"mcpServers": {}} {}`, "", 1, 20, "after the end of the top-level value"},
		{"extra closing brace", `{"mcpServers": {}}}`, "", 1, 19, `is there an extra '}'?`},
		{"deep nesting", deep, "mcpfs.x" + strings.Repeat("[0]", 98), 1, 115, "nested deeper than 100 levels"},

		// Top level.
		{"top-level array", `[{"mcpServers": {}}]`, "", 1, 1, "top level must be an object like {\"mcpServers\": {...}}, got an array"},
		{"top-level string", `"mcpServers"`, "", 1, 1, "got a string"},
		{"both mcpServers and servers", "{\"mcpServers\": {},\n \"servers\": {}}", "", 2, 2, `both "mcpServers" and "servers" are present`},
		{"neither mcpServers nor servers", `{"globalShortcut": "Ctrl+Space"}`, "", 1, 1, `no "mcpServers" object`},
		{"mcpfs not an object", `{"mcpServers": {}, "mcpfs": true}`, "mcpfs", 1, 29, "want an object (mcpfs's own settings), got a boolean"},
		{"mcpServers not an object", `{"mcpServers": []}`, "mcpServers", 1, 16, "want an object mapping server names to servers"},
		{"mcpServers null", `{"mcpServers": null}`, "mcpServers", 1, 16, "got null"},
		{"duplicate top-level key", `{"mcpServers": {}, "mcpServers": {}}`, "mcpServers", 1, 20, "duplicate key (first at 1:2)"},

		// Server names.
		{"server not an object", `{"mcpServers": {"a": "npx"}}`, "mcpServers.a", 1, 22, "want an object like"},
		{"duplicate server key", "{\"mcpServers\": {\n  \"a\": {\"command\": \"x\"},\n  \"a\": {\"command\": \"y\"}}}", "mcpServers.a", 3, 3, "duplicate key (first at 2:3)"},
		{"same after normalisation", `{"mcpServers": {"GitHub": {"command": "x"}, "github": {"command": "y"}}}`, "mcpServers.github", 1, 45, `server names "GitHub" and "github" both become "github"`},
		{"empty name", `{"mcpServers": {"": {"command": "x"}}}`, `mcpServers[""]`, 1, 17, "empty server name"},
		{"blank name", `{"mcpServers": {"  ": {"command": "x"}}}`, `mcpServers["  "]`, 1, 17, "empty server name"},

		// command, url, type.
		{"neither command nor url", `{"mcpServers": {"a": {"args": []}}}`, "mcpServers.a", 1, 22, `no "command" or "url"`},
		{"both command and url", `{"mcpServers": {"a": {"command": "x", "url": "http://h/mcp"}}}`, "mcpServers.a.url", 1, 46, "not both"},
		{"empty command", `{"mcpServers": {"a": {"command": ""}}}`, "mcpServers.a.command", 1, 34, "is empty"},
		{"command an array", `{"mcpServers": {"a": {"command": ["npx", "-y"]}}}`, "mcpServers.a.command", 1, 34, `put the program in "command" and the rest in "args"`},
		{"command a number", `{"mcpServers": {"a": {"command": 1}}}`, "mcpServers.a.command", 1, 34, "want a string, got a number"},
		{"unknown type", `{"mcpServers": {"a": {"type": "websocket", "url": "ws://h"}}}`, "mcpServers.a.type", 1, 31, `unknown type "websocket"`},
		{"type not a string", `{"mcpServers": {"a": {"type": 1, "command": "x"}}}`, "mcpServers.a.type", 1, 31, "want a string, got a number"},
		{"type stdio with url", `{"mcpServers": {"a": {"type": "stdio", "url": "http://h/mcp"}}}`, "mcpServers.a.type", 1, 31, `type "stdio" needs a "command"`},
		{"type http without url", `{"mcpServers": {"a": {"type": "http", "command": "x"}}}`, "mcpServers.a.type", 1, 31, `type "http" needs a "url"`},
		{"type sse without url", `{"servers": {"a": {"type": "sse", "command": "x"}}}`, "servers.a.type", 1, 28, `type "sse" needs a "url"`},
		{"bad url", `{"mcpServers": {"a": {"url": "http://[::1"}}}`, "mcpServers.a.url", 1, 30, "not a valid URL"},
		{"ftp url", `{"mcpServers": {"a": {"url": "ftp://h/mcp"}}}`, "mcpServers.a.url", 1, 30, `unsupported scheme "ftp"`},
		{"url without scheme", `{"mcpServers": {"a": {"url": "localhost:3000/mcp"}}}`, "mcpServers.a.url", 1, 30, "is http:// or https:// missing?"},
		{"relative url", `{"mcpServers": {"a": {"url": "/mcp"}}}`, "mcpServers.a.url", 1, 30, "not an absolute URL"},
		{"url without host", `{"mcpServers": {"a": {"url": "http:///mcp"}}}`, "mcpServers.a.url", 1, 30, "no host"},

		// Field types.
		{"args a string", "{\n  \"mcpServers\": {\n    \"github\": {\n      \"args\": \"x\",\n      \"command\": \"gh\"}}}", "mcpServers.github.args", 4, 15, "want an array of strings, got a string"},
		{"args with a number", `{"mcpServers": {"a": {"command": "x", "args": ["-p", 80]}}}`, "mcpServers.a.args[1]", 1, 54, "want a string, got a number; put it in double quotes"},
		{"args with null", `{"mcpServers": {"a": {"command": "x", "args": [null]}}}`, "mcpServers.a.args[0]", 1, 48, "got null"},
		{"dotted key path", `{"mcpServers": {"my.server": {"command": "x", "args": ["a", "b", {}]}}}`, `mcpServers["my.server"].args[2]`, 1, 66, "got an object"},
		{"env not an object", `{"mcpServers": {"a": {"command": "x", "env": ["A=1"]}}}`, "mcpServers.a.env", 1, 46, "want an object of strings, got an array"},
		{"env value an object", `{"mcpServers": {"a": {"command": "x", "env": {"A": {"v": 1}}}}}`, "mcpServers.a.env.A", 1, 52, "want a string, got an object"},
		{"env value null", `{"mcpServers": {"a": {"command": "x", "env": {"A": null}}}}`, "mcpServers.a.env.A", 1, 52, "got null"},
		{"env name with =", `{"mcpServers": {"a": {"command": "x", "env": {"A=B": "1"}}}}`, `mcpServers.a.env["A=B"]`, 1, 47, "invalid environment variable name"},
		{"env duplicate name", `{"mcpServers": {"a": {"command": "x", "env": {"A": "1", "A": "2"}}}}`, "mcpServers.a.env.A", 1, 57, "duplicate key (first at 1:47)"},
		{"headers not an object", `{"mcpServers": {"a": {"url": "http://h", "headers": "Bearer x"}}}`, "mcpServers.a.headers", 1, 53, "want an object of strings, got a string"},
		{"header value a number", `{"mcpServers": {"a": {"url": "http://h", "headers": {"X-N": 1}}}}`, "mcpServers.a.headers.X-N", 1, 61, "want a string, got a number"},
		{"header name invalid", `{"mcpServers": {"a": {"url": "http://h", "headers": {"X Key": "1"}}}}`, `mcpServers.a.headers["X Key"]`, 1, 54, "invalid HTTP header name"},
		{"header value line break", `{"mcpServers": {"a": {"url": "http://h", "headers": {"X": "a\nb"}}}}`, "mcpServers.a.headers.X", 1, 59, "line break"},
		{"disabled not a bool", `{"mcpServers": {"a": {"command": "x", "disabled": "true"}}}`, "mcpServers.a.disabled", 1, 51, "want true or false, got a string"},
		{"timeout negative", `{"mcpServers": {"a": {"command": "x", "timeout": -5}}}`, "mcpServers.a.timeout", 1, 50, "want a positive number of milliseconds, got -5"},
		{"timeout zero", `{"mcpServers": {"a": {"command": "x", "timeout": 0}}}`, "mcpServers.a.timeout", 1, 50, "positive"},
		{"timeout a string", `{"mcpServers": {"a": {"command": "x", "timeout": "30s"}}}`, "mcpServers.a.timeout", 1, 50, "want a number of milliseconds, got a string"},
		{"timeout huge", `{"mcpServers": {"a": {"command": "x", "timeout": 1e300}}}`, "mcpServers.a.timeout", 1, 50, "is over 24h0m0s"},
		{"duplicate key in server", `{"mcpServers": {"a": {"command": "x", "command": "y"}}}`, "mcpServers.a.command", 1, 39, "duplicate key (first at 1:23)"},
		{"vscode dialect path", `{"servers": {"a": {"type": "stdio"}}}`, "servers.a", 1, 19, `no "command" or "url"`},

		// The top-level "mcpfs" section: every key is mcpfs's, so unknown
		// ones are errors (a misspelt setting must not leave a default).
		{"mcpfs unknown key suggested", m + `{"sandbx": "strict"}}`, "mcpfs.sandbx", 1, 30, `unknown key; did you mean "sandbox"? (known: imports, limits, sandbox, pool, engine, tools, audit)`},
		{"mcpfs unknown key case", m + `{"Pool": 1}}`, "mcpfs.Pool", 1, 30, `did you mean "pool"?`},
		{"mcpfs unknown key", m + `{"colour": 1}}`, "mcpfs.colour", 1, 30, "unknown key (known: imports, limits, sandbox, pool, engine, tools, audit)"},
		{"mcpfs duplicate key", m + `{"pool": 1, "pool": 2}}`, "mcpfs.pool", 1, 41, "duplicate key (first at 1:30)"},
		{"imports not an object", m + `{"imports": ["fmt"]}}`, "mcpfs.imports", 1, 41, `want an object like {"allow": ["crypto/sha256"]`},
		{"imports unknown key", m + `{"imports": {"alow": []}}}`, "mcpfs.imports.alow", 1, 42, `did you mean "allow"?`},
		{"allow not an array", m + `{"imports": {"allow": "crypto/sha256"}}}`, "mcpfs.imports.allow", 1, 51, "want an array of import paths"},
		{"allow entry a number", m + `{"imports": {"allow": [5]}}}`, "mcpfs.imports.allow[0]", 1, 52, "want an import path in double quotes"},
		{"allow entry empty", m + `{"imports": {"allow": [""]}}}`, "mcpfs.imports.allow[0]", 1, 52, "is empty"},
		{"allow entry with a space", m + `{"imports": {"allow": ["crypto sha256"]}}}`, "mcpfs.imports.allow[0]", 1, 52, `"crypto sha256" is not an import path: it holds ' '`},
		{"allow entry dot dot", m + `{"imports": {"allow": ["fmt/../os"]}}}`, "mcpfs.imports.allow[0]", 1, 52, `has a ".." element`},
		{"allow entry trailing slash", m + `{"imports": {"allow": ["crypto/"]}}}`, "mcpfs.imports.allow[0]", 1, 52, "empty element"},
		{"allow a tree package", m + `{"imports": {"allow": ["mcpfs/servers/x"]}}}`, "mcpfs.imports.allow[0]", 1, 52, "is a package of the tree"},
		{"allow twice", m + `{"imports": {"allow": ["hash", "hash"]}}}`, "mcpfs.imports.allow[1]", 1, 60, `"hash" is listed twice (first at 1:52)`},
		{"deny not an array", m + `{"imports": {"deny": {}}}}`, "mcpfs.imports.deny", 1, 50, "got an object"},
		{"allowed and denied", "{\"mcpServers\": {}, \"mcpfs\": {\"imports\": {\n  \"allow\": [\"hash\"],\n  \"deny\": [\"fmt\", \"hash\"]}}}", "mcpfs.imports.deny[1]", 3, 19, `"hash" is also in allow (at 2:13); keep it in one of them`},
		{"limits not an object", m + `{"limits": 30}}`, "mcpfs.limits", 1, 40, `want an object like {"timeout": "30s"`},
		{"limits unknown key", m + `{"limits": {"timout": "1s"}}}`, "mcpfs.limits.timout", 1, 41, `did you mean "timeout"?`},
		{"limits cpu", m + `{"limits": {"cpu": 2}}}`, "mcpfs.limits.cpu", 1, 41, "not a setting: the CPU time of a run follows from its time limit"},
		{"limits openFiles", m + `{"limits": {"openFiles": 64}}}`, "mcpfs.limits.openFiles", 1, 41, "descriptor limit (32) is fixed"},
		{"limits processes", m + `{"limits": {"processes": 4}}}`, "mcpfs.limits.processes", 1, 41, "cannot start processes"},
		{"limits duplicate key", m + `{"limits": {"memory": "1GiB", "memory": "2GiB"}}}`, "mcpfs.limits.memory", 1, 59, "duplicate key (first at 1:41)"},
		{"limits timeout words", m + `{"limits": {"timeout": "30 seconds"}}}`, "mcpfs.limits.timeout", 1, 52, `want a positive duration like "30s" or "10m", got "30 seconds"`},
		{"limits timeout negative", m + `{"limits": {"timeout": "-1s"}}}`, "mcpfs.limits.timeout", 1, 52, "want a positive duration"},
		{"limits timeout bool", m + `{"limits": {"timeout": true}}}`, "mcpfs.limits.timeout", 1, 52, `want a duration like "30s" or "10m", or a number of milliseconds, got a boolean`},
		{"limits maxTimeout huge", m + `{"limits": {"maxTimeout": "48h"}}}`, "mcpfs.limits.maxTimeout", 1, 55, "is over 24h0m0s"},
		{"limits timeout over max", m + `{"limits": {"timeout": "20m", "maxTimeout": "10m"}}}`, "mcpfs.limits.timeout", 1, 52, "timeout 20m0s is over maxTimeout 10m0s (at 1:73); lower timeout or raise maxTimeout"},
		{"limits memory small", m + `{"limits": {"memory": "128MiB"}}}`, "mcpfs.limits.memory", 1, 51, "128MiB is below the minimum of 256MiB"},
		{"limits memory unit", m + `{"limits": {"memory": "1G"}}}`, "mcpfs.limits.memory", 1, 51, `want a size like "512MiB" or "1GiB", or a number of bytes, got "1G" (units: B, KiB`},
		{"limits memory words", m + `{"limits": {"memory": "lots"}}}`, "mcpfs.limits.memory", 1, 51, `got "lots"`},
		{"limits memory fraction", m + `{"limits": {"memory": 1.5e9}}}`, "mcpfs.limits.memory", 1, 51, "want a whole number of bytes"},
		{"limits memory huge", m + `{"limits": {"memory": "2TiB"}}}`, "mcpfs.limits.memory", 1, 51, "2TiB is over the maximum of 1TiB"},
		{"engine treeMemory small", m + `{"engine": {"treeMemory": "100KiB"}}}`, "mcpfs.engine.treeMemory", 1, 55, "100KiB is below the minimum of 1MiB"},
		{"limits memory an array", m + `{"limits": {"memory": [1]}}}`, "mcpfs.limits.memory", 1, 51, "got an array"},
		{"limits output tiny", m + `{"limits": {"output": 10}}}`, "mcpfs.limits.output", 1, 51, "10B is below the minimum of 1KiB"},
		{"limits output over file", m + `{"limits": {"outputFile": "1MiB", "output": "2MiB"}}}`, "mcpfs.limits.output", 1, 73, "output 2MiB is over outputFile 1MiB (at 1:55)"},
		{"limits calls zero", m + `{"limits": {"concurrentCalls": 0}}}`, "mcpfs.limits.concurrentCalls", 1, 60, "0 tool calls is out of range; want 1 to 1024"},
		{"limits calls a string", m + `{"limits": {"concurrentCalls": "16"}}}`, "mcpfs.limits.concurrentCalls", 1, 60, "want a whole number, got a string"},
		{"limits calls fraction", m + `{"limits": {"concurrentCalls": 2.5}}}`, "mcpfs.limits.concurrentCalls", 1, 60, "want a whole number from 1 to 1024, got 2.5"},
		{"sandbox unknown mode", m + `{"sandbox": "default"}}`, "mcpfs.sandbox", 1, 41, `unknown sandbox mode "default"; want "strict"`},
		{"sandbox a bool", m + `{"sandbox": true}}`, "mcpfs.sandbox", 1, 41, `want "auto" or "strict", got a boolean`},
		{"pool too big", m + `{"pool": 17}}`, "mcpfs.pool", 1, 38, "17 workers is out of range; want 0 to 16"},
		{"pool negative", m + `{"pool": -1}}`, "mcpfs.pool", 1, 38, "out of range"},
		{"pool multi-line", "{\n  \"mcpfs\": {\n    \"pool\": \"2\"\n  },\n  \"mcpServers\": {}\n}", "mcpfs.pool", 3, 13, "want a whole number, got a string"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		if seen[tt.name] {
			t.Fatalf("duplicate test name %q", tt.name)
		}
		seen[tt.name] = true
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(testFile, []byte(tt.in), noEnv)
			if err == nil {
				t.Fatalf("Parse succeeded with %d servers, want an error containing %q", len(cfg.Servers), tt.msg)
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("errors.Is(err, ErrConfig) = false for %v", err)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("got %T %v, want *ConfigError", err, err)
			}
			if ce.File != testFile {
				t.Errorf("File: got %q, want %q", ce.File, testFile)
			}
			if ce.JSONPath != tt.path {
				t.Errorf("JSONPath: got %q, want %q (%v)", ce.JSONPath, tt.path, err)
			}
			if ce.Line != tt.line || ce.Col != tt.col {
				t.Errorf("position: got %d:%d, want %d:%d (%v)", ce.Line, ce.Col, tt.line, tt.col, err)
			}
			if !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("Msg: got %q, want it to contain %q", ce.Msg, tt.msg)
			}
		})
	}
	if len(tests) < 35 {
		t.Errorf("only %d malformed configs; keep at least 35", len(tests))
	}
}

func TestConfigErrorString(t *testing.T) {
	tests := []struct {
		err  ConfigError
		want string
	}{
		{ConfigError{File: "/home/u/.mcp.json", JSONPath: "mcpServers.github.args", Line: 4, Col: 15, Msg: "want an array of strings, got a string"},
			"/home/u/.mcp.json:4:15: mcpServers.github.args: want an array of strings, got a string"},
		{ConfigError{File: "/f.json", Line: 2, Col: 3, Msg: "m"}, "/f.json:2:3: m"},
		{ConfigError{File: "/f.json", Msg: "file is empty"}, "/f.json: file is empty"},
		{ConfigError{JSONPath: "mcpServers", Line: 1, Col: 2, Msg: "m"}, "1:2: mcpServers: m"},
		{ConfigError{JSONPath: "mcpServers.a", Msg: "m"}, "mcpServers.a: m"},
		{ConfigError{Msg: "m"}, "m"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	wrapped := &ConfigError{File: "/x", Msg: "no such file", Err: os.ErrNotExist}
	if !errors.Is(wrapped, ErrConfig) || !errors.Is(wrapped, os.ErrNotExist) {
		t.Errorf("errors.Is: want both ErrConfig and the underlying error to match")
	}
}

func TestJSONPathKey(t *testing.T) {
	tests := []struct{ base, key, want string }{
		{"", "mcpServers", "mcpServers"},
		{"mcpServers", "my-server_2", "mcpServers.my-server_2"},
		{"mcpServers", "my.server", `mcpServers["my.server"]`},
		{"mcpServers", "my server", `mcpServers["my server"]`},
		{"mcpServers", "", `mcpServers[""]`},
		{"mcpServers", `a"b`, `mcpServers["a\"b"]`},
		{"", "a.b", `["a.b"]`},
	}
	for _, tt := range tests {
		if got := jsonPathKey(tt.base, tt.key); got != tt.want {
			t.Errorf("jsonPathKey(%q, %q): got %s, want %s", tt.base, tt.key, got, tt.want)
		}
	}
	if got := jsonPathIndex(`mcpServers["my.server"].args`, 2); got != `mcpServers["my.server"].args[2]` {
		t.Errorf("jsonPathIndex: got %s", got)
	}
}

// testdataFile returns the absolute path of a file under testdata/config.
func testdataFile(t *testing.T, name string) (path string, data []byte) {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", "config", name))
	if err != nil {
		t.Fatal(err)
	}
	data, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

func TestParseDialects(t *testing.T) {
	tests := []struct {
		file     string
		env      map[string]string
		format   string
		servers  []ServerConfig // Cwd and Command may hold DIR for the file's directory
		warnings []string       // fragments, in order
	}{
		{
			file:   "claude_desktop.json",
			env:    map[string]string{"GITHUB_TOKEN": "ghp_secret"},
			format: "mcpServers",
			servers: []ServerConfig{
				{Name: "filesystem", Key: "filesystem", Transport: "stdio", Command: "npx",
					Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/u/Desktop", "/home/u/Downloads"}},
				{Name: "github", Key: "GitHub", Transport: "stdio", Command: "docker",
					Args: []string{"run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"},
					Env:  map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret", "PORT": "8080", "DEBUG": "false"}},
				{Name: "local_tool", Key: "local-tool", Transport: "stdio", Command: "DIR/bin/tool",
					Args: []string{"--verbose"}, Cwd: "DIR/work", Timeout: 15 * time.Second},
				{Name: "old", Key: "old", Transport: "stdio", Command: "old-server", Disabled: true},
			},
		},
		{
			file:   "claude_code/.mcp.json",
			env:    map[string]string{"SENTRY_TOKEN": "st"},
			format: "mcpServers",
			servers: []ServerConfig{
				{Name: "asana", Key: "asana", Transport: "http", URL: "https://mcp.asana.com/v2/mcp"},
				{Name: "everything", Key: "everything", Transport: "stdio", Command: "mcp-server-everything",
					Env: map[string]string{"LOG_LEVEL": "info"}},
				{Name: "linear", Key: "linear", Transport: "sse", URL: "https://mcp.linear.app/sse"},
				{Name: "notion", Key: "notion", Transport: "http", URL: "https://mcp.notion.com/mcp"},
				{Name: "sentry", Key: "sentry", Transport: "http", URL: "https://mcp.sentry.dev/mcp",
					Headers: map[string]string{"Authorization": "Bearer st"}},
			},
		},
		{
			file:   "cursor.json",
			format: "mcpServers",
			servers: []ServerConfig{
				{Name: "legacy", Key: "legacy", Transport: "sse", URL: "http://localhost:3001/sse"},
				{Name: "memory", Key: "memory", Transport: "stdio", Command: "mcp-server-memory"},
				{Name: "remote", Key: "remote", Transport: "http", URL: "http://localhost:3000/mcp",
					Headers: map[string]string{"X-Api-Key": "dev-key"}},
			},
		},
		{
			file:   "vscode/.vscode/mcp.json",
			format: "servers",
			servers: []ServerConfig{
				{Name: "fetch", Key: "fetch", Transport: "stdio", Command: "uvx",
					Args: []string{"mcp-server-fetch", "--root", "WS/docs"}},
				{Name: "github", Key: "github", Transport: "http", URL: "https://api.githubcopilot.com/mcp/"},
				{Name: "perplexity", Key: "perplexity", Transport: "stdio", Command: "npx",
					Args: []string{"-y", "server-perplexity-ask"},
					Env:  map[string]string{"PERPLEXITY_API_KEY": ""},
					Err:  "servers.perplexity.env.PERPLEXITY_API_KEY: ${input:perplexity-key} is an editor-only reference (a VS Code input)"},
			},
			warnings: []string{"mcp.json:16:7: servers.fetch.envFile: envFile is not supported"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path, data := testdataFile(t, tt.file)
			cfg, err := Parse(path, data, env(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Path != path || cfg.Format != tt.format {
				t.Errorf("Path, Format: got %q, %q; want %q, %q", cfg.Path, cfg.Format, path, tt.format)
			}
			dir := filepath.Dir(path)
			r := strings.NewReplacer("DIR", dir, "WS", filepath.Dir(dir))
			if len(cfg.Servers) != len(tt.servers) {
				t.Fatalf("got %d servers, want %d: %+v", len(cfg.Servers), len(tt.servers), cfg.Servers)
			}
			for i, want := range tt.servers {
				got := cfg.Servers[i]
				want.Command = r.Replace(want.Command)
				want.Cwd = r.Replace(want.Cwd)
				for j := range want.Args {
					want.Args[j] = r.Replace(want.Args[j])
				}
				// Err: compare a prefix, the rest is advice.
				if want.Err != "" && strings.HasPrefix(got.Err, want.Err) {
					want.Err = got.Err
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("server %d:\n got %+v\nwant %+v", i, got, want)
				}
			}
			if len(cfg.Warnings) != len(tt.warnings) {
				t.Fatalf("warnings: got %q, want %d", cfg.Warnings, len(tt.warnings))
			}
			for i, w := range tt.warnings {
				if !strings.Contains(cfg.Warnings[i], w) {
					t.Errorf("warning %d: got %q, want it to contain %q", i, cfg.Warnings[i], w)
				}
			}
		})
	}
}

func TestParseBOM(t *testing.T) {
	cfg, err := Parse(testFile, []byte("\xef\xbb\xbf{\"mcpServers\": {\"a\": {\"command\": \"x\"}}}"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 1 || cfg.Servers[0].Command != "x" {
		t.Errorf("got %+v, want one server with command x", cfg.Servers)
	}
	// Positions count from after the mark.
	_, err = Parse(testFile, []byte("\xef\xbb\xbf{\"mcpServers\": []}"), noEnv)
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Line != 1 || ce.Col != 16 {
		t.Errorf("got %v, want an error at 1:16", err)
	}
}

func TestParseWarnings(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // fragments, in order
	}{
		{"unknown top-level keys are silent", `{"globalShortcut": "x", "inputs": 5, "mcpServers": {"a": {"command": "x"}}}`, nil},
		{"unknown server key", `{"mcpServers": {"a": {"command": "x", "autoApprove": []}}}`,
			[]string{testFile + ":1:39: mcpServers.a.autoApprove: unknown key, ignored"}},
		{"args on an http server", `{"mcpServers": {"a": {"url": "http://h/mcp", "args": ["x"]}}}`,
			[]string{"mcpServers.a.args: args is for stdio servers; ignored for an http server"}},
		{"headers on a stdio server", `{"mcpServers": {"a": {"command": "x", "headers": {}}}}`,
			[]string{"mcpServers.a.headers: headers are for http and sse servers"}},
		{"no servers", `{"mcpServers": {}}`, []string{"mcpServers: no servers configured"}},
		{"mcpfs settings accepted", `{"mcpfs": {"sandbox": "strict", "limits": {"timeout": "1m"}}, "servers": {"a": {"command": "x"}}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(testFile, []byte(tt.in), noEnv)
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Warnings) != len(tt.want) {
				t.Fatalf("got warnings %q, want %d", cfg.Warnings, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(cfg.Warnings[i], w) {
					t.Errorf("warning %d: got %q, want it to contain %q", i, cfg.Warnings[i], w)
				}
			}
		})
	}
}

func TestParseWarningsCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"mcpServers": {"a": {"command": "x"`)
	for i := range maxWarnings + 7 {
		fmt.Fprintf(&b, `, "k%d": 1`, i)
	}
	b.WriteString(`}}}`)
	cfg, err := Parse(testFile, []byte(b.String()), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != maxWarnings+1 {
		t.Fatalf("got %d warnings, want %d", len(cfg.Warnings), maxWarnings+1)
	}
	if got, want := cfg.Warnings[maxWarnings], testFile+": 7 more warnings not shown"; got != want {
		t.Errorf("last warning: got %q, want %q", got, want)
	}
}

func TestParseExpand(t *testing.T) {
	vars := map[string]string{"A": "alpha", "EMPTY": "", "HOST": "example.com", "BAD_URL": "ftp://h"}
	tests := []struct {
		name    string
		arg     string // the value of args[0]
		want    string
		wantErr string // want ServerConfig.Err exactly; "" for none
	}{
		{"plain", "x", "x", ""},
		{"braces", "${A}", "alpha", ""},
		{"env prefix", "${env:A}", "alpha", ""},
		{"in text", "--name=${A}/${A}", "--name=alpha/alpha", ""},
		{"default unused", "${A:-d}", "alpha", ""},
		{"default for unset", "${NOPE:-d}", "d", ""},
		{"default for empty", "${EMPTY:-d}", "d", ""},
		{"empty default", "${NOPE:-}", "", ""},
		{"env prefix with default", "${env:NOPE:-d}", "d", ""},
		{"set but empty", "${EMPTY}", "", ""},
		{"dollar without braces", "$A", "$A", ""},
		{"unterminated", "${A", "${A", ""},
		{"unset", "${NOPE}", "", "mcpServers.s.args[0]: ${NOPE} is not set; export it or write ${NOPE:-default}"},
		{"unset with env prefix", "x${env:NOPE}", "x", "mcpServers.s.args[0]: ${env:NOPE} is not set; export it or write ${env:NOPE:-default}"},
		{"input prompt", "${input:token}", "", "mcpServers.s.args[0]: ${input:token} is an editor-only reference (a VS Code input), which cannot be resolved here; export a variable and write ${VAR} instead"},
		{"input prompt with default", "${input:token:-d}", "d", ""},
		{"workspaceFolder outside VS Code files", "${workspaceFolder}", "", "mcpServers.s.args[0]: ${workspaceFolder} is not set; export it or write ${workspaceFolder:-default}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := map[string]any{"mcpServers": map[string]any{"s": map[string]any{"command": "x", "args": []string{tt.arg}}}}
			data, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := Parse(testFile, data, env(vars))
			if err != nil {
				t.Fatal(err)
			}
			s := cfg.Servers[0]
			if s.Args[0] != tt.want || s.Err != tt.wantErr {
				t.Errorf("got %q, Err %q; want %q, Err %q", s.Args[0], s.Err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestParseUnsetVariable(t *testing.T) {
	in := `{"mcpServers": {
		"github": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "OTHER": "${OTHER}"}},
		"remote": {"url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
		"badurl": {"url": "${BAD_URL}"},
		"off": {"command": "x", "disabled": true, "args": ["${NOPE}"]},
		"fine": {"command": "x"}
	}}`
	cfg, err := Parse(testFile, []byte(in), env(map[string]string{"HOST": "h.example", "BAD_URL": "ftp://h"}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"github": "mcpServers.github.env.GITHUB_TOKEN: ${GITHUB_TOKEN} is not set; export it or write ${GITHUB_TOKEN:-default}",
		"remote": "mcpServers.remote.headers.Authorization: ${TOKEN} is not set; export it or write ${TOKEN:-default}",
		"badurl": `mcpServers.badurl.url: after expanding variables, unsupported scheme "ftp"; want http or https`,
		"off":    "",
		"fine":   "",
	}
	for _, s := range cfg.Servers {
		if s.Err != want[s.Name] {
			t.Errorf("%s: got Err %q, want %q", s.Name, s.Err, want[s.Name])
		}
	}
	if len(cfg.Servers) != len(want) {
		t.Errorf("got %d servers, want %d", len(cfg.Servers), len(want))
	}
}

func TestParsePaths(t *testing.T) {
	tests := []struct {
		name         string
		server       string
		command, cwd string // want; DIR is the config file's directory
		err          string // fragment of ServerConfig.Err
	}{
		{"command in PATH", `{"command": "node", "cwd": "/srv"}`, "node", "/srv", ""},
		{"relative command", `{"command": "./bin/x"}`, "DIR/bin/x", "", ""},
		{"command with slash", `{"command": "bin/x", "cwd": "."}`, "DIR/bin/x", "DIR", ""},
		{"absolute command", `{"command": "/usr/bin/x"}`, "/usr/bin/x", "", ""},
		{"relative cwd", `{"command": "x", "cwd": "../data"}`, "x", filepath.Dir("/cfg/dir") + "/data", ""},
		{"empty cwd", `{"command": "x", "cwd": ""}`, "x", "", ""},
		{"cwd from variable", `{"command": "x", "cwd": "${HOME}/work"}`, "x", "/home/u/work", ""},
		{"tilde command", `{"command": "~/bin/x"}`, "~/bin/x", "", `"~/bin/x" starts with ~, which is not expanded; write ${HOME}/bin/x instead`},
		{"tilde cwd", `{"command": "x", "cwd": "~"}`, "x", "~", "mcpServers.s.cwd:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := `{"mcpServers": {"s": ` + tt.server + `}}`
			cfg, err := Parse("/cfg/dir/mcp.json", []byte(in), env(map[string]string{"HOME": "/home/u"}))
			if err != nil {
				t.Fatal(err)
			}
			s := cfg.Servers[0]
			r := strings.NewReplacer("DIR", "/cfg/dir")
			if s.Command != r.Replace(tt.command) || s.Cwd != r.Replace(tt.cwd) {
				t.Errorf("got command %q, cwd %q; want %q, %q", s.Command, s.Cwd, r.Replace(tt.command), r.Replace(tt.cwd))
			}
			if (tt.err == "") != (s.Err == "") || !strings.Contains(s.Err, tt.err) {
				t.Errorf("Err: got %q, want %q", s.Err, tt.err)
			}
		})
	}
}

func TestParseNamesAndOrder(t *testing.T) {
	in := `{"mcpServers": {"zeta": {"command": "z"}, "My Server.v2": {"command": "m"}, "2fa": {"command": "t"}, "type": {"command": "y"}}}`
	cfg, err := Parse(testFile, []byte(in), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range cfg.Servers {
		got = append(got, s.Name+"="+s.Key)
	}
	want := []string{"my_server_v2=My Server.v2", "s2fa=2fa", "type_=type", "zeta=zeta"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestParseTimeout(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"1", time.Millisecond},
		{"30000", 30 * time.Second},
		{"1.5", 1500 * time.Microsecond},
		{"6e4", time.Minute},
	}
	for _, tt := range tests {
		cfg, err := Parse(testFile, []byte(`{"mcpServers": {"a": {"command": "x", "timeout": `+tt.in+`}}}`), noEnv)
		if err != nil {
			t.Fatalf("timeout %s: %v", tt.in, err)
		}
		if got := cfg.Servers[0].Timeout; got != tt.want {
			t.Errorf("timeout %s: got %v, want %v", tt.in, got, tt.want)
		}
	}
}

// writeFile writes data to dir/name, creating directories.
func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadOrder(t *testing.T) {
	// Each config names one server after where it lives.
	server := func(name string) string {
		return `{"mcpServers": {"` + name + `": {"command": "x"}}}`
	}
	type setup struct {
		explicit, mcpfsEnv, serversEnv, workFile, userFile, claudeFile bool
	}
	tests := []struct {
		name       string
		setup      setup
		wantSource string
		wantServer string
	}{
		{"explicit wins", setup{true, true, true, true, true, true}, "--config", "explicit"},
		{"MCPFS_CONFIG", setup{false, true, true, true, true, true}, "$MCPFS_CONFIG", "mcpfs_env"},
		{"MCP_SERVERS_CONFIG", setup{false, false, true, true, true, true}, "$MCP_SERVERS_CONFIG", "servers_env"},
		{"project .mcp.json", setup{false, false, false, true, true, true}, "./.mcp.json", "work"},
		{"user config dir", setup{false, false, false, false, true, true}, "user config dir", "user"},
		{"Claude Desktop", setup{false, false, false, false, false, true}, "Claude Desktop config", "claude"},
		{"built-in default", setup{}, "built-in default", "docstore"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			work := filepath.Join(root, "work")
			configDir := filepath.Join(root, "config")
			if err := os.MkdirAll(work, 0o755); err != nil {
				t.Fatal(err)
			}
			vars := map[string]string{}
			explicit := ""
			paths := map[string]string{}
			if tt.setup.explicit {
				paths["explicit"] = writeFile(t, root, "explicit.json", server("explicit"))
				explicit = "../explicit.json" // relative to WorkDir
			}
			if tt.setup.mcpfsEnv {
				paths["mcpfs_env"] = writeFile(t, root, "env1.json", server("mcpfs_env"))
				vars["MCPFS_CONFIG"] = paths["mcpfs_env"]
			}
			if tt.setup.serversEnv {
				paths["servers_env"] = writeFile(t, root, "env2.json", server("servers_env"))
				vars["MCP_SERVERS_CONFIG"] = paths["servers_env"]
			}
			if tt.setup.workFile {
				paths["work"] = writeFile(t, work, ".mcp.json", server("work"))
			}
			if tt.setup.userFile {
				paths["user"] = writeFile(t, configDir, "mcpfs/servers.json", server("user"))
			}
			if tt.setup.claudeFile {
				paths["claude"] = writeFile(t, configDir, "Claude/claude_desktop_config.json", server("claude"))
			}
			cfg, err := Load(explicit, LoadOptions{Getenv: env(vars), WorkDir: work, UserConfigDir: configDir})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Source != tt.wantSource {
				t.Errorf("Source: got %q, want %q", cfg.Source, tt.wantSource)
			}
			if cfg.Path != paths[tt.wantServer] {
				t.Errorf("Path: got %q, want %q", cfg.Path, paths[tt.wantServer])
			}
			if len(cfg.Servers) != 1 || cfg.Servers[0].Name != tt.wantServer {
				t.Errorf("Servers: got %+v, want one named %q", cfg.Servers, tt.wantServer)
			}
		})
	}
}

func TestLoadSkipsFileInPlaceOfDirectory(t *testing.T) {
	root := t.TempDir()
	configDir := filepath.Join(root, "config")
	writeFile(t, configDir, "mcpfs", "not a directory")
	claude := writeFile(t, configDir, "Claude/claude_desktop_config.json", `{"mcpServers": {"a": {"command": "x"}}}`)
	cfg, err := Load("", LoadOptions{Getenv: noEnv, WorkDir: root, UserConfigDir: configDir})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Path != claude {
		t.Errorf("Path: got %q, want %q", cfg.Path, claude)
	}
}

// Claude Desktop writes its config file before any server is added; such a
// file is passed over, so the user gets the built-in default, not an error.
func TestLoadSkipsClaudeDesktopWithoutServers(t *testing.T) {
	for _, data := range []string{
		`{"globalShortcut": "Ctrl+Space"}`,
		`{"mcpServers": {}, "globalShortcut": "Ctrl+Space"}`,
	} {
		configDir := t.TempDir()
		writeFile(t, configDir, "Claude/claude_desktop_config.json", data)
		cfg, err := Load("", LoadOptions{Getenv: noEnv, WorkDir: t.TempDir(), UserConfigDir: configDir})
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if cfg.Source != "built-in default" {
			t.Errorf("%s: Source: got %q, want the built-in default", data, cfg.Source)
		}
	}
	// A broken one is still reported.
	configDir := t.TempDir()
	writeFile(t, configDir, "Claude/claude_desktop_config.json", `{"mcpServers": `)
	if _, err := Load("", LoadOptions{Getenv: noEnv, WorkDir: t.TempDir(), UserConfigDir: configDir}); !errors.Is(err, ErrConfig) {
		t.Errorf("truncated Claude Desktop config: got %v, want a config error", err)
	}
}

func TestLoadDefault(t *testing.T) {
	cfg, err := Load("", LoadOptions{Getenv: env(map[string]string{"MCPFS_CONFIG": ""}), WorkDir: t.TempDir(), UserConfigDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg, DefaultConfig()) {
		t.Errorf("got %+v, want DefaultConfig()", cfg)
	}
	want := ServerConfig{Name: "docstore", Key: "docstore", Transport: "builtin", Builtin: "docstore"}
	if d := DefaultConfig(); d.Source != "built-in default" || d.Path != "" || len(d.Servers) != 1 || !reflect.DeepEqual(d.Servers[0], want) {
		t.Errorf("DefaultConfig: got %+v", d)
	}
}

func TestLoadErrors(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "work/.mcp.json/keep", "") // .mcp.json is a directory
	empty := writeFile(t, root, "empty.json", "")
	bad := writeFile(t, root, "bad.json", "{\n  \"mcpServers\": {\"a\": {\"args\": 1}}\n}")
	big := filepath.Join(root, "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, maxConfigSize+1); err != nil { // sparse: cheap
		t.Fatal(err)
	}
	missing := filepath.Join(root, "missing.json")

	tests := []struct {
		name     string
		explicit string
		vars     map[string]string
		workDir  string
		file     string // want ConfigError.File
		msg      string
		notExist bool // want errors.Is(err, fs.ErrNotExist)
	}{
		{"missing --config", missing, nil, root, missing, "no such file (named by --config); check the path given with --config", true},
		{"missing $MCPFS_CONFIG", "", map[string]string{"MCPFS_CONFIG": missing}, root, missing, "fix $MCPFS_CONFIG or unset it", true},
		{"missing $MCP_SERVERS_CONFIG", "", map[string]string{"MCP_SERVERS_CONFIG": "missing.json"}, root, missing, "named by $MCP_SERVERS_CONFIG", true},
		{"directory given", root, nil, root, root, "is a directory, not a config file", false},
		{"project .mcp.json a directory", "", nil, filepath.Join(root, "work"), filepath.Join(root, "work", ".mcp.json"), "is a directory", false},
		{"empty file", empty, nil, root, empty, "file is empty", false},
		{"too large", big, nil, root, big, "a config file may be at most 4194304 bytes", false},
		{"invalid content", bad, nil, root, bad, "want an array of strings, got a number", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(tt.explicit, LoadOptions{Getenv: env(tt.vars), WorkDir: tt.workDir, UserConfigDir: filepath.Join(root, "nothing")})
			if err == nil {
				t.Fatalf("Load succeeded (%s %s), want an error", cfg.Source, cfg.Path)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || !errors.Is(err, ErrConfig) {
				t.Fatalf("got %T %v, want a *ConfigError matching ErrConfig", err, err)
			}
			if ce.File != tt.file {
				t.Errorf("File: got %q, want %q", ce.File, tt.file)
			}
			if !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("Msg: got %q, want it to contain %q", ce.Msg, tt.msg)
			}
			if got := errors.Is(err, os.ErrNotExist); got != tt.notExist {
				t.Errorf("errors.Is(err, fs.ErrNotExist): got %v, want %v", got, tt.notExist)
			}
		})
	}
}

func TestLoadUnreadable(t *testing.T) {
	path := writeFile(t, t.TempDir(), "secret.json", `{"mcpServers": {}}`)
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	if f, err := os.Open(path); err == nil {
		f.Close()
		t.Skipf("a mode 0000 file is still readable (euid %d: root bypasses permissions), so this cannot be tested here", os.Geteuid())
	}
	_, err := Load(path, LoadOptions{Getenv: noEnv, WorkDir: "/", UserConfigDir: "/nonexistent"})
	var ce *ConfigError
	if !errors.As(err, &ce) || !errors.Is(err, ErrConfig) || !errors.Is(err, os.ErrPermission) {
		t.Fatalf("got %v, want a *ConfigError matching ErrConfig and fs.ErrPermission", err)
	}
	if !strings.Contains(ce.Msg, "permission denied") || ce.File != path {
		t.Errorf("got %v, want permission denied on %s", err, path)
	}
}

func TestLoadBOMAndSource(t *testing.T) {
	path := writeFile(t, t.TempDir(), "c.json", "\xef\xbb\xbf{\"servers\": {\"a\": {\"type\": \"stdio\", \"command\": \"./x\"}}}")
	cfg, err := Load(path, LoadOptions{Getenv: noEnv, WorkDir: "/"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Source != "--config" || cfg.Path != path || cfg.Format != "servers" || cfg.Servers[0].Command != filepath.Join(filepath.Dir(path), "x") {
		t.Errorf("got %+v", cfg)
	}
}

// FuzzParse checks that Parse never panics, that every error is a located
// *ConfigError, that what it accepts is sound, and that its JSON reader
// agrees with encoding/json.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"claude_desktop.json", "claude_code/.mcp.json", "cursor.json", "vscode/.vscode/mcp.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "config", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		``, `{}`, `[]`, `{"mcpServers": {}}`, `{"mcpServers": {"a": {"command": "x",}}}`,
		`{"mcpServers": {"a": {"url": "http://h/sse", "headers": {"A": "${B:-c}"}}}}`,
		`{"servers": {"a.b": {"command": "${input:x}", "timeout": 1e-9}}}`,
		"{\"a\": \"\\ud83d\\ude00\\ud800\"}", `{"mcpServers": {"GitHub": {"command": "x"}, "github": {"command": "y"}}}`,
	} {
		f.Add([]byte(s))
	}
	lookup := env(map[string]string{"A": "a", "EMPTY": ""})
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse("/f/mcp.json", data, lookup)
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) || !errors.Is(err, ErrConfig) {
				t.Fatalf("got %T %v, want a *ConfigError matching ErrConfig", err, err)
			}
			if ce.Msg == "" || ce.File != "/f/mcp.json" {
				t.Fatalf("error without message or file: %#v", ce)
			}
		} else {
			names := map[string]bool{}
			for i, s := range cfg.Servers {
				if names[s.Name] || s.Name == "" || (i > 0 && cfg.Servers[i-1].Name > s.Name) {
					t.Fatalf("servers not unique and sorted: %+v", cfg.Servers)
				}
				names[s.Name] = true
				switch s.Transport {
				case "stdio":
					if s.Command == "" && s.Err == "" && !s.Disabled {
						t.Fatalf("stdio server without command: %+v", s)
					}
				case "http", "sse":
					if s.URL == "" && s.Err == "" && !s.Disabled {
						t.Fatalf("%s server without url: %+v", s.Transport, s)
					}
				default:
					t.Fatalf("transport %q", s.Transport)
				}
				if s.Timeout < 0 {
					t.Fatalf("negative timeout %v", s.Timeout)
				}
			}
		}

		// The JSON reader accepts exactly what encoding/json accepts (within
		// the depth bound) and, for UTF-8 input, decodes the same values.
		tree, perr := parseJSON(data)
		valid := json.Valid(data)
		if perr != nil {
			if valid && !strings.Contains(perr.Error(), "nested deeper") {
				t.Fatalf("parseJSON rejects what encoding/json accepts: %v", perr)
			}
			return
		}
		if !valid {
			t.Fatalf("parseJSON accepts what encoding/json rejects")
		}
		var want any
		if json.Unmarshal(data, &want) != nil || !utf8.Valid(data) || hasDuplicateKeys(tree) {
			return // a number out of float64's range; bytes encoding/json replaces; or which duplicate wins
		}
		if got := toAny(tree); !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded differently:\n got %#v\nwant %#v", got, want)
		}
	})
}

// toAny converts a tree to what encoding/json decodes into an any.
func toAny(v *jsonValue) any {
	switch v.Kind {
	case jsonNull:
		return nil
	case jsonBool:
		return v.Bool
	case jsonNumber:
		var f float64
		if err := json.Unmarshal([]byte(v.Str), &f); err != nil {
			return v.Str
		}
		return f
	case jsonString:
		return v.Str
	case jsonArray:
		out := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			out[i] = toAny(e)
		}
		return out
	default:
		out := make(map[string]any, len(v.Members))
		for _, m := range v.Members {
			out[m.Key] = toAny(m.Value)
		}
		return out
	}
}

func hasDuplicateKeys(v *jsonValue) bool {
	seen := map[string]bool{}
	for _, m := range v.Members {
		if seen[m.Key] || hasDuplicateKeys(m.Value) {
			return true
		}
		seen[m.Key] = true
	}
	for _, e := range v.Elems {
		if hasDuplicateKeys(e) {
			return true
		}
	}
	return false
}

func BenchmarkParse(b *testing.B) {
	var big strings.Builder
	big.WriteString(`{"mcpServers": {`)
	for i := range 1000 {
		if i > 0 {
			big.WriteString(",")
		}
		fmt.Fprintf(&big, `"server-%d": {"command": "npx", "args": ["-y", "pkg-%d"], "env": {"TOKEN": "${TOKEN:-x}"}}`, i, i)
	}
	big.WriteString(`}}`)
	desktop, err := os.ReadFile(filepath.Join("testdata", "config", "claude_desktop.json"))
	if err != nil {
		b.Fatal(err)
	}
	for _, bb := range []struct {
		name string
		data []byte
	}{{"claude_desktop", desktop}, {"1000_servers", []byte(big.String())}} {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(bb.data)))
			for b.Loop() {
				if _, err := Parse("/b/mcp.json", bb.data, noEnv); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestParseSettings(t *testing.T) {
	pool := func(n int) *int { return &n }
	tests := []struct {
		name string
		in   string
		want Settings
	}{
		{"none", `{"mcpServers": {}}`, Settings{}},
		{"empty", m + `{}}`, Settings{}},
		{"everything", m + `{
			"imports": {"allow": ["crypto/sha256", "hash/crc32"], "deny": ["text/template"]},
			"limits": {"timeout": "45s", "maxTimeout": "20m", "memory": "512MiB", "output": "64KiB",
			           "outputFile": "1GiB", "concurrentCalls": 4},
			"sandbox": "strict",
			"pool": 2}}`,
			Settings{Allow: []string{"crypto/sha256", "hash/crc32"}, Deny: []string{"text/template"},
				Timeout: 45 * time.Second, MaxTimeout: 20 * time.Minute, Memory: 512 << 20, Output: 64 << 10,
				OutputFile: 1 << 30, ConcurrentCalls: 4, Sandbox: "strict", Pool: pool(2)}},
		{"milliseconds and bytes", m + `{"limits": {"timeout": 1500, "memory": 268435456, "output": "1.5 KiB"}}}`,
			Settings{Timeout: 1500 * time.Millisecond, Memory: 256 << 20, Output: 1536}},
		{"decimal units", m + `{"limits": {"memory": "2GB", "output": "100kB"}}}`,
			Settings{Memory: 2e9, Output: 1e5}},
		{"pool zero", m + `{"pool": 0, "sandbox": "auto"}}`, Settings{Pool: pool(0), Sandbox: "auto"}},
		{"engine", m + `{"engine": {"idle": "1h", "treeMemory": "16MiB"}}}`, Settings{EngineIdle: time.Hour, TreeMemory: 16 << 20}},
		{"vscode dialect", `{"servers": {}, "mcpfs": {"limits": {"maxTimeout": "1h"}}}`, Settings{MaxTimeout: time.Hour}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(testFile, []byte(tt.in), noEnv)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.Settings, tt.want) {
				t.Errorf("got %+v, want %+v", cfg.Settings, tt.want)
			}
			if !cfg.Settings.Equal(tt.want) {
				t.Errorf("Equal(%+v) = false, want true", tt.want)
			}
		})
	}
}

func TestSettingsEqual(t *testing.T) {
	one, zero := 1, 0
	base := Settings{Allow: []string{"hash"}, Timeout: time.Second, Pool: &one}
	tests := []struct {
		name string
		t    Settings
		want bool
	}{
		{"same", Settings{Allow: []string{"hash"}, Timeout: time.Second, Pool: &one}, true},
		{"allow", Settings{Allow: []string{"fmt"}, Timeout: time.Second, Pool: &one}, false},
		{"timeout", Settings{Allow: []string{"hash"}, Timeout: 2 * time.Second, Pool: &one}, false},
		{"pool unset", Settings{Allow: []string{"hash"}, Timeout: time.Second}, false},
		{"pool zero", Settings{Allow: []string{"hash"}, Timeout: time.Second, Pool: &zero}, false},
		{"sandbox", Settings{Allow: []string{"hash"}, Timeout: time.Second, Pool: &one, Sandbox: "strict"}, false},
	}
	for _, tt := range tests {
		if got := base.Equal(tt.t); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCheckImports(t *testing.T) {
	in := "{\"mcpServers\": {},\n \"mcpfs\": {\"imports\": {\"allow\": [\n   \"hash\",\n   \"os/exec\"]}}}"
	cfg, err := Parse(testFile, []byte(in), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	refuse := errors.New(`"os/exec" can never be allowed in snippets: it runs programs`)
	err = cfg.CheckImports(func(p string) error {
		if p == "os/exec" {
			return refuse
		}
		return nil
	})
	want := testFile + `:4:4: mcpfs.imports.allow[1]: "os/exec" can never be allowed in snippets: it runs programs; remove it from allow`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	if !errors.Is(err, ErrConfig) || !errors.Is(err, refuse) {
		t.Errorf("got %v, want it to match ErrConfig and the refusal", err)
	}
	if err := cfg.CheckImports(func(string) error { return nil }); err != nil {
		t.Errorf("got %v, want nil when every package is allowed", err)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{1 << 30: "1GiB", 512 << 20: "512MiB", 1536 << 10: "1536KiB", 1000: "1000B", 1 << 40: "1TiB", 0: "0B"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d): got %q, want %q", n, got, want)
		}
	}
}
