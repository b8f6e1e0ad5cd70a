package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/fs/gen/shape"
	"github.com/mcpfs/mcpfs/skills"
)

// Learned result types. A tool that declares no output schema but returns
// JSON (structured content, or text that parses as JSON) has the shape of
// its results recorded on every call, merged across calls and kept in the
// cache (never a value: see fs/gen/shape). The tree then declares
// <Func>Result for it, next to the function, which keeps returning
// mcp.Result: r.Decode(&v) reads the learned type. A change of a learned
// type publishes a new tree and type-checks again the saved skills that
// import the server.

// learnWrite is how often a shape whose type did not change is written
// again (to keep its count of results).
const learnWrite = 30 * time.Second

// learner holds the learned shapes of an engine's servers.
type learner struct {
	mu    sync.Mutex
	keyMu sync.Mutex // guards keys and keysOf
	// gen changes whenever a learned type changes or shapes are forgotten.
	gen uint64
	// byKey: server cache key → tool name → what is known, loaded from
	// the cache (all servers in one scan) on first use.
	byKey   map[string]map[string]*learnedTool
	loaded  bool
	keys    map[string]string // package name → cache key, for keysOf
	keysOf  *discovery.Config // the config keys was made from
	typed   map[string]bool   // "server\x00tool" → declares an output schema; reset per catalog version
	typedAt uint64            // the catalog version of typed
	// broken: skills that stopped type-checking after a learned type changed.
	broken map[string]string
}

type learnedTool struct {
	l       *shape.Learned
	written time.Time
	dirty   bool // results merged since it was written
}

func newLearner() *learner {
	return &learner{byKey: map[string]map[string]*learnedTool{}, typed: map[string]bool{}, broken: map[string]string{}}
}

// serverKey returns the cache key of the server named name (its package
// name) in the config, "" when it has none.
func (e *Engine) serverKey(name string) string {
	cfg := e.Config()
	e.learn.keyMu.Lock()
	defer e.learn.keyMu.Unlock()
	if e.learn.keysOf != cfg {
		e.learn.keys, e.learn.keysOf = make(map[string]string, len(cfg.Servers)), cfg
		for _, sc := range cfg.Servers {
			e.learn.keys[sc.Name] = discovery.ServerKey(sc)
		}
	}
	return e.learn.keys[name]
}

// shapesOf returns the learned shapes of the server with key, loading them
// from the cache the first time. l.mu must be held.
func (e *Engine) shapesOf(key string) map[string]*learnedTool {
	if !e.learn.loaded {
		e.learn.loaded = true
		if e.cache != nil {
			now := time.Now()
			for k, tools := range e.cache.AllShapes() {
				m := map[string]*learnedTool{}
				for tool, b := range tools {
					var l shape.Learned
					if json.Unmarshal(b, &l) == nil && l.Root != nil {
						m[tool] = &learnedTool{l: &l, written: now}
					}
				}
				e.learn.byKey[k] = m
			}
		}
	}
	m, ok := e.learn.byKey[key]
	if !ok {
		m = map[string]*learnedTool{}
		e.learn.byKey[key] = m
	}
	return m
}

// declaresOutput reports whether the tool declares an output schema that
// types its result, in which case its result type is not learned. l.mu
// must be held.
func (e *Engine) declaresOutput(cat *discovery.Catalog, server, tool string) bool {
	if e.learn.typedAt != cat.Version {
		e.learn.typed, e.learn.typedAt = map[string]bool{}, cat.Version
	}
	k := server + "\x00" + tool
	if v, ok := e.learn.typed[k]; ok {
		return v
	}
	v := false
	if s, ok := cat.Server(server); ok {
		for _, t := range s.Tools {
			if t.Name == tool {
				v = typedOutput(t.Raw)
				break
			}
		}
	}
	e.learn.typed[k] = v
	return v
}

// typedOutput reports whether a tool's listing declares an output schema
// the generator types its result from (fs/gen: an object schema with
// properties and no top-level $ref); results of other tools are learned.
func typedOutput(raw json.RawMessage) bool {
	var def struct {
		Output *struct {
			Type       json.RawMessage            `json:"type"`
			Ref        json.RawMessage            `json:"$ref"`
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"outputSchema"`
	}
	if json.Unmarshal(raw, &def) != nil || def.Output == nil || def.Output.Ref != nil || len(def.Output.Properties) == 0 {
		return false
	}
	t := strings.TrimSpace(string(def.Output.Type))
	return t == "" || t == `"object"`
}

// LearnFrom records the shape of one tools/call result of server (its
// package name) and tool. It reports whether the tool's learned type
// changed. Results that are errors, not JSON, or of a tool with an output
// schema are left out.
func (e *Engine) LearnFrom(server, tool string, result json.RawMessage) (changed bool) {
	return e.learnFrom(server, tool, result, false)
}

// learnFrom is LearnFrom; a deliberate one (mcpfs learn) is written at
// once and shows its count in a new tree.
func (e *Engine) learnFrom(server, tool string, result json.RawMessage, deliberate bool) (changed bool) {
	if len(result) == 0 || len(result) > shape.MaxBytes {
		return false
	}
	cat := e.sup.Catalog()
	e.learn.mu.Lock()
	if e.declaresOutput(cat, server, tool) {
		e.learn.mu.Unlock()
		return false
	}
	data, ok := shape.Result(result)
	if !ok {
		e.learn.mu.Unlock()
		return false
	}
	key := e.serverKey(server)
	if key == "" {
		e.learn.mu.Unlock()
		return false
	}
	m := e.shapesOf(key)
	cur := m[tool]
	var prev *shape.Learned
	if cur != nil {
		prev = cur.l
	}
	now := time.Now()
	next, changed, ok := prev.Add(data, now)
	if !ok {
		e.learn.mu.Unlock()
		return false
	}
	lt := &learnedTool{l: next}
	if cur != nil {
		lt.written = cur.written
	}
	m[tool] = lt
	write := changed || deliberate || now.Sub(lt.written) > learnWrite
	if write {
		lt.written = now
	} else {
		lt.dirty = true
	}
	if changed || deliberate {
		e.learn.gen++
	}
	e.learn.mu.Unlock()
	if write && e.cache != nil {
		if b, err := json.Marshal(next); err == nil {
			e.cache.StoreShape(key, tool, b)
		}
	}
	if changed || deliberate {
		e.publish(e.sup.Catalog())
	}
	if changed {
		e.log.Info("learned the result type of a tool", "server", server, "tool", tool, "results", next.Results)
		go e.recheckSkills(server, tool)
	}
	return changed
}

// flushShapes writes the shapes whose counts changed since they were
// written.
func (e *Engine) flushShapes() {
	if e.cache == nil {
		return
	}
	e.learn.mu.Lock()
	defer e.learn.mu.Unlock()
	for key, m := range e.learn.byKey {
		for tool, lt := range m {
			if !lt.dirty {
				continue
			}
			if b, err := json.Marshal(lt.l); err == nil {
				e.cache.StoreShape(key, tool, b)
			}
			lt.dirty = false
		}
	}
}

// withShapes returns cat with the learned shapes of its tools (Tool.Learned)
// for the generator; cat itself is not changed.
func (e *Engine) withShapes(cat *discovery.Catalog) *discovery.Catalog {
	e.learn.mu.Lock()
	defer e.learn.mu.Unlock()
	var out *discovery.Catalog
	for i, s := range cat.Servers {
		key := e.serverKey(s.Name)
		if key == "" {
			continue
		}
		m := e.shapesOf(key)
		if len(m) == 0 {
			continue
		}
		var tools []discovery.Tool
		for j, t := range s.Tools {
			lt := m[t.Name]
			if lt == nil {
				continue
			}
			in := shape.GenInput(lt.l)
			if in == nil {
				continue
			}
			if tools == nil {
				tools = append([]discovery.Tool(nil), s.Tools...)
			}
			tools[j].Learned = in
		}
		if tools == nil {
			continue
		}
		if out == nil {
			c := *cat
			c.Servers = append([]discovery.ServerSnapshot(nil), cat.Servers...)
			out = &c
		}
		out.Servers[i].Tools = tools
	}
	if out == nil {
		return cat
	}
	return out
}

// shapesGen is the generation of the learned types.
func (e *Engine) shapesGen() uint64 {
	e.learn.mu.Lock()
	defer e.learn.mu.Unlock()
	return e.learn.gen
}

// ForgetShapes forgets learned result types: of one tool of a server (its
// package name or config key), of a whole server (tool ""), or all
// (server ""). It returns how many it forgot.
func (e *Engine) ForgetShapes(server, tool string) (int, error) {
	key := ""
	if server != "" {
		if s, ok := e.sup.Catalog().Server(server); ok {
			key = e.serverKey(s.Name)
		} else {
			for _, sc := range e.Config().Servers {
				if sc.Key == server {
					key = discovery.ServerKey(sc)
				}
			}
		}
		if key == "" {
			return 0, fmt.Errorf("forget learned types: no server %q in the config", server)
		}
	}
	e.learn.mu.Lock()
	n := 0
	for k, m := range e.learn.byKey {
		if key != "" && k != key {
			continue
		}
		for t := range m {
			if tool == "" || t == tool {
				delete(m, t)
				n++
			}
		}
	}
	if key == "" {
		e.learn.byKey = map[string]map[string]*learnedTool{}
	}
	e.learn.gen++
	e.learn.mu.Unlock()
	if e.cache != nil {
		c, err := e.cache.ForgetShapes(key, tool)
		if err != nil {
			return n, err
		}
		n = max(n, c)
	}
	e.publish(e.sup.Catalog())
	return n, nil
}

// LearnedTools returns how many tools of the current tree have a learned
// result type.
func (e *Engine) LearnedTools() int {
	n := 0
	for _, s := range e.Tree().Catalog().Servers {
		for _, t := range s.Tools {
			if t.Learned != nil {
				n++
			}
		}
	}
	return n
}

// Learned returns what is known of the results of server's tool: nil
// when nothing.
func (e *Engine) Learned(server, tool string) *shape.Learned {
	key := e.serverKey(server)
	if key == "" {
		return nil
	}
	e.learn.mu.Lock()
	defer e.learn.mu.Unlock()
	if lt := e.shapesOf(key)[tool]; lt != nil {
		return lt.l
	}
	return nil
}

// DeclaresOutput reports whether server's tool declares an output schema
// (its result is typed without learning).
func (e *Engine) DeclaresOutput(server, tool string) bool {
	e.learn.mu.Lock()
	defer e.learn.mu.Unlock()
	return e.declaresOutput(e.sup.Catalog(), server, tool)
}

// BrokenSkills returns the saved skills that no longer type-check since a
// learned type changed, with why.
func (e *Engine) BrokenSkills() map[string]string {
	e.learn.mu.Lock()
	defer e.learn.mu.Unlock()
	out := make(map[string]string, len(e.learn.broken))
	for k, v := range e.learn.broken {
		out[k] = v
	}
	return out
}

// recheckSkills type-checks again, against the current tree, the saved skills that import
// server, after the learned type of its tool changed; one that fails is
// reported in the log and by BrokenSkills (mcpfs learn prints them).
func (e *Engine) recheckSkills(server, tool string) {
	if e.skills == nil {
		return
	}
	tree := e.Tree()
	imp := `"mcpfs/servers/` + server + `"`
	list := e.skills.List()
	for _, sk := range list {
		uses := false
		for name, b := range sk.Files {
			if strings.HasSuffix(name, ".go") && bytes.Contains(b, []byte(imp)) {
				uses = true
			}
		}
		if !uses {
			continue
		}
		var others []skills.Skill
		for _, o := range list {
			if o.Name != sk.Name {
				others = append(others, o)
			}
		}
		_, err := skills.Validate(tree, sk.Name, sk.Files, others)
		e.learn.mu.Lock()
		if err != nil {
			e.learn.broken[sk.Name] = fmt.Sprintf("after the learned type of %s.%s changed: %v", server, tool, err)
		} else {
			delete(e.learn.broken, sk.Name)
		}
		e.learn.mu.Unlock()
		if err != nil {
			e.log.Warn("a saved skill no longer type-checks after a learned result type changed",
				"skill", sk.Name, "server", server, "tool", tool, "error", err)
		}
	}
}

// Learn calls server's tool once with args, as a run would (policy and
// audit apply), and records the shape of its result.
func (e *Engine) Learn(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
	res, err := e.trustedCall(ctx, FaceCLI, newRunID(), server, tool, args)
	if err != nil {
		return nil, err
	}
	e.learnFrom(server, tool, res, true)
	return res, nil
}
