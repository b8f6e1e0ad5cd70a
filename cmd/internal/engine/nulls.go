package engine

import (
	"bytes"
	"encoding/json"
	"strings"
)

// A snippet's nil slice or map reaches a tool call as null. A property
// whose schema wants an array or an object, and does not allow null, never
// takes null: a snippet's call sends such a null empty instead ([] or {}),
// at any depth the tool's input schema describes (properties, items,
// local $refs). The usual case is a required list left nil (the
// observations of a new memory entity, built in a loop from data that had
// none), which the server would refuse far from the line that left it
// out, or worse, take as "no change".

// maxNullDepth bounds how deep emptyNulls follows the schema ($ref cycles
// end there).
const maxNullDepth = 32

// emptyNulls returns args with each null that schema (a tool's input
// schema) types as an array or an object made empty; args itself when
// there is none, or when either does not parse.
func emptyNulls(schema, args json.RawMessage) json.RawMessage {
	if len(schema) == 0 || !bytes.Contains(args, []byte("null")) {
		return args
	}
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil {
		return args
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return args
	}
	w := nullWalker{root: root}
	nv, changed := w.walk(root, v, 0)
	if !changed {
		return args
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(nv) != nil {
		return args
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

type nullWalker struct{ root map[string]any }

// walk returns v with the nulls that schema s types as arrays or objects
// made empty, and whether it changed any.
func (w nullWalker) walk(s map[string]any, v any, depth int) (any, bool) {
	if s == nil || depth > maxNullDepth {
		return v, false
	}
	s = w.resolve(s, depth)
	switch v := v.(type) {
	case nil:
		switch onlyType(s) {
		case "array":
			return []any{}, true
		case "object":
			return map[string]any{}, true
		}
		return nil, false
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		changed := false
		for k, pv := range v {
			ps, _ := props[k].(map[string]any)
			if nv, c := w.walk(ps, pv, depth+1); c {
				v[k], changed = nv, true
			}
		}
		return v, changed
	case []any:
		items, _ := s["items"].(map[string]any)
		changed := false
		for i, e := range v {
			if nv, c := w.walk(items, e, depth+1); c {
				v[i], changed = nv, true
			}
		}
		return v, changed
	}
	return v, false
}

// resolve follows a local $ref ("#/$defs/x", "#/definitions/x").
func (w nullWalker) resolve(s map[string]any, depth int) map[string]any {
	for ; depth <= maxNullDepth; depth++ {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		path, ok := strings.CutPrefix(ref, "#/")
		if !ok {
			return s
		}
		var cur any = w.root
		for _, part := range strings.Split(path, "/") {
			m, _ := cur.(map[string]any)
			cur = m[strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")]
		}
		next, ok := cur.(map[string]any)
		if !ok {
			return s
		}
		s = next
	}
	return s
}

// onlyType is the one type that schema s allows, when it allows exactly
// one and not null ("" otherwise).
func onlyType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		if len(t) == 1 {
			if one, ok := t[0].(string); ok {
				return one
			}
		}
	}
	return ""
}
