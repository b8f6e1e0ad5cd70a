package gen

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpfs/mcpfs/discovery"
)

// fuzzTool builds a tool's raw JSON from fuzzed parts; a schema that is not
// valid JSON is sent as a JSON string.
func fuzzTool(name, desc, in, out string) json.RawMessage {
	schema := func(s string) any {
		if json.Valid([]byte(s)) {
			return json.RawMessage(s)
		}
		return s
	}
	raw, err := json.Marshal(map[string]any{
		"name": name, "description": desc, "inputSchema": schema(in), "outputSchema": schema(out),
		"annotations": map[string]any{"title": desc, "readOnlyHint": true},
	})
	if err != nil {
		panic(err)
	}
	return raw
}

// fuzzSnapshot is a server whose names, descriptions and schemas all come
// from the fuzzer, with clashing tool names and a raw tool that may not
// even be JSON.
func fuzzSnapshot(name, desc, in, out string) discovery.ServerSnapshot {
	return discovery.ServerSnapshot{
		Name: name, Key: desc, Transport: desc, State: discovery.State(name), Err: desc,
		ServerName: name, ServerTitle: desc, ServerVersion: desc, ProtocolVersion: name, Instructions: desc,
		Tools: []discovery.Tool{
			{Name: name, Raw: fuzzTool(name, desc, in, out)},
			{Name: name + "_args", Raw: fuzzTool(name+"_args", desc, out, in)},
			{Name: name, Raw: fuzzTool(name, desc, in, in)},
			{Name: strings.ToUpper(name), Raw: json.RawMessage(in)},
			{Name: desc, Raw: fuzzTool(desc, name, `{"type":"object","properties":{"p":`+in+`}}`, `{"type":"object","properties":{"r":`+out+`}}`)},
		},
	}
}

var fuzzSeeds = [][4]string{
	{"read_file", "Read a file.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`, `{"type":"object","properties":{"content":{"type":"string"}}}`},
	{"", "", "", ""},
	{"x_linux", "//go:build ignore\n+build ignore\n", `{"$ref":"#"}`, `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`},
	{"type", "\u2028\u0085\r\x00\ufeff*/", `{"type":"object","properties":{"a\"b":{},"a,b":{},"":{},"Extra":{},"extra":{}}}`, `{"properties":{"x\"":{"type":"string"}}}`},
	{"検索_test", "desc", `{"type":["string","null"]}`, `{"type":"object","properties":{"a":{"anyOf":[{"type":"null"}]}}}`},
	{strings.Repeat("a", 300), strings.Repeat("b\n", 100), `{"type":"object","properties":{"e":{"enum":["","a","A","a-"]},"f":{"enum":[1,null,"x"]}}}`, `{"allOf":[{"$ref":"#"}]}`},
	{"_a.b", "x", `{"type":"object","properties":{"d":{"type":"object","properties":{"d":{"type":"object","properties":{"d":{"type":"array","items":{"$ref":"#/properties/d"}}}}}}}}`, `[]`},
	{"doc", "y", `{"type":"object","allOf":[{"$ref":"#/$defs/x"}],"$defs":{"x":{"properties":{"q":{"const":null}}}}}`, `{"type":"object","properties":{"n":{"type":"object","additionalProperties":{"$ref":"#"}}}}`},
	{"A", "z", `{"type":"object","properties":{"a":{"oneOf":[]},"b":{"anyOf":[{"type":"integer"},{"type":"null"},{"type":"null"}]},"c":{"items":[]},"d":{"type":[]}}}`, `true`},
}

func FuzzServer(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, name, desc, in, out string) {
		s := fuzzSnapshot(name, desc, in, out)
		files := Server(s)
		checkServer(t, s, files)
		again := Server(s)
		for i := range files {
			if files[i].Path != again[i].Path || string(files[i].Data) != string(again[i].Data) {
				t.Fatalf("%s: not deterministic", files[i].Path)
			}
		}
	})
}
