// Package naming turns MCP names (server and tool names, schema property
// names) into Go names and file names. It is the one place where this
// happens, so the mapping is deterministic everywhere: the config loader, the
// generator and the tree all agree.
//
// Every MCP name is untrusted input: the results are always valid Go
// identifiers or safe file names, whatever the input.
package naming

import (
	"go/token"
	"strings"
	"unicode"
)

// reservedPackages are package names a server may not take: they would
// collide with the tree's own packages or not be importable.
var reservedPackages = map[string]bool{
	"main":    true,
	"mcp":     true, // the runtime package the stubs call
	"skills":  true,
	"servers": true,
	"run":     true,
}

// Package returns the Go package name for a server name: lower-case ASCII
// letters, digits and underscores, starting with a letter, never a Go keyword
// or a reserved name. Two different server names may map to the same package
// name; the config loader reports that as a duplicate.
//
//	"GitHub"        -> "github"
//	"my-server.v2"  -> "my_server_v2"
//	"2fa"           -> "s2fa"
//	"type"          -> "type_"
//	""              -> "server"
func Package(name string) string {
	var b strings.Builder
	lastUnderscore := true // trims leading underscores
	for _, r := range name {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(unicode.ToLower(r))
			lastUnderscore = false
		default:
			if !lastUnderscore {
				b.WriteByte('_')
				lastUnderscore = true
			}
		}
	}
	s := strings.TrimRight(b.String(), "_")
	if s == "" {
		return "server"
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "s" + s
	}
	if token.IsKeyword(s) || reservedPackages[s] {
		s += "_"
	}
	return s
}
