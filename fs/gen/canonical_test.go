package gen

import (
	"encoding/json"
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/naming"
)

// canonicalInputs are the snapshots TestCanonical generates: the golden
// inputs, the fuzz seeds, and the captured listings of real servers
// (fs/search/testdata/servers), also with their tools marked new or changed.
func canonicalInputs(t *testing.T) map[string]discovery.ServerSnapshot {
	out := map[string]discovery.ServerSnapshot{}
	ins, _ := filepath.Glob(filepath.Join("testdata", "input", "*.json"))
	for _, f := range ins {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		out["input/"+name] = loadSnapshot(t, name)
	}
	for i, s := range fuzzSeeds {
		out["fuzz seed "+string(rune('a'+i))] = fuzzSnapshot(s[0], s[1], s[2], s[3])
	}
	real, _ := filepath.Glob(filepath.Join("..", "search", "testdata", "servers", "*.json"))
	if len(real) == 0 {
		t.Fatal("no captured listings under fs/search/testdata/servers")
	}
	for _, f := range real {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var in struct{ Tools []json.RawMessage }
		if err := json.Unmarshal(data, &in); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		s := discovery.ServerSnapshot{Name: name, Key: name, State: discovery.StateReady}
		for _, r := range in.Tools {
			var n struct{ Name string }
			json.Unmarshal(r, &n)
			s.Tools = append(s.Tools, discovery.Tool{Name: n.Name, Raw: r})
		}
		out["servers/"+name] = s
		// The same tools as the tree shows them marked new or changed
		// (cmd/internal/trust puts the mark before the description).
		m := s
		m.Tools = nil
		for i, tl := range s.Tools {
			var obj map[string]any
			if err := json.Unmarshal(tl.Raw, &obj); err != nil {
				t.Fatal(err)
			}
			d, _ := obj["description"].(string)
			mark := "[NEW tool, not yet trusted: mcpfs diff " + name + "] "
			if i%2 == 1 {
				mark = "[CHANGED upstream; the pinned definition is shown: mcpfs diff " + name + "] "
			}
			obj["description"] = mark + d
			raw, _ := json.Marshal(obj)
			m.Tools = append(m.Tools, discovery.Tool{Name: tl.Name, Raw: raw})
		}
		out["marked/"+name] = m
	}
	return out
}

// TestCanonical: the generator writes gofmt's form itself. For every file
// of the inputs, the source as written (aligned) is what go/format makes
// of it whenever gofmt is skipped, and every file Server returns is
// unchanged by go/format. Most tool files of real servers skip gofmt: the
// test fails if the fast path stops being taken.
func TestCanonical(t *testing.T) {
	fast, all := 0, 0
	for label, s := range canonicalInputs(t) {
		for _, f := range Server(s) {
			got, err := format.Source(f.Data)
			if err != nil {
				t.Errorf("%s: %s does not parse: %v", label, f.Path, err)
				continue
			}
			if string(got) != string(f.Data) {
				t.Errorf("%s: %s is not in gofmt's form:\n%s", label, f.Path, lineDiff(string(f.Data), string(got)))
			}
		}
		// The tool files as the generator writes them, before gofmt.
		pkg := naming.Package(s.Name)
		var tools []tool
		for _, tl := range s.Tools {
			raw := parse(tl.Raw)
			if raw != nil && raw.kind != 'o' {
				raw = nil
			}
			name := tl.Name
			if name == "" {
				name = raw.getStr("name")
			}
			tools = append(tools, tool{name: name, raw: raw, index: firstSentence(raw.getStr("description"))})
		}
		names, order := nameTools(tools)
		for _, i := range order {
			src := align(toolSource(pkg, tools[i], names))
			want, err := format.Source([]byte(src))
			if err != nil {
				continue // the stub; checked above
			}
			if !plainDocComments(src) {
				continue
			}
			if isReal(label) {
				fast++
			}
			if string(want) != src {
				t.Errorf("%s: %s: skips gofmt but gofmt changes it:\n%s", label, tools[i].file, lineDiff(src, string(want)))
			}
		}
		if isReal(label) {
			all += len(tools)
		}
	}
	t.Logf("%d of %d tool files of real servers (as listed and marked) skip gofmt", fast, all)
	if fast*10 < all*8 {
		t.Errorf("%d of %d tool files of real servers skip gofmt, want at least 80%%", fast, all)
	}
}

func isReal(label string) bool {
	return strings.HasPrefix(label, "servers/") || strings.HasPrefix(label, "marked/")
}

// lineDiff shows the first lines where a and b differ.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := 0; i < max(len(al), len(bl)) && len(out) < 12; i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out = append(out, "- "+x, "+ "+y)
		}
	}
	return strings.Join(out, "\n")
}

func TestPlainDocComments(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{"// F calls \"f\".\n//\n// Reads a file.\nfunc F() {}\n", true},
		{"// F calls \"f\".\n//\n//  indented code\nfunc F() {}\n", false},
		{"// F calls \"f\".\n//\n// \tcode\nfunc F() {}\n", false},
		{"// F calls \"f\".\n//\n// # Heading\n//\n// Text.\nfunc F() {}\n", false},
		{"// F calls \"f\".\n//\n// Old Heading\n//\n// Text.\nfunc F() {}\n", false},
		{"// F calls \"f\".\n//\n// Not a heading.\n//\n// Text.\nfunc F() {}\n", true},
		{"// F calls \"f\".\n//\n// [spec]: https://example.com\nfunc F() {}\n", false},
		{"// F calls \"f\".\n//\n//\n// Text.\nfunc F() {}\n", false},
		{"// F calls \"f\".\n//\n// [NEW tool, not yet trusted: mcpfs diff x] Reads.\nfunc F() {}\n", true},
		{"// F calls \"f\".\n//\n// [x] [y]: https://example.com\nfunc F() {}\n", false},
		{"//\n// F.\nfunc F() {}\n", false},
		{"// F.\n//\nfunc F() {}\n", false},
		{"//F.\nfunc F() {}\n", false},
		{"/* F. */\nfunc F() {}\n", false},
		{"type T struct {\n\t//  indented field comments are not rewritten\n\tA int\n}\n", true},
	} {
		if got := plainDocComments(c.src); got != c.want {
			t.Errorf("plainDocComments(%q) = %v, want %v", c.src, got, c.want)
		}
	}
}
