// Package shape learns what a tool's JSON results look like: field names,
// JSON types, which fields every result had, the element shape of arrays.
// Never a value: strings, numbers and the keys of map-like objects are not
// kept. Shapes of several results merge into one; what disagrees becomes
// "any". The engine records shapes of tools that declare no output schema
// (in the cache), and the generator types their results from Schema.
//
// It is pure (no I/O, no clock: callers pass the time) and imports only
// the standard library.
package shape

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"time"
)

// Kinds of a Shape.
const (
	Null   = "null"
	Bool   = "boolean"
	Number = "number"
	String = "string"
	Array  = "array"
	Object = "object"
	Any    = "any" // values of different kinds, or past a bound
)

// Bounds keep a shape small whatever a server returns.
const (
	MaxDepth  = 6   // nesting below the result; deeper values are Any
	MaxFields = 48  // more keys in one object make it a map
	MaxNodes  = 300 // shapes in one result's tree; past it, Any
	MaxKeyLen = 64  // a longer key makes its object a map
	MaxBytes  = 8 << 20
)

// Shape is the shape of one JSON value, merged over N values.
type Shape struct {
	Kind string `json:"k"`
	N    int    `json:"n"` // values merged into this shape
	// Fields of an object, sorted by name.
	Fields []Field `json:"f,omitempty"`
	// Map: an object whose keys are data (too many, not names, or
	// different in every value); Elem is the shape of its values.
	Map bool `json:"m,omitempty"`
	// Elem is the shape of an array's elements, or of a map's values.
	Elem *Shape `json:"e,omitempty"`
}

// Field is one key of an object.
type Field struct {
	Name  string `json:"name"`
	Seen  int    `json:"seen"` // values of the object that had it
	Shape *Shape `json:"shape"`
}

// Learned is what is known of one tool's results.
type Learned struct {
	Results int       `json:"results"` // results merged
	First   time.Time `json:"first"`
	Changed time.Time `json:"changed"` // when the type last changed
	Root    *Shape    `json:"root"`
}

// Of returns the shape of a JSON value; ok is false when data is not JSON.
func Of(data []byte) (s *Shape, ok bool) {
	if len(data) > MaxBytes {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	nodes := 0
	return of(v, 0, &nodes), true
}

func of(v any, depth int, nodes *int) *Shape {
	*nodes++
	if depth > MaxDepth || *nodes > MaxNodes {
		return &Shape{Kind: Any, N: 1}
	}
	switch v := v.(type) {
	case nil:
		return &Shape{Kind: Null, N: 1}
	case bool:
		return &Shape{Kind: Bool, N: 1}
	case json.Number:
		return &Shape{Kind: Number, N: 1}
	case string:
		return &Shape{Kind: String, N: 1}
	case []any:
		s := &Shape{Kind: Array, N: 1}
		for _, e := range v {
			s.Elem = merge(s.Elem, of(e, depth+1, nodes))
		}
		return s
	case map[string]any:
		s := &Shape{Kind: Object, N: 1}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) > MaxFields || !allNames(keys) {
			s.Map = true
			for _, k := range keys {
				s.Elem = merge(s.Elem, of(v[k], depth+1, nodes))
			}
			return s
		}
		for _, k := range keys {
			s.Fields = append(s.Fields, Field{Name: k, Seen: 1, Shape: of(v[k], depth+1, nodes)})
		}
		return s
	}
	return &Shape{Kind: Any, N: 1}
}

// allNames reports whether keys look like field names, not data: short,
// starting with a letter or _, then letters, digits, _ or -.
func allNames(keys []string) bool {
	for _, k := range keys {
		if k == "" || len(k) > MaxKeyLen {
			return false
		}
		for i, r := range k {
			letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_'
			if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '-')) {
				return false
			}
		}
	}
	return true
}

// Merge returns the shape of the values of a and b together. Neither is
// changed.
func Merge(a, b *Shape) *Shape { return merge(a, b) }

func merge(a, b *Shape) *Shape {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	n := a.N + b.N
	switch {
	case a.Kind == Null && b.Kind != Null:
		c := *b
		c.N = n
		return &c
	case b.Kind == Null && a.Kind != Null:
		c := *a
		c.N = n
		return &c
	case a.Kind != b.Kind || a.Kind == Any:
		return &Shape{Kind: Any, N: n}
	}
	c := &Shape{Kind: a.Kind, N: n}
	switch a.Kind {
	case Array:
		c.Elem = merge(a.Elem, b.Elem)
	case Object:
		if a.Map || b.Map || varies(a, b) {
			c.Map = true
			c.Elem = merge(values(a), values(b))
			return c
		}
		i, j := 0, 0
		for i < len(a.Fields) || j < len(b.Fields) {
			switch {
			case j == len(b.Fields) || i < len(a.Fields) && a.Fields[i].Name < b.Fields[j].Name:
				c.Fields = append(c.Fields, a.Fields[i])
				i++
			case i == len(a.Fields) || b.Fields[j].Name < a.Fields[i].Name:
				c.Fields = append(c.Fields, b.Fields[j])
				j++
			default:
				c.Fields = append(c.Fields, Field{Name: a.Fields[i].Name, Seen: a.Fields[i].Seen + b.Fields[j].Seen,
					Shape: merge(a.Fields[i].Shape, b.Fields[j].Shape)})
				i++
				j++
			}
		}
		if len(c.Fields) > MaxFields {
			c.Fields, c.Map, c.Elem = nil, true, merge(values(a), values(b))
		}
	}
	return c
}

// values is the merged shape of an object's values.
func values(s *Shape) *Shape {
	if s.Map {
		return s.Elem
	}
	var v *Shape
	for _, f := range s.Fields {
		v = merge(v, f.Shape)
	}
	return v
}

// varies reports whether two objects' key sets disagree so much that their
// keys are data rather than names: fewer keys in both than half of the
// keys in either.
func varies(a, b *Shape) bool {
	if a.Map || b.Map {
		return true
	}
	common, all := 0, 0
	i, j := 0, 0
	for i < len(a.Fields) || j < len(b.Fields) {
		all++
		switch {
		case j == len(b.Fields) || i < len(a.Fields) && a.Fields[i].Name < b.Fields[j].Name:
			i++
		case i == len(a.Fields) || b.Fields[j].Name < a.Fields[i].Name:
			j++
		default:
			common++
			i++
			j++
		}
	}
	return all > 0 && common*2 < all
}

// Varies reports whether the results' shape depends on the call: the
// top-level objects' keys disagree (a SQL query's rows, a lookup by
// key), or they are of different kinds. Such a tool keeps mcp.Result.
func (l *Learned) Varies() bool {
	if l == nil || l.Root == nil {
		return true
	}
	r := l.Root
	switch r.Kind {
	case Object:
		return r.Map
	case Array:
		return r.Elem == nil || r.Elem.Kind == Any || r.Elem.Kind == Null
	}
	return true // scalars have nothing to type
}

// Add merges one result into l (nil: nothing learned yet) at now and
// returns the new value, and whether the Go type it gives changed. data
// is the result's JSON value; ok is false when it is not JSON.
func (l *Learned) Add(data []byte, now time.Time) (next *Learned, changed, ok bool) {
	s, ok := Of(data)
	if !ok {
		return l, false, false
	}
	if l == nil {
		return &Learned{Results: 1, First: now, Changed: now, Root: s}, true, true
	}
	root := merge(l.Root, s)
	next = &Learned{Results: l.Results + 1, First: l.First, Changed: l.Changed, Root: root}
	if Signature(l.Root) != Signature(root) {
		next.Changed, changed = now, true
	}
	return next, changed, true
}

// Signature is a string that changes exactly when the Go type made from
// the shape does: kinds, field names, which fields are always present,
// maps.
func Signature(s *Shape) string {
	var b strings.Builder
	sig(&b, s)
	return b.String()
}

func sig(b *strings.Builder, s *Shape) {
	if s == nil {
		b.WriteString("?")
		return
	}
	b.WriteString(s.Kind)
	switch s.Kind {
	case Array:
		b.WriteByte('[')
		sig(b, s.Elem)
		b.WriteByte(']')
	case Object:
		if s.Map {
			b.WriteString("map(")
			sig(b, s.Elem)
			b.WriteByte(')')
			return
		}
		b.WriteByte('{')
		for _, f := range s.Fields {
			b.WriteString(f.Name)
			if f.Seen < s.N {
				b.WriteByte('?')
			}
			b.WriteByte(':')
			sig(b, f.Shape)
			b.WriteByte(',')
		}
		b.WriteByte('}')
	}
}

// Schema returns a JSON Schema for the shape: what the generator types a
// learned result from. Fields every value had are required; numbers are
// "number" (a sample cannot prove a field is an integer); null-only and
// mixed values have no type (any).
func Schema(s *Shape) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	switch s.Kind {
	case Bool, Number, String:
		return map[string]any{"type": s.Kind}
	case Array:
		out := map[string]any{"type": Array}
		if s.Elem != nil {
			out["items"] = Schema(s.Elem)
		}
		return out
	case Object:
		out := map[string]any{"type": Object}
		if s.Map || len(s.Fields) == 0 {
			out["additionalProperties"] = Schema(s.Elem)
			return out
		}
		props := map[string]any{}
		var req []string
		for _, f := range s.Fields {
			props[f.Name] = Schema(f.Shape)
			if f.Seen >= s.N {
				req = append(req, f.Name)
			}
		}
		out["properties"] = props
		if len(req) > 0 {
			out["required"] = req
		}
		return out
	}
	return map[string]any{}
}

// Result extracts from a CallToolResult the JSON value that mcp.Result's
// Decode would read: the structured content when there is some, otherwise
// the text of the text blocks joined by newlines. ok is false for an error
// result, or when that value is not a JSON object or array.
func Result(raw []byte) (data []byte, ok bool) {
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Structured json.RawMessage `json:"structuredContent"`
		IsError    bool            `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.IsError {
		return nil, false
	}
	if s := bytes.TrimSpace(res.Structured); len(s) > 0 && string(s) != "null" {
		data = s
	} else {
		var parts []string
		for _, c := range res.Content {
			if c.Type == "text" {
				parts = append(parts, c.Text)
			}
		}
		data = bytes.TrimSpace([]byte(strings.Join(parts, "\n")))
	}
	if len(data) == 0 || data[0] != '{' && data[0] != '[' {
		return nil, false
	}
	return data, true
}

// GenInput is what the generator reads for a tool with a learned result
// type (catalog.Tool.Learned): how many results it was learned from, when
// the type last changed, and the schema. Nil when the results vary with
// the call (Varies), so the tool keeps mcp.Result.
func GenInput(l *Learned) json.RawMessage {
	if l.Varies() {
		return nil
	}
	b, err := json.Marshal(map[string]any{
		"results": l.Results,
		"changed": l.Changed.UTC().Format("2006-01-02 15:04 UTC"),
		"schema":  Schema(l.Root),
	})
	if err != nil {
		return nil
	}
	return b
}
