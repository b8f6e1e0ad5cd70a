// Package ui is mcpfs's local web page: the servers and their states (and
// tool definitions that differ from their pins), the tree (browse, read a
// tool's Go file, search), a snippet editor that type-checks as you type
// and runs with its output and tool calls streaming in, the run history,
// the tail of the audit log of every face's tool calls, and the saved
// skills with their versions.
//
// The page is served by Server, an http.Handler over a small Engine
// interface: it knows no FUSE and starts no process of its own, so it is
// tested with an engine of the test's making and in a real browser
// (cmd/mcpfs's ui test). Everything it serves is embedded: plain HTML, CSS
// and a little JavaScript, no asset fetched from elsewhere. Updates are
// pushed with server-sent events (GET /api/events).
//
// Every request passes the guard first (guard.go): the Host must be a
// loopback name (DNS rebinding), an Origin must be the page's own, and
// the request must carry the token, as "Authorization: Bearer <token>" or
// as the cookie the page sets when it is opened with ?token=<token>.
//
// It must not import the fuse adapter, nor anything of cmd/mcpfs.
package ui
