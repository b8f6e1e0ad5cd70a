package jsonvalue

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestParse keeps order, repeated keys and positions.
func TestParse(t *testing.T) {
	data := []byte(`{"b": [1, -2.5e3, "x\u00e9\ud83d\ude00"], "a": {"z": true, "y": null}, "b": false}`)
	v, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if v.Kind != Object || len(v.Members) != 3 {
		t.Fatalf("top: kind %v, %d members; want an object with 3", v.Kind, len(v.Members))
	}
	var keys []string
	for _, m := range v.Members {
		keys = append(keys, m.Key)
		if data[m.KeyOff] != '"' || !strings.HasPrefix(string(data[m.KeyOff+1:]), m.Key+`"`) {
			t.Errorf("KeyOff of %q = %d points at %q", m.Key, m.KeyOff, data[m.KeyOff:])
		}
	}
	if got := strings.Join(keys, ","); got != "b,a,b" {
		t.Errorf("keys in order = %s, want b,a,b (repeats kept)", got)
	}
	arr := v.Members[0].Value
	if arr.Kind != Array || len(arr.Elems) != 3 || arr.Elems[1].Str != "-2.5e3" || arr.Elems[2].Str != "xé😀" {
		t.Errorf("array = %+v", arr)
	}
	if off := arr.Elems[2].Off; data[off] != '"' {
		t.Errorf("a string's Off points at %q", data[off:])
	}
	if got := v.Members[1].Value.Members[0].Value; got.Kind != Bool || !got.Bool {
		t.Errorf("a.z = %+v, want true", got)
	}
	if got := v.Members[1].Value.Describe(); got != "an object" {
		t.Errorf("Describe = %q", got)
	}
}

// TestSyntaxErrors: each says where (line:col of Off, the JSON path) and
// what to write.
func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		in        string
		line, col int
		path      string
		msg       string
	}{
		{"", 1, 1, "", "no JSON value"},
		{`{"a": 1,}`, 1, 8, "", "trailing comma before }"},
		{"{\n  \"servers\": {\"x\": [1 2]}\n}", 2, 23, `servers.x`, "missing comma between array elements"},
		{`{"a": 'b'}`, 1, 7, "a", "double quotes, not single quotes"},
		{`{a: 1}`, 1, 2, "", `object key a must be in double quotes: "a"`},
		{`{"a": 1} // x`, 1, 10, "", "JSON does not allow comments"},
		{`{"p": "C:\dir"}`, 1, 10, "p", `invalid escape \d`},
		{`{"a": [1, 2`, 1, 12, "a", "the array opened at 1:7 is not closed"},
		{`{"a": 01}`, 1, 7, "a", `invalid number "01"`},
		{`{"a": tru}`, 1, 7, "a", `unexpected word "tru"`},
		{`{"a": 1}}`, 1, 9, "", `is there an extra '}'?`},
		{strings.Repeat("[", MaxDepth+1), 1, MaxDepth + 1, strings.Repeat("[0]", MaxDepth), "nested deeper than 100 levels"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in))
		se, ok := err.(*SyntaxError)
		if !ok {
			t.Errorf("Parse(%q) = %v, want a *SyntaxError", tt.in, err)
			continue
		}
		line, col := LineCol([]byte(tt.in), se.Off)
		if line != tt.line || col != tt.col || se.Path != tt.path || !strings.Contains(se.Msg, tt.msg) {
			t.Errorf("Parse(%q): %d:%d at %q: %s\nwant %d:%d at %q: ...%s...", tt.in, line, col, se.Path, se.Msg, tt.line, tt.col, tt.path, tt.msg)
		}
	}
}

func TestParseDepth(t *testing.T) {
	deep := strings.Repeat("[", 500) + strings.Repeat("]", 500)
	if _, err := Parse([]byte(deep)); err == nil {
		t.Error("Parse accepted 500 levels")
	}
	if _, err := ParseDepth([]byte(deep), 10000); err != nil {
		t.Errorf("ParseDepth(10000) of 500 levels: %v", err)
	}
}

func TestPath(t *testing.T) {
	tests := []struct{ base, key, want string }{
		{"", "a", "a"},
		{"a", "b", "a.b"},
		{"a", "b.c", `a["b.c"]`},
		{"a", "", `a[""]`},
	}
	for _, tt := range tests {
		if got := PathKey(tt.base, tt.key); got != tt.want {
			t.Errorf("PathKey(%q, %q) = %s, want %s", tt.base, tt.key, got, tt.want)
		}
	}
	if got := PathIndex(`x["y.z"]`, 2); got != `x["y.z"][2]` {
		t.Errorf("PathIndex = %s", got)
	}
}

// FuzzParse: the reader accepts exactly what encoding/json accepts (within
// the depth bound) and decodes the same values, invalid UTF-8 included.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"a": [1, 2.5, -3e-2, "x\n\u00e9"], "b": {"c": null, "d": true}}`,
		`"\ud800x"`, "\"\xff\xfe\"", `[]`, `{}`, ` 0 `, `{"a":1,}`, `[1 2]`, `"\u12"`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"q":{"type":"string"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseDepth(data, 10000)
		valid := json.Valid(data)
		if (err == nil) != valid {
			t.Fatalf("Parse: %v; json.Valid: %v", err, valid)
		}
		if err != nil {
			return
		}
		var want any
		if json.Unmarshal(data, &want) != nil || hasRepeatedKeys(v) {
			return // a number out of float64's range, or which repeat wins
		}
		if got := toAny(v); !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded differently:\n got %#v\nwant %#v", got, want)
		}
	})
}

// toAny converts a tree to what encoding/json decodes into an any.
func toAny(v *Value) any {
	switch v.Kind {
	case Null:
		return nil
	case Bool:
		return v.Bool
	case Number:
		var f float64
		if err := json.Unmarshal([]byte(v.Str), &f); err != nil {
			return v.Str
		}
		return f
	case String:
		return v.Str
	case Array:
		out := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			out[i] = toAny(e)
		}
		return out
	}
	out := make(map[string]any, len(v.Members))
	for _, m := range v.Members {
		out[m.Key] = toAny(m.Value)
	}
	return out
}

func hasRepeatedKeys(v *Value) bool {
	seen := map[string]bool{}
	for _, m := range v.Members {
		if seen[m.Key] || hasRepeatedKeys(m.Value) {
			return true
		}
		seen[m.Key] = true
	}
	for _, e := range v.Elems {
		if hasRepeatedKeys(e) {
			return true
		}
	}
	return false
}
