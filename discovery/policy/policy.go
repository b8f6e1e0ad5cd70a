package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// ErrDenied is wrapped by the error of a call the policy refuses.
var ErrDenied = errors.New("denied by the tool policy")

// Annotation rules a scope may refuse.
const (
	// Destructive refuses tools that may destroy data: not read-only and
	// without destructiveHint false.
	Destructive = "destructive"
	// NotReadOnly refuses tools without readOnlyHint true.
	NotReadOnly = "notReadOnly"
	// OpenWorld refuses tools that reach beyond the server (the web, say):
	// without openWorldHint false.
	OpenWorld = "openWorld"
)

// Rules are the annotation rules, in the order of the docs.
var Rules = []string{Destructive, NotReadOnly, OpenWorld}

// Pattern is a tool name or glob (path.Match syntax) and where it was
// written. A pattern with a "/" matches "<server>/<tool>" (the server's
// name as written in the config, or its normalised name); one without
// matches the tool name.
type Pattern struct {
	Glob string
	// At names the pattern for messages: its JSON path and file position,
	// like `mcpfs.tools.deny[0] (servers.json:12:7)`.
	At string
}

// Scope is the rules of one level: the whole config or one server.
type Scope struct {
	// Allow, when not empty, is the only tools visible: a tool matching
	// none of them is denied. AllowAt names the list for messages.
	Allow   []Pattern
	AllowAt string
	// Deny lists tools never visible; it beats Allow and Except.
	Deny []Pattern
	// Refuse lists annotation rules (Destructive, NotReadOnly,
	// OpenWorld); a tool they match is denied unless Except matches it.
	Refuse []Pattern
	// Except lists tools exempt from Refuse rules (at either level).
	Except []Pattern
	// Pin, when not nil, turns pinning of tool definitions on or off.
	Pin *bool
}

// Policy is the tool policy of a config. The zero value allows every
// tool and pins definitions.
type Policy struct {
	Global Scope
	// Servers are per-server scopes by the server's name as written in
	// the config or its normalised name.
	Servers map[string]Scope
}

// IsZero reports whether p has no rule at all.
func (p *Policy) IsZero() bool { return p == nil || p.Equal(&Policy{}) }

// Equal reports whether p and q are the same rules, written at the same
// places.
func (p *Policy) Equal(q *Policy) bool {
	if p == nil || q == nil {
		return p == q || p.emptyOr(q)
	}
	if !p.Global.equal(q.Global) || len(p.Servers) != len(q.Servers) {
		return false
	}
	for k, s := range p.Servers {
		t, ok := q.Servers[k]
		if !ok || !s.equal(t) {
			return false
		}
	}
	return true
}

func (p *Policy) emptyOr(q *Policy) bool {
	if p == nil {
		p, q = q, p
	}
	return p.Global.equal(Scope{}) && len(p.Servers) == 0
}

func (s Scope) equal(t Scope) bool {
	b := func(p *bool) int {
		if p == nil {
			return -1
		}
		if *p {
			return 1
		}
		return 0
	}
	return slices.Equal(s.Allow, t.Allow) && s.AllowAt == t.AllowAt && slices.Equal(s.Deny, t.Deny) &&
		slices.Equal(s.Refuse, t.Refuse) && slices.Equal(s.Except, t.Except) && b(s.Pin) == b(t.Pin)
}

// Tool is what the policy looks at: the server (its normalised name and
// its name in the config) and the tool as listed (Raw, its tools/list
// object; nil when the server did not list it).
type Tool struct {
	Server, ServerKey string
	Name              string
	Raw               json.RawMessage
}

// Decision is the verdict on one tool.
type Decision struct {
	Denied bool
	// Rule names the rule that decided, for messages: `mcpfs.tools.deny[0]
	// "*delete*" (servers.json:12:7)`. Empty when nothing denies.
	Rule string
}

// Check decides whether t is allowed: deny patterns first (the server's,
// then the global ones), then the allow lists (both must let it through
// when given), then the annotation rules unless an except pattern exempts
// the tool.
func (p *Policy) Check(t Tool) Decision {
	if p == nil {
		return Decision{}
	}
	ss := p.server(t)
	scopes := []Scope{ss, p.Global}
	for _, s := range scopes {
		if pat, ok := match(s.Deny, t); ok {
			return Decision{Denied: true, Rule: pat.describe()}
		}
	}
	for _, s := range scopes {
		if len(s.Allow) > 0 {
			if _, ok := match(s.Allow, t); !ok {
				return Decision{Denied: true, Rule: "not in " + s.AllowAt}
			}
		}
	}
	for _, s := range scopes {
		if _, ok := match(s.Except, t); ok {
			return Decision{}
		}
	}
	if len(ss.Refuse) == 0 && len(p.Global.Refuse) == 0 {
		return Decision{}
	}
	ann := annotationsOf(t.Raw)
	for _, s := range scopes {
		for _, r := range s.Refuse {
			if ann.has(r.Glob) {
				return Decision{Denied: true, Rule: fmt.Sprintf("%s %q (%s)", r.At, r.Glob, ann.why(r.Glob))}
			}
		}
	}
	return Decision{}
}

// Pinning reports whether definitions of the server's tools are pinned:
// the server's pin setting, else the global one, else true.
func (p *Policy) Pinning(server, key string) bool {
	if p == nil {
		return true
	}
	if s := p.server(Tool{Server: server, ServerKey: key}); s.Pin != nil {
		return *s.Pin
	}
	if p.Global.Pin != nil {
		return *p.Global.Pin
	}
	return true
}

func (p *Policy) server(t Tool) Scope {
	if s, ok := p.Servers[t.ServerKey]; ok && t.ServerKey != "" {
		return s
	}
	return p.Servers[t.Server]
}

// DeniedError is the error of a call the policy refuses.
type DeniedError struct {
	Server, Tool string
	Rule         string
}

func (e *DeniedError) Error() string {
	return fmt.Sprintf("call %q on server %q: %v: %s (edit the config's mcpfs.tools section to allow it)", e.Tool, e.Server, ErrDenied, e.Rule)
}

func (e *DeniedError) Unwrap() error { return ErrDenied }

// CheckCall returns a *DeniedError when the policy denies t, else nil.
func (p *Policy) CheckCall(t Tool) error {
	if d := p.Check(t); d.Denied {
		return &DeniedError{Server: t.Server, Tool: t.Name, Rule: d.Rule}
	}
	return nil
}

func (pat Pattern) describe() string {
	if pat.At == "" {
		return strconv(pat.Glob)
	}
	return pat.At + " " + strconv(pat.Glob)
}

func strconv(s string) string { return fmt.Sprintf("%q", s) }

// match returns the first pattern of pats matching t.
func match(pats []Pattern, t Tool) (Pattern, bool) {
	for _, p := range pats {
		if Match(p.Glob, t) {
			return p, true
		}
	}
	return Pattern{}, false
}

// Match reports whether glob matches t: "<server>/<tool>" when glob has
// a "/" (the server by its config name or normalised name), else the
// tool's name.
func Match(glob string, t Tool) bool {
	if srv, tool, ok := strings.Cut(glob, "/"); ok {
		okS, _ := path.Match(srv, t.ServerKey)
		if !okS {
			okS, _ = path.Match(srv, t.Server)
		}
		okT, _ := path.Match(tool, t.Name)
		return okS && okT
	}
	ok, _ := path.Match(glob, t.Name)
	return ok
}

// CheckGlob says what is wrong with a pattern, or returns nil.
func CheckGlob(glob string) error {
	if strings.TrimSpace(glob) == "" {
		return errors.New("is empty; give a tool name or a glob like \"delete_*\"")
	}
	if strings.Count(glob, "/") > 1 {
		return fmt.Errorf("%q has more than one \"/\"; write \"tool\" or \"server/tool\"", glob)
	}
	for _, part := range strings.Split(glob, "/") {
		if _, err := path.Match(part, ""); err != nil {
			return fmt.Errorf("%q is not a valid glob: %v", glob, err)
		}
		if part == "" {
			return fmt.Errorf("%q has an empty side of \"/\"; write \"server/tool\"", glob)
		}
	}
	return nil
}

// annotations are a tool's hints, nil when not given.
type annotations struct {
	ReadOnly    *bool `json:"readOnlyHint"`
	Destructive *bool `json:"destructiveHint"`
	OpenWorld   *bool `json:"openWorldHint"`
}

func annotationsOf(raw json.RawMessage) annotations {
	var v struct {
		Annotations annotations `json:"annotations"`
	}
	json.Unmarshal(raw, &v)
	return v.Annotations
}

// has applies the MCP spec's defaults: a tool is not read-only, is
// destructive (when not read-only) and open-world unless it says not.
func (a annotations) has(rule string) bool {
	readOnly := a.ReadOnly != nil && *a.ReadOnly
	switch rule {
	case NotReadOnly:
		return !readOnly
	case Destructive:
		return !readOnly && (a.Destructive == nil || *a.Destructive)
	case OpenWorld:
		return a.OpenWorld == nil || *a.OpenWorld
	}
	return false
}

// why says on what a rule matched.
func (a annotations) why(rule string) string {
	switch rule {
	case NotReadOnly:
		if a.ReadOnly == nil {
			return "no readOnlyHint"
		}
		return "readOnlyHint false"
	case Destructive:
		if a.Destructive == nil {
			return "not read-only and no destructiveHint"
		}
		return "destructiveHint true"
	case OpenWorld:
		if a.OpenWorld == nil {
			return "no openWorldHint"
		}
		return "openWorldHint true"
	}
	return rule
}
