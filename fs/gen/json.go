package gen

import (
	"bytes"
	"encoding/json"
	"strings"
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

// parse parses raw JSON. It returns nil when raw is not valid JSON.
func parse(raw []byte) *value {
	if !json.Valid(raw) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil
	}
	return v
}

func parseValue(dec *json.Decoder) (*value, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			v := &value{kind: 'o'}
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				mv, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				if !seen[key] {
					seen[key] = true
					v.obj = append(v.obj, member{key, mv})
				}
			}
			_, err := dec.Token() // '}'
			return v, err
		case '[':
			v := &value{kind: 'a'}
			for dec.More() {
				ev, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, ev)
			}
			_, err := dec.Token() // ']'
			return v, err
		}
	case string:
		return &value{kind: 's', str: t}, nil
	case json.Number:
		return &value{kind: 'n', str: t.String()}, nil
	case bool:
		return &value{kind: 'b', b: t}, nil
	case nil:
		return &value{kind: 'z'}, nil
	}
	return &value{kind: 'z'}, nil
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
