// Package catalog holds the types of a catalog snapshot: every configured
// server as known at one moment, with its raw tool listing. It is a leaf:
// the generator, the tree, the cache and the faces read these types
// without importing the code that starts processes or dials servers
// (package discovery, which makes the snapshots).
package catalog

import (
	"encoding/json"
	"time"
)

// State is where a server's connection stands.
type State string

// The states a server can be in.
const (
	StateConnecting State = "connecting" // starting, initializing or listing tools
	StateReady      State = "ready"      // connected; Tools is the live listing
	StateFailed     State = "failed"     // could not start, exited, or timed out; Err says why
	StateDisabled   State = "disabled"   // "disabled": true in the config; never started
)

// Tool is one tool exactly as the server listed it.
//
// Raw is the tool's JSON object from tools/list, byte for byte: the generator
// reads schemas from it, because mcp-go's typed Tool drops schema keys.
type Tool struct {
	Name string
	Raw  json.RawMessage
	// Learned, when set, is the shape of the tool's results as mcpfs
	// learned it from calls (fs/gen/shape.GenInput): the generator types
	// the result of a tool without an output schema from it. It is never
	// part of a listing: the engine adds it to the catalog the tree shows.
	Learned json.RawMessage `json:"-"`
}

// ServerSnapshot is one server as known at one moment. It is immutable:
// nothing may modify a snapshot, or anything it points to, once published.
type ServerSnapshot struct {
	// Name is the server's normalised name: a Go package identifier, unique
	// in the config, used for servers/<Name>/ and `package <Name>`.
	Name string
	// Key is the name as written in the config file.
	Key string
	// Transport is "stdio", "http", "sse" or "builtin".
	Transport string

	State State
	// Err is why the server is failed (or the last error while connecting).
	Err string
	// Since is when the server entered State.
	Since time.Time

	// From the initialize result (empty until the server answered).
	ServerName      string // serverInfo.name
	ServerTitle     string // serverInfo.title
	ServerVersion   string // serverInfo.version
	ProtocolVersion string // the negotiated protocol version
	Instructions    string

	// Tools in the order the server listed them.
	Tools []Tool
	// ToolsTruncated is set when pagination stopped at the page bound.
	ToolsTruncated bool

	// Stale is set when Tools and the server info are not a live listing:
	// they come from the cache while the server is connecting, or they are
	// the last listing of a server that has since failed.
	Stale bool
	// ListedAt is when Tools were listed by the server (for a stale
	// listing, when the cached one was made); zero when never.
	ListedAt time.Time
	// Restarts counts how often the server was started again after it
	// failed.
	Restarts int
	// NextRetry is when a failed server will be started again (a call to
	// it may try sooner); zero when no restart is scheduled.
	NextRetry time.Time
}

// Catalog is an immutable, versioned snapshot of every configured server.
// Each change (a server connecting, failing, or listing new tools) publishes
// a new Catalog with a higher Version.
type Catalog struct {
	Version uint64
	// Servers sorted by Name.
	Servers []ServerSnapshot
}

// Server returns the snapshot of the server with the given normalised name.
func (c *Catalog) Server(name string) (ServerSnapshot, bool) {
	if c == nil {
		return ServerSnapshot{}, false
	}
	for _, s := range c.Servers {
		if s.Name == name {
			return s, true
		}
	}
	return ServerSnapshot{}, false
}

// CachedTools is what a tool cache (discovery.ToolCache) keeps of one server: its last full
// tools/list, exactly as listed, with what initialize said.
type CachedTools struct {
	ListedAt        time.Time
	ServerName      string
	ServerTitle     string
	ServerVersion   string
	ProtocolVersion string
	Instructions    string
	Tools           []Tool
	ToolsTruncated  bool
}
