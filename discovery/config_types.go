package discovery

import "time"

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
}
