package trust

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/policy"
)

// Marks put before the description of a tool the tree shows pinned or
// new, so that its doc.go line and its file say so.
const (
	markChanged = "[CHANGED upstream; the pinned definition is shown: mcpfs diff %s] "
	markNew     = "[NEW tool, not yet trusted: mcpfs diff %s] "
)

// View applies a policy and pins to catalogs. It is safe for concurrent
// use.
type View struct {
	log *slog.Logger

	mu     sync.Mutex
	policy policy.Policy
	pins   store
	gen    uint64
	hashes map[string]string  // Hash by definition, as Apply sees the same ones again and again
	memo   map[string]applied // the last Apply's result per server
}

// maxHashes bounds View.hashes; past it, the memo starts afresh.
const maxHashes = 1 << 14

// hash is Hash of def, remembered. v.mu is held.
func (v *View) hash(def []byte) string {
	if h, ok := v.hashes[string(def)]; ok {
		return h
	}
	if len(v.hashes) >= maxHashes || v.hashes == nil {
		v.hashes = map[string]string{}
	}
	h := Hash(def)
	v.hashes[string(def)] = h
	return h
}

// New returns a View with policy pol, keeping pins in dir (none kept
// across processes when dir is empty). log may be nil.
func New(dir string, pol policy.Policy, log *slog.Logger) *View {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &View{log: log, policy: pol, pins: store{dir: dir, servers: map[string]*serverPins{}}}
}

// Gen is a number that changes whenever the view would turn the same
// catalog into another one: a new policy, a trusted tool.
func (v *View) Gen() uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.gen
}

// SetPolicy makes pol the policy; it reports whether it changed.
func (v *View) SetPolicy(pol policy.Policy) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.policy.Equal(&pol) {
		return false
	}
	v.policy = pol
	v.gen++
	return true
}

// Preload reads, in the background, the pin files of those of servers
// whose tools are pinned, so that the first Apply finds them read (Apply
// waits for it): an engine starts it before it loads its servers' cached
// listings, which it then does beside it.
func (v *View) Preload(servers []discovery.ServerConfig) {
	v.mu.Lock()
	var pinned []string
	for _, s := range servers {
		if v.policy.Pinning(s.Name, s.Key) {
			pinned = append(pinned, s.Name)
		}
	}
	go func() {
		defer v.mu.Unlock()
		v.pins.preload(pinned)
	}()
}

// Apply returns the catalog the tree shows for cat: the same servers and
// version, each server's tools filtered by the policy and, where pinning
// is on, each pinned tool that changed upstream replaced by its pinned
// definition, marked. The first listing of a server pins its tools; a
// tool it lists later is pinned and marked new.
func (v *View) Apply(cat *discovery.Catalog) *discovery.Catalog {
	if cat == nil {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	out := &discovery.Catalog{Version: cat.Version, Servers: make([]discovery.ServerSnapshot, len(cat.Servers))}
	memo := make(map[string]applied, len(cat.Servers))
	var pinned []string
	for _, s := range cat.Servers {
		if v.policy.Pinning(s.Name, s.Key) {
			pinned = append(pinned, s.Name)
		}
	}
	v.pins.preload(pinned)
	for i, s := range cat.Servers {
		out.Servers[i] = v.server(s, memo)
	}
	v.memo = memo
	return out
}

// applied is what Apply made of one server's tools, kept for the next
// Apply: a catalog is published on every change of any server, and the
// servers that did not change keep their tools slice (snapshots are
// immutable), so their result is reused instead of computed again.
type applied struct {
	key     string
	in      []discovery.Tool // the live tools (compared by identity)
	gen     uint64
	pinning bool
	pins    *serverPins
	stamp   fileStamp
	out     []discovery.Tool
}

// sameJSON reports whether a and b are the same JSON text but for the
// white space between tokens. It may say false for equal values written
// differently (escapes, key order); callers then compare hashes.
func sameJSON(a, b []byte) bool {
	i, j := 0, 0
	inString, escaped := false, false
	for {
		if !inString {
			for i < len(a) && isSpace(a[i]) {
				i++
			}
			for j < len(b) && isSpace(b[j]) {
				j++
			}
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		c := a[i]
		if c != b[j] {
			return false
		}
		i++
		j++
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// sameTools reports whether a and b are the same slice.
func sameTools(a, b []discovery.Tool) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// server is Apply for one server, reusing the last Apply's result when
// nothing it depends on changed; memo collects this Apply's results.
// v.mu is held.
func (v *View) server(s discovery.ServerSnapshot, memo map[string]applied) discovery.ServerSnapshot {
	pinning := v.policy.Pinning(s.Name, s.Key)
	var sp *serverPins
	if pinning {
		sp, _ = v.pins.load(s.Name) // an error is reported by pin
	}
	if m, ok := v.memo[s.Name]; ok && m.key == s.Key && m.gen == v.gen && m.pinning == pinning &&
		m.pins == sp && (sp == nil || m.stamp == sp.stamp) && sameTools(m.in, s.Tools) {
		memo[s.Name] = m
		s.Tools = m.out
		return s
	}
	in := s.Tools
	s = v.applyServer(s, pinning)
	m := applied{key: s.Key, in: in, gen: v.gen, pinning: pinning, out: s.Tools}
	if pinning {
		// After pin: it may have pinned new tools (and saved the file).
		if m.pins, _ = v.pins.load(s.Name); m.pins != nil {
			m.stamp = m.pins.stamp
		}
	}
	memo[s.Name] = m
	return s
}

// applyServer computes Apply for one server. v.mu is held.
func (v *View) applyServer(s discovery.ServerSnapshot, pinning bool) discovery.ServerSnapshot {
	shown := s.Tools
	var pinned map[string]json.RawMessage
	if pinning {
		shown, pinned = v.pin(s)
	}
	tools := make([]discovery.Tool, 0, len(shown))
	for i, t := range shown {
		pt := policy.Tool{Server: s.Name, ServerKey: s.Key, Name: t.Name, Raw: s.Tools[i].Raw}
		if v.policy.Check(pt).Denied {
			continue
		}
		if p, ok := pinned[t.Name]; ok {
			pt.Raw = p
			if v.policy.Check(pt).Denied {
				continue
			}
		}
		tools = append(tools, t)
	}
	s.Tools = tools
	return s
}

// pin pins the tools of s not pinned yet and returns the tools to show
// (in the order of s.Tools) and the pinned definitions that differ from
// the live ones. v.mu is held.
func (v *View) pin(s discovery.ServerSnapshot) ([]discovery.Tool, map[string]json.RawMessage) {
	sp, err := v.pins.load(s.Name)
	if err != nil {
		v.log.Warn("tool definitions are not pinned", "server", s.Name, "error", err)
		return s.Tools, nil
	}
	first := sp == nil
	if first {
		if len(s.Tools) == 0 {
			return s.Tools, nil // nothing listed yet: not known
		}
		sp = &serverPins{Server: s.Key, Tools: map[string]Pin{}}
	}
	dirty := first
	now := time.Now().UTC()
	shown := make([]discovery.Tool, len(s.Tools))
	var differ map[string]json.RawMessage
	for i, t := range s.Tools {
		shown[i] = t
		p, ok := sp.Tools[t.Name]
		sum := rawSum(t.Raw)
		if ok && p.Sum == "" && p.Def != nil && sameJSON(p.Def, t.Raw) {
			// A pin from before sums were kept, listed as pinned: the
			// sum is kept from now on.
			p.Sum = sum
			sp.Tools[t.Name] = p
			dirty = true
		}
		if ok && !p.New && p.Sum == sum {
			// The pinned tool: the same hash, and nothing to mark.
			// (Hashing parses the definition: at thousands of tools,
			// most of an engine's start.)
			continue
		}
		h := p.Hash
		if !ok || p.Sum != sum {
			h = v.hash(t.Raw)
		}
		switch {
		case !ok:
			sp.Tools[t.Name] = Pin{Hash: h, Sum: sum, Def: t.Raw, Pinned: now, New: !first}
			dirty = true
			if !first {
				shown[i].Raw = mark(t.Raw, fmt.Sprintf(markNew, s.Key))
			}
		case p.Hash != h:
			def := sp.def(t.Name)
			shown[i].Raw = mark(def, fmt.Sprintf(markChanged, s.Key))
			if differ == nil {
				differ = map[string]json.RawMessage{}
			}
			differ[t.Name] = def
		case p.New:
			shown[i].Raw = mark(t.Raw, fmt.Sprintf(markNew, s.Key))
		}
	}
	if dirty {
		if err := v.pins.save(s.Name, sp); err != nil {
			v.log.Warn("tool definitions pinned for this process only", "server", s.Name, "error", err)
		}
	}
	return shown, differ
}

// mark returns def with text put before its description.
func mark(def json.RawMessage, text string) json.RawMessage {
	if out, ok := markFast(def, text); ok {
		return out
	}
	return markSlow(def, text)
}

// markFast is mark for a definition whose top-level object has one
// "description" string (or none): the text is put into the bytes, not
// into a decoded object encoded again (a thousand tools marked new cost
// tens of milliseconds that way). ok is false when def is anything else.
func markFast(def json.RawMessage, text string) (out json.RawMessage, ok bool) {
	lit, err := json.Marshal(text)
	if err != nil {
		return nil, false
	}
	i := skipSpace(def, 0)
	if i == len(def) || def[i] != '{' {
		return nil, false
	}
	open := i
	i++
	at := -1 // the description's opening quote
	for n := 0; ; n++ {
		i = skipSpace(def, i)
		if i < len(def) && def[i] == '}' && n == 0 {
			i++
			break
		}
		if i == len(def) || def[i] != '"' {
			return nil, false
		}
		end, plain := skipString(def, i)
		if end < 0 || !plain {
			return nil, false // a key with escapes: left to markSlow
		}
		key := string(def[i+1 : end-1])
		i = skipSpace(def, end)
		if i == len(def) || def[i] != ':' {
			return nil, false
		}
		i = skipSpace(def, i+1)
		start := i
		if i = skipValue(def, i); i < 0 {
			return nil, false
		}
		if key == "description" {
			if at >= 0 || def[start] != '"' {
				return nil, false
			}
			at = start
		}
		i = skipSpace(def, i)
		if i == len(def) {
			return nil, false
		}
		if def[i] == '}' {
			i++
			break
		}
		if def[i] != ',' {
			return nil, false
		}
		i++
	}
	if skipSpace(def, i) != len(def) {
		return nil, false
	}
	out = make(json.RawMessage, 0, len(def)+len(lit)+16)
	if at < 0 {
		out = append(out, def[:open+1]...)
		out = append(out, `"description":`...)
		out = append(out, lit...)
		if rest := skipSpace(def, open+1); def[rest] != '}' {
			out = append(out, ',')
		}
		return append(out, def[open+1:]...), true
	}
	out = append(out, def[:at]...)
	out = append(out, lit[:len(lit)-1]...) // the text, its closing quote left out
	return append(out, def[at+1:]...), true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] (-1 when
// it does not end), and whether it holds no escape.
func skipString(b []byte, i int) (int, bool) {
	plain := true
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			plain = false
			i++
		case '"':
			return i + 1, plain
		}
	}
	return -1, false
}

// skipValue returns the index after the JSON value starting at b[i], -1
// when it does not end. Values inside are not checked.
func skipValue(b []byte, i int) int {
	if i == len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := skipString(b, i)
		return end
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end, _ := skipString(b, i)
				if end < 0 {
					return -1
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	default:
		start := i
		for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
			i++
		}
		if i == start {
			return -1
		}
		return i
	}
}

// markSlow is mark through a decoded object.
func markSlow(def json.RawMessage, text string) json.RawMessage {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(def, &obj); err != nil || obj == nil {
		return def
	}
	var desc string
	if d, ok := obj["description"]; ok {
		json.Unmarshal(d, &desc)
	}
	b, _ := json.Marshal(text + desc)
	obj["description"] = b
	out, err := json.Marshal(obj)
	if err != nil {
		return def
	}
	return out
}

// CheckCall returns a *policy.DeniedError when the policy denies a call
// of tool on server (its normalised name); cat is the live catalog. The
// tool's annotations are read from its live listing and from its pinned
// definition: either may deny.
func (v *View) CheckCall(cat *discovery.Catalog, server, tool string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	t := policy.Tool{Server: server, Name: tool}
	var live json.RawMessage
	if s, ok := cat.Server(server); ok {
		t.ServerKey = s.Key
		for _, lt := range s.Tools {
			if lt.Name == tool {
				live = lt.Raw
				break
			}
		}
	}
	t.Raw = live
	if err := v.policy.CheckCall(t); err != nil {
		return err
	}
	if !v.policy.Pinning(t.Server, t.ServerKey) {
		return nil
	}
	if sp, _ := v.pins.load(server); sp != nil {
		if p, ok := sp.Tools[tool]; ok && p.Sum != rawSum(live) && p.Hash != v.hash(live) {
			t.Raw = sp.def(tool)
			return v.policy.CheckCall(t)
		}
	}
	return nil
}

// Change is how one tool of a server differs from its pin.
type Change struct {
	Tool string
	// Kind is "changed" (listed with another definition than pinned),
	// "new" (pinned at a later listing, not trusted yet) or "removed"
	// (pinned, no longer listed).
	Kind   string
	Pinned json.RawMessage // nil for new
	Live   json.RawMessage // nil for removed
}

// Diff returns how the tools of server (normalised name or config name)
// in the live catalog cat differ from their pins, sorted by tool.
func (v *View) Diff(cat *discovery.Catalog, server string) ([]Change, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	s, sp, err := v.lookup(cat, server)
	if err != nil || sp == nil {
		return nil, err
	}
	if err := sp.loadDefs(); err != nil {
		return nil, err
	}
	var out []Change
	listed := map[string]bool{}
	for _, t := range s.Tools {
		listed[t.Name] = true
		p, ok := sp.Tools[t.Name]
		switch {
		case !ok:
			out = append(out, Change{Tool: t.Name, Kind: "new", Live: t.Raw})
		case p.Hash != Hash(t.Raw):
			out = append(out, Change{Tool: t.Name, Kind: "changed", Pinned: p.Def, Live: t.Raw})
		case p.New:
			out = append(out, Change{Tool: t.Name, Kind: "new", Live: t.Raw})
		}
	}
	if s.State == discovery.StateReady && !s.Stale {
		for name, p := range sp.Tools {
			if !listed[name] {
				out = append(out, Change{Tool: name, Kind: "removed", Pinned: p.Def})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tool < out[j].Tool })
	return out, nil
}

// Trust pins the live definitions of tools of server (all its changed and
// new tools when tools is empty; then pins of tools no longer listed are
// dropped too) and returns the tools it accepted.
func (v *View) Trust(cat *discovery.Catalog, server string, tools []string) ([]string, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	s, sp, err := v.lookup(cat, server)
	if err != nil {
		return nil, err
	}
	if sp == nil {
		sp = &serverPins{Server: s.Key, Tools: map[string]Pin{}}
	}
	live := map[string]json.RawMessage{}
	for _, t := range s.Tools {
		live[t.Name] = t.Raw
	}
	for _, name := range tools {
		if _, ok := live[name]; !ok {
			var names []string
			for _, t := range s.Tools {
				names = append(names, t.Name)
			}
			return nil, fmt.Errorf("server %q lists no tool %q (tools: %s)", s.Key, name, strings.Join(names, ", "))
		}
	}
	if len(tools) == 0 {
		for name := range live {
			tools = append(tools, name)
		}
		if s.State == discovery.StateReady && !s.Stale {
			for name := range sp.Tools {
				if _, ok := live[name]; !ok {
					delete(sp.Tools, name)
				}
			}
		}
	}
	slices.Sort(tools)
	now := time.Now().UTC()
	var accepted []string
	for _, name := range tools {
		h := Hash(live[name])
		if p, ok := sp.Tools[name]; ok && p.Hash == h && !p.New {
			continue
		}
		sp.Tools[name] = Pin{Hash: h, Sum: rawSum(live[name]), Def: live[name], Pinned: now}
		accepted = append(accepted, name)
	}
	if err := v.pins.save(s.Name, sp); err != nil {
		return nil, err
	}
	v.gen++
	return accepted, nil
}

// lookup finds server in cat and loads its pins (nil when none). v.mu is
// held.
func (v *View) lookup(cat *discovery.Catalog, server string) (discovery.ServerSnapshot, *serverPins, error) {
	for _, s := range cat.Servers {
		if s.Name == server || s.Key == server {
			if !v.policy.Pinning(s.Name, s.Key) {
				return s, nil, fmt.Errorf("server %q: pinning is off in the config (mcpfs.tools pin false)", s.Key)
			}
			sp, err := v.pins.load(s.Name)
			return s, sp, err
		}
	}
	var names []string
	for _, s := range cat.Servers {
		names = append(names, s.Key)
	}
	return discovery.ServerSnapshot{}, nil, fmt.Errorf("no server %q in the config (servers: %s)", server, strings.Join(names, ", "))
}
