package discovery

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpfs/mcpfs/discovery/policy"
)

// Keys of "mcpfs": {"tools": ...} and "mcpfs": {"audit": ...}.
var (
	toolsKeys       = []string{"allow", "deny", "refuse", "except", "pin", "servers"}
	serverToolsKeys = []string{"allow", "deny", "refuse", "except", "pin"}
	auditKeys       = []string{"arguments", "results", "maxSize", "keep"}
)

// Bounds of the audit settings.
const (
	minAuditSize = 64 << 10
	maxAuditSize = 1 << 30
	maxAuditKeep = 100
)

// AuditSettings are "mcpfs": {"audit": {...}}: what the log of tool
// calls keeps. A zero field was not set.
type AuditSettings struct {
	// Arguments and Results keep the calls' arguments and results in the
	// log, with the config's secret values redacted. Off by default: the
	// log then holds their sizes and a hash of the arguments.
	Arguments, Results bool
	// MaxSize is the size at which the log file is rotated, in bytes.
	MaxSize int64
	// Keep is how many rotated files are kept besides the current one.
	Keep int
}

// tools reads "tools": {"allow": [...], "deny": [...], "refuse": [...],
// "except": [...], "pin": bool, "servers": {"<server>": {...}}}.
func (p *configParser) tools(cfg *Config, v *jsonValue, path string) error {
	pol := &cfg.Settings.Tools
	var err error
	pol.Global, err = p.toolScope(cfg, v, path, true)
	return err
}

func (p *configParser) toolScope(cfg *Config, v *jsonValue, path string, global bool) (policy.Scope, error) {
	var s policy.Scope
	if err := p.wantKind(v, path, jsonObject, `an object like {"deny": ["delete_*"], "refuse": ["destructive"]}`); err != nil {
		return s, err
	}
	if err := p.noDuplicateKeys(v, path); err != nil {
		return s, err
	}
	for _, f := range v.Members {
		fpath := jsonPathKey(path, f.Key)
		var err error
		switch f.Key {
		case "allow":
			s.Allow, err = p.toolPatterns(f.Value, fpath)
			s.AllowAt = p.at(fpath, f.Value.Off)
		case "deny":
			s.Deny, err = p.toolPatterns(f.Value, fpath)
		case "except":
			s.Except, err = p.toolPatterns(f.Value, fpath)
		case "refuse":
			s.Refuse, err = p.refuseRules(f.Value, fpath)
		case "pin":
			if err = p.wantKind(f.Value, fpath, jsonBool, "true or false"); err == nil {
				b := f.Value.Bool
				s.Pin = &b
			}
		case "servers":
			if !global {
				err = p.unknownKey(f, fpath, serverToolsKeys)
				break
			}
			err = p.serverScopes(cfg, f.Value, fpath)
		default:
			known := toolsKeys
			if !global {
				known = serverToolsKeys
			}
			err = p.unknownKey(f, fpath, known)
		}
		if err != nil {
			return s, err
		}
	}
	return s, nil
}

// serverScopes reads "servers": {"<server>": {...}}, the server named as
// in the config or by its normalised name.
func (p *configParser) serverScopes(cfg *Config, v *jsonValue, path string) error {
	if err := p.wantKind(v, path, jsonObject, `an object like {"github": {"allow": ["get_*"]}}`); err != nil {
		return err
	}
	if err := p.noDuplicateKeys(v, path); err != nil {
		return err
	}
	pol := &cfg.Settings.Tools
	for _, m := range v.Members {
		mpath := jsonPathKey(path, m.Key)
		known := slices.ContainsFunc(cfg.Servers, func(sc ServerConfig) bool { return sc.Key == m.Key || sc.Name == m.Key })
		if !known {
			var names []string
			for _, sc := range cfg.Servers {
				names = append(names, sc.Key)
			}
			p.warnAt(m.KeyOff, mpath, "no server of this name in the config (servers: %s); these rules apply to none", strings.Join(names, ", "))
		}
		s, err := p.toolScope(cfg, m.Value, mpath, false)
		if err != nil {
			return err
		}
		if pol.Servers == nil {
			pol.Servers = map[string]policy.Scope{}
		}
		pol.Servers[m.Key] = s
	}
	return nil
}

// at names a setting for messages: its JSON path and where it is.
func (p *configParser) at(path string, off int) string {
	line, col := lineCol(p.data, off)
	if p.file == "" {
		return fmt.Sprintf("%s (%d:%d)", path, line, col)
	}
	return fmt.Sprintf("%s (%s:%d:%d)", path, filepath.Base(p.file), line, col)
}

// toolPatterns reads an array of tool names and globs.
func (p *configParser) toolPatterns(v *jsonValue, path string) ([]policy.Pattern, error) {
	if v.Kind != jsonArray {
		return nil, p.errAt(v.Off, path, `want an array of tool names or globs like ["delete_*", "github/merge_pull_request"], got %s`, v.Describe())
	}
	var out []policy.Pattern
	seen := map[string]int{}
	for i, e := range v.Elems {
		epath := jsonPathIndex(path, i)
		if e.Kind != jsonString {
			return nil, p.errAt(e.Off, epath, `want a tool name or glob in double quotes like "delete_*", got %s`, e.Describe())
		}
		if err := policy.CheckGlob(e.Str); err != nil {
			return nil, p.errAt(e.Off, epath, "%v", err)
		}
		if first, ok := seen[e.Str]; ok {
			line, col := lineCol(p.data, first)
			return nil, p.errAt(e.Off, epath, "%q is listed twice (first at %d:%d); remove one", e.Str, line, col)
		}
		seen[e.Str] = e.Off
		out = append(out, policy.Pattern{Glob: e.Str, At: p.at(epath, e.Off)})
	}
	return out, nil
}

// refuseRules reads an array of annotation rules.
func (p *configParser) refuseRules(v *jsonValue, path string) ([]policy.Pattern, error) {
	want := `["destructive"], ["notReadOnly"] or ["openWorld"]`
	if v.Kind != jsonArray {
		return nil, p.errAt(v.Off, path, "want an array of annotation rules like %s, got %s", want, v.Describe())
	}
	var out []policy.Pattern
	for i, e := range v.Elems {
		epath := jsonPathIndex(path, i)
		if e.Kind != jsonString {
			return nil, p.errAt(e.Off, epath, "want one of %s in double quotes, got %s", strings.Join(policy.Rules, ", "), e.Describe())
		}
		if !slices.Contains(policy.Rules, e.Str) {
			if s := suggest(e.Str, policy.Rules); s != "" {
				return nil, p.errAt(e.Off, epath, "unknown rule %q; did you mean %q? (rules: %s)", e.Str, s, strings.Join(policy.Rules, ", "))
			}
			return nil, p.errAt(e.Off, epath, "unknown rule %q (rules: %s: tools that may destroy data, that may change anything, that reach beyond the server)", e.Str, strings.Join(policy.Rules, ", "))
		}
		out = append(out, policy.Pattern{Glob: e.Str, At: p.at(epath, e.Off)})
	}
	return out, nil
}

// audit reads "audit": {"arguments": bool, "results": bool, "maxSize":
// size, "keep": n}.
func (p *configParser) audit(s *Settings, v *jsonValue, path string) error {
	if err := p.wantKind(v, path, jsonObject, `an object like {"arguments": true, "maxSize": "16MiB", "keep": 3}`); err != nil {
		return err
	}
	if err := p.noDuplicateKeys(v, path); err != nil {
		return err
	}
	a := &s.Audit
	for _, f := range v.Members {
		fpath := jsonPathKey(path, f.Key)
		var err error
		switch f.Key {
		case "arguments":
			err = p.wantKind(f.Value, fpath, jsonBool, "true or false")
			a.Arguments = f.Value.Bool
		case "results":
			err = p.wantKind(f.Value, fpath, jsonBool, "true or false")
			a.Results = f.Value.Bool
		case "maxSize":
			a.MaxSize, err = p.byteSize(f.Value, fpath, minAuditSize, maxAuditSize)
		case "keep":
			a.Keep, err = p.integer(f.Value, fpath, 0, maxAuditKeep, "files")
		default:
			err = p.unknownKey(f, fpath, auditKeys)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
