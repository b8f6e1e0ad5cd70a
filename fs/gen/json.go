package gen

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcpfs/mcpfs/discovery/jsonvalue"
)

// value is a parsed JSON value that keeps the order of object keys, so the
// generated fields follow the schema's property order.
type value struct {
	kind byte     // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	obj  []member // for 'o': in document order; a repeated key keeps its first value
	arr  []*value // for 'a'
	str  string   // for 's', and the literal of 'n'
	b    bool     // for 'b'
}

type member struct {
	key string
	val *value
}

// maxJSONDepth is the nesting a tool's JSON may have, as for
// encoding/json; the generator bounds what it follows itself.
const maxJSONDepth = 10000

// parse parses raw JSON with jsonvalue, mcpfs's one JSON reader. It
// returns nil when raw is not valid JSON.
func parse(raw []byte) *value {
	v, err := jsonvalue.ParseDepth(raw, maxJSONDepth)
	if err != nil {
		return nil
	}
	return convert(v)
}

// convert turns a jsonvalue tree into the generator's values.
func convert(v *jsonvalue.Value) *value {
	switch v.Kind {
	case jsonvalue.Object:
		out := &value{kind: 'o', obj: make([]member, 0, len(v.Members))}
		seen := make(map[string]bool, len(v.Members))
		for _, m := range v.Members {
			if !seen[m.Key] {
				seen[m.Key] = true
				out.obj = append(out.obj, member{m.Key, convert(m.Value)})
			}
		}
		return out
	case jsonvalue.Array:
		out := &value{kind: 'a', arr: make([]*value, len(v.Elems))}
		for i, e := range v.Elems {
			out.arr[i] = convert(e)
		}
		return out
	case jsonvalue.String:
		return &value{kind: 's', str: v.Str}
	case jsonvalue.Number:
		return &value{kind: 'n', str: v.Str}
	case jsonvalue.Bool:
		return &value{kind: 'b', b: v.Bool}
	}
	return &value{kind: 'z'}
}

// get returns the member key of an object, or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != 'o' {
		return nil
	}
	for _, m := range v.obj {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// getStr returns the string member key of an object, or "".
func (v *value) getStr(key string) string {
	if m := v.get(key); m != nil && m.kind == 's' {
		return m.str
	}
	return ""
}

// getBool returns the boolean member key, and whether it is a boolean.
func (v *value) getBool(key string) (bool, bool) {
	if m := v.get(key); m != nil && m.kind == 'b' {
		return m.b, true
	}
	return false, false
}

// strings returns the string elements of an array value.
func (v *value) strings() []string {
	if v == nil || v.kind != 'a' {
		return nil
	}
	var out []string
	for _, e := range v.arr {
		if e.kind == 's' {
			out = append(out, e.str)
		}
	}
	return out
}

// compact returns v as compact JSON, for comments.
func (v *value) compact() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v *value) write(b *strings.Builder) {
	if v == nil {
		b.WriteString("null")
		return
	}
	switch v.kind {
	case 'o':
		b.WriteByte('{')
		for i, m := range v.obj {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, m.key)
			b.WriteByte(':')
			m.val.write(b)
		}
		b.WriteByte('}')
	case 'a':
		b.WriteByte('[')
		for i, e := range v.arr {
			if i > 0 {
				b.WriteByte(',')
			}
			e.write(b)
		}
		b.WriteByte(']')
	case 's':
		writeJSONString(b, v.str)
	case 'n':
		b.WriteString(v.str)
	case 'b':
		if v.b {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	default:
		b.WriteString("null")
	}
}

func writeJSONString(b *strings.Builder, s string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.WriteString(strings.TrimSuffix(buf.String(), "\n"))
}
