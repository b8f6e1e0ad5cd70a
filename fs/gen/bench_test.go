package gen

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/mcpfs/mcpfs/discovery"
)

// hundredTools is a server of 100 real tools: the reference servers'
// listings repeated under new names.
func hundredTools(b *testing.B) discovery.ServerSnapshot {
	var real []discovery.Tool
	for _, name := range []string{"everything", "filesystem", "memory"} {
		real = append(real, loadSnapshot(b, name).Tools...)
	}
	s := discovery.ServerSnapshot{Name: "big", Key: "big", State: discovery.StateReady}
	for i := 0; i < 100; i++ {
		t := real[i%len(real)]
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(t.Raw, &obj); err != nil {
			b.Fatal(err)
		}
		name := t.Name + "_" + strconv.Itoa(i)
		obj["name"], _ = json.Marshal(name)
		raw, _ := json.Marshal(obj)
		s.Tools = append(s.Tools, discovery.Tool{Name: name, Raw: raw})
	}
	return s
}

// BenchmarkServer100 generates a 100-tool server (the files of one
// servers/<name>/ directory, formatted).
func BenchmarkServer100(b *testing.B) {
	s := hundredTools(b)
	b.ReportAllocs()
	b.ResetTimer()
	var n int
	for i := 0; i < b.N; i++ {
		n = 0
		for _, f := range Server(s) {
			n += len(f.Data)
		}
	}
	b.ReportMetric(float64(n), "bytes/op-output")
}

func BenchmarkRoot(b *testing.B) {
	c := &discovery.Catalog{Servers: []discovery.ServerSnapshot{hundredTools(b)}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Root(c)
	}
}
