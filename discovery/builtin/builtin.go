package builtin

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/server"
)

// DocstoreVersion is the version the docstore server reports in its server
// info. It changes when the tools or the seed documents change.
const DocstoreVersion = "1.0.0"

// ErrUnknownServer is returned by New for a name that is not built in.
var ErrUnknownServer = errors.New("unknown built-in server")

// constructors maps each built-in server name to its constructor.
var constructors = map[string]func() *server.MCPServer{
	"docstore": NewDocstore,
}

// Names returns the names of the built-in servers, sorted.
func Names() []string {
	names := make([]string, 0, len(constructors))
	for name := range constructors {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// New returns a fresh built-in server with its own in-memory state. The error
// wraps ErrUnknownServer and lists the names that exist.
func New(name string) (*server.MCPServer, error) {
	newServer, ok := constructors[name]
	if !ok {
		return nil, fmt.Errorf("built-in server %q: %w; built-in servers are: %s", name, ErrUnknownServer, strings.Join(Names(), ", "))
	}
	return newServer(), nil
}

const docstoreInstructions = `docstore is an in-memory document store with sample data: a readme, meeting notes, a glossary, a large operations handbook (over 250 KB) and a 10,000-row API access log in CSV. Call list_documents to see what exists. Use search to find lines, query_rows to filter CSV rows by exact column values, and read_document with offset and limit to page through text. Filter large results in code instead of printing them. write_document stores results for as long as the server runs.`

// NewDocstore returns a fresh docstore server: a small document store whose
// seed documents are generated deterministically in memory. Writes made
// through one server are never seen by another.
func NewDocstore() *server.MCPServer {
	return newDocstore()
}

// newDocstore builds a docstore server; extra options come after the
// defaults (tests add output schema validation).
func newDocstore(extra ...server.ServerOption) *server.MCPServer {
	opts := append([]server.ServerOption{
		server.WithToolCapabilities(false),
		server.WithInstructions(docstoreInstructions),
		server.WithRecovery(),
		server.WithInputSchemaValidation(),
		server.WithStrictInputSchemaDefault(),
	}, extra...)
	s := server.NewMCPServer("docstore", DocstoreVersion, opts...)
	ds := &docstore{store: newStore(seedDocuments())}
	s.AddTools(ds.tools()...)
	return s
}
