package discovery

import (
	"time"

	"github.com/mcpfs/mcpfs/discovery/policy"
)

// ServerConfig is one server from the user's config, validated and with
// ${VAR} references expanded.
type ServerConfig struct {
	// Name is the normalised name (see naming.Package); Key as written.
	Name string
	Key  string
	// Transport is "stdio", "http", "sse" or "builtin".
	Transport string

	// stdio
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string

	// http and sse
	URL     string
	Headers map[string]string

	// Builtin names the in-process server when Transport is "builtin".
	Builtin string

	Disabled bool
	// Err, when set, is a problem that keeps this server from starting
	// (an unset ${VAR}, say), with the JSON path where it is. The server is
	// shown as failed with this error and never started; the other servers
	// are not affected.
	Err string
	// Timeout bounds connecting (start, initialize, first tools/list).
	// Zero means the engine's default.
	Timeout time.Duration

	// The rest comes from the server entry's "mcpfs" object, which other
	// MCP clients ignore.

	// CallTimeout bounds one tool call whose caller set no deadline
	// ("mcpfs": {"callTimeout": "2m"}). Zero means the engine's default.
	CallTimeout time.Duration
	// CacheResults, when positive, lets mcpfs keep the results of this
	// server's read-only tools (annotations.readOnlyHint true) for that
	// long and answer repeated calls with the same arguments from the
	// cache ("mcpfs": {"cacheResults": "10m"}). Zero keeps nothing.
	CacheResults time.Duration
	// MaxListBytes bounds the server's tools/list answer, all pages
	// together ("mcpfs": {"maxListBytes": "64MiB"}, from 64 KiB to 1 GiB).
	// Zero means the engine's default.
	MaxListBytes int64
	// OAuth, when set, logs in to this HTTP server with OAuth 2.1
	// ("mcpfs": {"oauth": true} or {"oauth": {"clientId": ...}}).
	OAuth *OAuthConfig
}

// Config is a parsed config file: which file it was and its servers.
type Config struct {
	// Path is the file read; empty for the embedded default.
	Path string
	// Source says how Path was found: "--config", "$MCPFS_CONFIG",
	// "$MCP_SERVERS_CONFIG", "./.mcp.json", "user config dir",
	// "Claude Desktop config", or "built-in default".
	Source string
	// Format is the detected dialect: "mcpServers" (Claude Desktop, Claude
	// Code, Cursor) or "servers" (VS Code).
	Format string
	// Servers sorted by Name, disabled ones included (with Disabled set).
	Servers []ServerConfig
	// Warnings are things worth telling the user that do not stop anything
	// (unknown keys, say), each with its JSON path.
	Warnings []string
	// Settings are mcpfs's own settings: the top-level "mcpfs" object.
	Settings Settings

	// settingAt locates values of the "mcpfs" object by JSON path, for
	// errors found by the packages that use them (CheckImports).
	settingAt map[string]position
}

// position is a 1-based line and column in a config file.
type position struct{ line, col int }

// Settings are mcpfs's own settings, from the config's top-level "mcpfs"
// object (other MCP clients ignore it):
//
//	"mcpfs": {
//	  "imports": {"allow": ["crypto/sha256"], "deny": ["text/template"]},
//	  "limits": {"timeout": "30s", "maxTimeout": "10m", "memory": "1GiB",
//	             "output": "1MiB", "outputFile": "256MiB", "concurrentCalls": 16},
//	  "sandbox": "strict",
//	  "pool": 1
//	}
//
// A zero field was not set: whoever uses the setting applies its own
// default. Parse checks each value's type, syntax and bounds; which
// standard packages may be allowed is for the snippet checker to say
// (Config.CheckImports).
type Settings struct {
	// Allow (imports.allow) adds standard packages to those a snippet may
	// import; Deny (imports.deny) takes packages away. As written, without
	// duplicates, and no package in both.
	Allow, Deny []string
	// Timeout (limits.timeout) is a run's time when the caller gives none;
	// MaxTimeout (limits.maxTimeout) is the longest a caller may give. When
	// both are set, Timeout <= MaxTimeout.
	Timeout, MaxTimeout time.Duration
	// Memory (limits.memory) is the memory a snippet's worker may use, in
	// bytes: at least MinMemory.
	Memory int64
	// Output (limits.output) is how much of each of stdout and stderr a
	// run's result holds, in bytes; OutputFile (limits.outputFile) is the
	// most of one stream kept in the file that holds cut output in full.
	// When both are set, Output <= OutputFile.
	Output, OutputFile int64
	// ConcurrentCalls (limits.concurrentCalls) bounds the tool calls one
	// run has in flight.
	ConcurrentCalls int
	// Sandbox is "strict" (refuse to run snippets unless every sandbox
	// layer is in force), "auto" (run with the layers the system offers)
	// or "" when not set.
	Sandbox string
	// Pool is how many started workers wait for a snippet; nil when not
	// set (0 is a value: every run starts its own worker).
	Pool *int
	// EngineIdle (engine.idle) is how long the resident engine stays up
	// with no command, mount or client using it; 0 when not set.
	EngineIdle time.Duration
	// TreeMemory (engine.treeMemory) bounds the bytes of generated server
	// packages the engine keeps (fs.GenCache); 0 when not set.
	TreeMemory int64
	// Tools (tools) is the tool policy: which tools the tree shows and
	// calls may reach, and whether their definitions are pinned.
	Tools policy.Policy
	// Audit (audit) says what the log of tool calls keeps.
	Audit AuditSettings
}
