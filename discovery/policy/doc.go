// Package policy decides which tools of which servers an agent may see
// and call: allow and deny lists of tool names and globs, and rules on a
// tool's annotations, globally and per server. It is the logic only: the
// config parser (package discovery) fills a Policy, the engine asks it.
//
// It knows nothing of servers, files or the kernel, and imports only the
// standard library.
package policy
