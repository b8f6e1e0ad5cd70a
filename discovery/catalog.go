package discovery

import "github.com/mcpfs/mcpfs/discovery/catalog"

// The catalog types live in the leaf package catalog, so that the
// generator, the tree and the cache need not import this package; these
// names keep discovery's API whole.
type (
	// State is where a server's connection stands.
	State = catalog.State
	// Tool is one tool exactly as the server listed it.
	Tool = catalog.Tool
	// ServerSnapshot is one server as known at one moment.
	ServerSnapshot = catalog.ServerSnapshot
	// Catalog is an immutable, versioned snapshot of every configured
	// server.
	Catalog = catalog.Catalog
	// CachedTools is what a ToolCache keeps of one server.
	CachedTools = catalog.CachedTools
)

// The states a server can be in.
const (
	StateConnecting = catalog.StateConnecting
	StateReady      = catalog.StateReady
	StateFailed     = catalog.StateFailed
	StateDisabled   = catalog.StateDisabled
)
