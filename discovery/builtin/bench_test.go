package builtin

import (
	"encoding/json"
	"testing"
)

// BenchmarkNewDocstore measures building a server; the seed documents and
// tool definitions are generated once per process and shared.
func BenchmarkNewDocstore(b *testing.B) {
	seedDocuments()
	for b.Loop() {
		NewDocstore()
	}
}

// BenchmarkGenerateDocuments measures generating the seed documents from
// scratch, which happens once per process.
func BenchmarkGenerateDocuments(b *testing.B) {
	for b.Loop() {
		generateDocuments()
	}
}

// BenchmarkReadHandbook reads the whole large document through an
// in-process client: the server, the JSON round trip and mcp-go's client.
func BenchmarkReadHandbook(b *testing.B) {
	c, _ := connect(b, NewDocstore())
	args := map[string]any{"id": "handbook"}
	for b.Loop() {
		res := call(b, c, "read_document", args)
		if res.IsError {
			b.Fatal(resultText(res))
		}
	}
	b.SetBytes(int64(len(findSeed(b, "handbook").text)))
}

// BenchmarkQueryRowsAll fetches all 10,000 access-log rows through an
// in-process client.
func BenchmarkQueryRowsAll(b *testing.B) {
	c, _ := connect(b, NewDocstore())
	args := map[string]any{"id": "access-log", "limit": accessLogRows}
	for b.Loop() {
		if res := call(b, c, "query_rows", args); res.IsError {
			b.Fatal(resultText(res))
		}
	}
}

// BenchmarkQueryRowsEncode measures the server's share of a 10,000-row
// query: the handler and the JSON encoding of its result.
func BenchmarkQueryRowsEncode(b *testing.B) {
	d := &docstore{store: newStore(seedDocuments())}
	for b.Loop() {
		res, err := d.queryRows(b.Context(), queryArgs{ID: "access-log", Limit: accessLogRows})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchAll searches every document, as the search tool does.
func BenchmarkSearchAll(b *testing.B) {
	d := &docstore{store: newStore(seedDocuments())}
	for b.Loop() {
		if _, err := d.search(b.Context(), searchArgs{Query: "latency", Mode: modeWord}); err != nil {
			b.Fatal(err)
		}
	}
}
