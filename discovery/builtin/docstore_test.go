package builtin

import (
	"encoding/csv"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestListTools(t *testing.T) {
	c := newTestClient(t)
	res, err := c.ListTools(testCtx(t), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	tools := make(map[string]mcp.Tool)
	var names []string
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	want := []string{"list_documents", "query_rows", "read_document", "search", "word_count", "write_document"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}

	tests := []struct {
		name         string
		outputSchema bool
		readOnly     bool
		required     []string
	}{
		{"list_documents", true, true, nil},
		{"read_document", true, true, []string{"id"}},
		{"search", true, true, []string{"query"}},
		{"query_rows", true, true, []string{"id"}},
		{"write_document", true, false, []string{"id", "title", "text"}},
		{"word_count", false, true, []string{"text"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := tools[tt.name]
			if tool.Description == "" || tool.Title == "" {
				t.Errorf("description %q, title %q: want both set", tool.Description, tool.Title)
			}
			hasOutput := tool.OutputSchema.Type != "" || len(tool.RawOutputSchema) > 0
			if hasOutput != tt.outputSchema {
				t.Errorf("has outputSchema = %v, want %v", hasOutput, tt.outputSchema)
			}
			if tt.outputSchema && len(tool.OutputSchema.Properties) == 0 {
				t.Errorf("outputSchema has no properties: %+v", tool.OutputSchema)
			}
			if got := tool.Annotations.ReadOnlyHint; got == nil || *got != tt.readOnly {
				t.Errorf("readOnlyHint = %v, want %v", got, tt.readOnly)
			}
			if got := tool.Annotations.OpenWorldHint; got == nil || *got {
				t.Errorf("openWorldHint = %v, want false", got)
			}
			if !slices.Equal(tool.InputSchema.Required, tt.required) {
				t.Errorf("required = %v, want %v", tool.InputSchema.Required, tt.required)
			}
			for name, prop := range tool.InputSchema.Properties {
				p, _ := prop.(map[string]any)
				if d, _ := p["description"].(string); d == "" {
					t.Errorf("input property %q has no description", name)
				}
			}
		})
	}

	mode, _ := tools["search"].InputSchema.Properties["mode"].(map[string]any)
	if fmt.Sprint(mode["enum"]) != "[substring word]" || mode["default"] != "substring" {
		t.Errorf("search mode schema = %v, want enum [substring word], default substring", mode)
	}
	limit, _ := tools["search"].InputSchema.Properties["limit"].(map[string]any)
	if fmt.Sprint(limit["default"], limit["maximum"]) != "20 200" {
		t.Errorf("search limit schema = %v, want default 20, maximum 200", limit)
	}
}

func TestListDocuments(t *testing.T) {
	c := newTestClient(t)
	res := callOK[listResult](t, c, "list_documents", nil)
	var ids []string
	byID := make(map[string]documentInfo)
	for _, d := range res.Documents {
		ids = append(ids, d.ID)
		byID[d.ID] = d
	}
	if want := []string{"access-log", "glossary", "handbook", "meeting-notes", "readme"}; !slices.Equal(ids, want) {
		t.Fatalf("ids = %v, want %v", ids, want)
	}
	if d := byID["handbook"]; d.Kind != "text" || d.Bytes < 250_000 {
		t.Errorf("handbook = %+v, want kind text and at least 250,000 bytes", d)
	}
	if d := byID["access-log"]; d.Kind != "csv" || d.Lines != accessLogRows+1 {
		t.Errorf("access-log = %+v, want kind csv and %d lines", d, accessLogRows+1)
	}
	for _, d := range res.Documents {
		if d.Title == "" || d.Bytes == 0 || d.Lines == 0 {
			t.Errorf("document %+v: want title, bytes and lines set", d)
		}
	}
}

func TestReadDocument(t *testing.T) {
	c := newTestClient(t)

	t.Run("whole handbook", func(t *testing.T) {
		res := callOK[readResult](t, c, "read_document", map[string]any{"id": "handbook"})
		if len(res.Text) < 250_000 {
			t.Errorf("handbook is %d bytes, want at least 250,000", len(res.Text))
		}
		// About 0.75 words per token: 40,000 words is comfortably over 50,000 tokens.
		if words := len(strings.Fields(res.Text)); words < 40_000 {
			t.Errorf("handbook has %d words, want at least 40,000", words)
		}
		if res.Lines != res.TotalLines || res.More || res.Offset != 0 {
			t.Errorf("lines %d, total %d, more %v, offset %d: want the whole document", res.Lines, res.TotalLines, res.More, res.Offset)
		}
		if !strings.HasPrefix(res.Text, "# Operations handbook\n") {
			t.Errorf("handbook starts %q", res.Text[:40])
		}
		if got := countLines(res.Text); got != res.TotalLines {
			t.Errorf("text has %d lines, total_lines says %d", got, res.TotalLines)
		}
	})

	full := callOK[readResult](t, c, "read_document", map[string]any{"id": "readme"}).Text
	fullLines := strings.SplitAfter(full, "\n")
	tests := []struct {
		offset, limit int
		want          string
		more          bool
	}{
		{0, 1, fullLines[0], true},
		{2, 3, strings.Join(fullLines[2:5], ""), true},
		{countLines(full) - 1, 0, fullLines[countLines(full)-1], false},
		{countLines(full) - 2, 10, strings.Join(fullLines[countLines(full)-2:], ""), false},
		{countLines(full), 0, "", false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("offset %d limit %d", tt.offset, tt.limit), func(t *testing.T) {
			res := callOK[readResult](t, c, "read_document", map[string]any{"id": "readme", "offset": tt.offset, "limit": tt.limit})
			if res.Text != tt.want {
				t.Errorf("text = %q, want %q", res.Text, tt.want)
			}
			if res.More != tt.more || res.Lines != countLines(tt.want) || res.Offset != tt.offset {
				t.Errorf("more %v, lines %d, offset %d; want %v, %d, %d", res.More, res.Lines, res.Offset, tt.more, countLines(tt.want), tt.offset)
			}
		})
	}
}

func TestSearch(t *testing.T) {
	c := newTestClient(t)

	t.Run("word across documents", func(t *testing.T) {
		res := callOK[searchResult](t, c, "search", map[string]any{"query": "ReportExporterHighLatency", "mode": "word"})
		docs := map[string]bool{}
		for _, h := range res.Hits {
			docs[h.ID] = true
			if !strings.Contains(strings.ToLower(h.Text), "reportexporterhighlatency") {
				t.Errorf("hit %+v does not contain the query", h)
			}
		}
		if !docs["handbook"] || !docs["meeting-notes"] {
			t.Errorf("hits in %v, want handbook and meeting-notes", docs)
		}
		if res.Mode != "word" || res.Truncated || res.Total != len(res.Hits) {
			t.Errorf("mode %q, truncated %v, total %d, hits %d", res.Mode, res.Truncated, res.Total, len(res.Hits))
		}
	})

	t.Run("line numbers point at the line", func(t *testing.T) {
		res := callOK[searchResult](t, c, "search", map[string]any{"query": "INC-2291", "id": "meeting-notes"})
		if len(res.Hits) == 0 {
			t.Fatal("no hits for INC-2291 in meeting-notes")
		}
		for _, h := range res.Hits {
			if h.ID != "meeting-notes" {
				t.Errorf("hit in %q, want only meeting-notes", h.ID)
			}
			line := callOK[readResult](t, c, "read_document", map[string]any{"id": h.ID, "offset": h.Line - 1, "limit": 1})
			if strings.TrimSuffix(line.Text, "\n") != h.Text {
				t.Errorf("line %d reads %q, hit says %q", h.Line, line.Text, h.Text)
			}
		}
	})

	t.Run("default limit", func(t *testing.T) {
		res := callOK[searchResult](t, c, "search", map[string]any{"query": "EU-WEST"})
		if len(res.Hits) != searchDefaultLimit || !res.Truncated || res.Total <= searchDefaultLimit {
			t.Errorf("hits %d, truncated %v, total %d; want %d hits of more", len(res.Hits), res.Truncated, res.Total, searchDefaultLimit)
		}
		for i := 1; i < len(res.Hits); i++ {
			a, b := res.Hits[i-1], res.Hits[i]
			if a.ID > b.ID || (a.ID == b.ID && a.Line >= b.Line) {
				t.Errorf("hits out of order: %+v before %+v", a, b)
			}
		}
	})

	t.Run("word is stricter than substring", func(t *testing.T) {
		sub := callOK[searchResult](t, c, "search", map[string]any{"query": "error", "id": "handbook", "limit": 200})
		word := callOK[searchResult](t, c, "search", map[string]any{"query": "error", "id": "handbook", "limit": 200, "mode": "word"})
		if word.Total == 0 || word.Total >= sub.Total {
			t.Errorf("word total %d, substring total %d; want 0 < word < substring", word.Total, sub.Total)
		}
		re := regexp.MustCompile(`(?i)(^|[^\pL\pN_])error($|[^\pL\pN_])`)
		for _, h := range word.Hits {
			if !re.MatchString(h.Text) {
				t.Errorf("word hit %q has no whole word \"error\"", h.Text)
			}
		}
	})
}

func TestQueryRows(t *testing.T) {
	c := newTestClient(t)

	// The reference: the access log's own text, parsed independently.
	text := callOK[readResult](t, c, "read_document", map[string]any{"id": "access-log"}).Text
	records, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatalf("access-log is not valid csv: %v", err)
	}
	header, records := records[0], records[1:]
	if len(records) != accessLogRows {
		t.Fatalf("access-log has %d rows, want %d", len(records), accessLogRows)
	}
	count := func(where map[string]string) int {
		n := 0
	rows:
		for _, rec := range records {
			for col, v := range where {
				if rec[slices.Index(header, col)] != v {
					continue rows
				}
			}
			n++
		}
		return n
	}

	tests := []struct {
		name      string
		where     map[string]string
		limit     int
		wantRows  int
		truncated bool
	}{
		{"all rows", nil, 10000, accessLogRows, false},
		{"default limit", nil, 0, queryDefaultLimit, true},
		{"eu-west 503", map[string]string{"region": "eu-west", "status": "503"}, 10000, count(map[string]string{"region": "eu-west", "status": "503"}), false},
		{"globex 429 limited", map[string]string{"customer": "globex", "status": "429"}, 5, 5, true},
		{"no match", map[string]string{"region": "mars"}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"id": "access-log"}
			if tt.where != nil {
				args["where"] = tt.where
			}
			if tt.limit != 0 {
				args["limit"] = tt.limit
			}
			res := callOK[queryResult](t, c, "query_rows", args)
			if len(res.Rows) != tt.wantRows || res.Truncated != tt.truncated {
				t.Fatalf("rows %d, truncated %v; want %d, %v", len(res.Rows), res.Truncated, tt.wantRows, tt.truncated)
			}
			if want := count(tt.where); res.Matched != want {
				t.Errorf("matched = %d, want %d", res.Matched, want)
			}
			if !slices.Equal(res.Columns, header) {
				t.Errorf("columns = %v, want %v", res.Columns, header)
			}
			for _, row := range res.Rows {
				if len(row) != len(header) {
					t.Fatalf("row %v has %d columns, want %d", row, len(row), len(header))
				}
				for col, v := range tt.where {
					if row[col] != v {
						t.Fatalf("row %v has %s=%q, want %q", row, col, row[col], v)
					}
				}
			}
		})
	}
	if n := count(map[string]string{"region": "eu-west", "status": "503"}); n < 10 {
		t.Errorf("only %d eu-west 503s: the INC-2291 incident should be visible in the log", n)
	}
}

func TestWriteDocument(t *testing.T) {
	c := newTestClient(t)

	first := callOK[writeResult](t, c, "write_document", map[string]any{"id": "eu-west-errors", "title": "eu-west errors", "text": "one\ntwo\n"})
	if !first.Created || first.Lines != 2 || first.Bytes != 8 || first.Kind != "text" {
		t.Errorf("first write = %+v, want created, 2 lines, 8 bytes, kind text", first)
	}
	second := callOK[writeResult](t, c, "write_document", map[string]any{"id": "eu-west-errors", "title": "  eu-west errors, v2 ", "text": "quokka"})
	if second.Created || second.Title != "eu-west errors, v2" {
		t.Errorf("second write = %+v, want a replacement with a trimmed title", second)
	}
	back := callOK[readResult](t, c, "read_document", map[string]any{"id": "eu-west-errors"})
	if back.Text != "quokka" || back.Title != "eu-west errors, v2" || back.TotalLines != 1 {
		t.Errorf("read back %+v, want the second write", back)
	}
	found := callOK[searchResult](t, c, "search", map[string]any{"query": "QUOKKA", "mode": "word"})
	if found.Total != 1 || found.Hits[0].ID != "eu-west-errors" {
		t.Errorf("search after write = %+v, want one hit in eu-west-errors", found)
	}

	t.Run("search where lower-casing changes lengths", func(t *testing.T) {
		// 'İ' is 2 bytes and lower-cases to 3; line numbers must not drift.
		callOK[writeResult](t, c, "write_document", map[string]any{"id": "unicode", "title": "Unicode", "text": "İİİ ÇA\nplain Needle\nİ needle İ\n"})
		res := callOK[searchResult](t, c, "search", map[string]any{"query": "NEEDLE", "id": "unicode", "mode": "word"})
		if len(res.Hits) != 2 || res.Hits[0].Line != 2 || res.Hits[0].Text != "plain Needle" || res.Hits[1].Line != 3 || res.Hits[1].Text != "İ needle İ" {
			t.Errorf("hits = %+v, want lines 2 and 3 with their original text", res.Hits)
		}
	})

	t.Run("chain: query, write csv, query again", func(t *testing.T) {
		rows := callOK[queryResult](t, c, "query_rows", map[string]any{"id": "access-log", "where": map[string]any{"status": "504"}, "limit": 10000})
		perRegion := map[string]int{}
		for _, r := range rows.Rows {
			perRegion[r["region"]]++
		}
		var b strings.Builder
		b.WriteString("region,count\n")
		for _, rg := range regions {
			fmt.Fprintf(&b, "%s,%d\n", rg.name, perRegion[rg.name])
		}
		w := callOK[writeResult](t, c, "write_document", map[string]any{"id": "timeouts", "title": "504s by region", "text": b.String(), "kind": "csv"})
		if w.Kind != "csv" || w.Lines != len(regions)+1 {
			t.Errorf("write = %+v, want kind csv with %d lines", w, len(regions)+1)
		}
		got := callOK[queryResult](t, c, "query_rows", map[string]any{"id": "timeouts", "where": map[string]any{"region": "eu-west"}})
		if len(got.Rows) != 1 || got.Rows[0]["count"] != fmt.Sprint(perRegion["eu-west"]) {
			t.Errorf("timeouts rows = %v, want eu-west count %d", got.Rows, perRegion["eu-west"])
		}
	})

	list := callOK[listResult](t, c, "list_documents", nil)
	if len(list.Documents) != 8 {
		t.Errorf("%d documents after three new ids, want 8", len(list.Documents))
	}
}

func TestWordCount(t *testing.T) {
	c := newTestClient(t)
	tests := []struct{ text, want string }{
		{"", "lines: 0\nwords: 0\ncharacters: 0\nbytes: 0\n"},
		{"hello world\nfoo", "lines: 2\nwords: 3\ncharacters: 15\nbytes: 15\n"},
		{"héllo wörld\n", "lines: 1\nwords: 2\ncharacters: 12\nbytes: 14\n"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			res := call(t, c, "word_count", map[string]any{"text": tt.text})
			if res.IsError {
				t.Fatalf("error result: %s", resultText(res))
			}
			if res.StructuredContent != nil {
				t.Errorf("structuredContent = %v, want none: word_count returns plain text", res.StructuredContent)
			}
			if got := resultText(res); got != tt.want {
				t.Errorf("text = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestToolErrors checks that bad calls come back as tool errors (IsError
// results, not protocol errors) whose text says what to do.
func TestToolErrors(t *testing.T) {
	c := newTestClient(t)
	long := strings.Repeat("x", maxIDLength+1)
	tests := []struct {
		name string
		tool string
		args map[string]any
		want []string // substrings of the error text
	}{
		{"unknown id", "read_document", map[string]any{"id": "nope"}, []string{`no document "nope"`, "access-log, glossary, handbook, meeting-notes, readme"}},
		{"missing id", "read_document", map[string]any{}, []string{"id"}},
		{"offset past end", "read_document", map[string]any{"id": "readme", "offset": 1000}, []string{"offset 1000", `"readme"`, "lines"}},
		{"negative offset", "read_document", map[string]any{"id": "readme", "offset": -1}, []string{"offset"}},
		{"unknown argument", "read_document", map[string]any{"id": "readme", "lines": 3}, []string{"lines"}},
		{"search unknown doc", "search", map[string]any{"query": "x", "id": "nope"}, []string{`no document "nope"`, "handbook"}},
		{"search limit too high", "search", map[string]any{"query": "x", "limit": 500}, []string{"limit"}},
		{"search bad mode", "search", map[string]any{"query": "x", "mode": "regex"}, []string{"mode"}},
		{"search blank query", "search", map[string]any{"query": "   "}, []string{"query is empty"}},
		{"query text doc", "query_rows", map[string]any{"id": "handbook"}, []string{`"handbook" is a text document`, "access-log"}},
		{"query unknown column", "query_rows", map[string]any{"id": "access-log", "where": map[string]any{"colour": "red"}}, []string{`no column "colour"`, "latency_ms"}},
		{"query non-string value", "query_rows", map[string]any{"id": "access-log", "where": map[string]any{"status": 503}}, []string{"status"}},
		{"write bad slug", "write_document", map[string]any{"id": "Bad Id", "title": "t", "text": ""}, []string{`invalid document id "Bad Id"`, "lowercase"}},
		{"write path", "write_document", map[string]any{"id": "../etc", "title": "t", "text": ""}, []string{"invalid document id"}},
		{"write double hyphen", "write_document", map[string]any{"id": "a--b", "title": "t", "text": ""}, []string{"invalid document id"}},
		{"write underscore", "write_document", map[string]any{"id": "a_b", "title": "t", "text": ""}, []string{"invalid document id"}},
		{"write long id", "write_document", map[string]any{"id": long, "title": "t", "text": ""}, []string{"id"}},
		{"write blank title", "write_document", map[string]any{"id": "ok", "title": "  ", "text": ""}, []string{"needs a title"}},
		{"write bad csv", "write_document", map[string]any{"id": "ok", "title": "t", "text": "a,b\n1,2,3\n", "kind": "csv"}, []string{"not valid csv", "wrong number of fields"}},
		{"write empty csv", "write_document", map[string]any{"id": "ok", "title": "t", "text": "", "kind": "csv"}, []string{"header"}},
		{"write duplicate column", "write_document", map[string]any{"id": "ok", "title": "t", "text": "a,a\n", "kind": "csv"}, []string{`column "a" appears twice`}},
		{"write bad kind", "write_document", map[string]any{"id": "ok", "title": "t", "text": "", "kind": "pdf"}, []string{"kind"}},
		{"word_count missing text", "word_count", map[string]any{}, []string{"text"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, c, tt.tool, tt.args)
			text := resultText(res)
			if !res.IsError {
				t.Fatalf("%s(%v) succeeded with %.200s; want an error result", tt.tool, tt.args, text)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("error %q does not mention %q", text, w)
				}
			}
		})
	}
	// Failed writes leave the store as it was.
	if res := call(t, c, "read_document", map[string]any{"id": "ok"}); !res.IsError {
		t.Errorf("a failed write created document \"ok\": %.100s", resultText(res))
	}
	if list := callOK[listResult](t, c, "list_documents", nil); len(list.Documents) != 5 {
		t.Errorf("%d documents after failed writes, want 5", len(list.Documents))
	}
}

func TestStateIsolation(t *testing.T) {
	a, err := New("docstore")
	if err != nil {
		t.Fatal(err)
	}
	b, err := New("docstore")
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := connect(t, a)
	cb, _ := connect(t, b)

	callOK[writeResult](t, ca, "write_document", map[string]any{"id": "only-in-a", "title": "A", "text": "a"})
	callOK[writeResult](t, ca, "write_document", map[string]any{"id": "readme", "title": "Replaced", "text": "replaced"})

	if res := call(t, cb, "read_document", map[string]any{"id": "only-in-a"}); !res.IsError {
		t.Errorf("server b reads a document written to server a: %.100s", resultText(res))
	}
	if got := callOK[readResult](t, cb, "read_document", map[string]any{"id": "readme"}); got.Title != "About this document store" {
		t.Errorf("server b readme title = %q: a's replacement leaked", got.Title)
	}
	if n := len(callOK[listResult](t, ca, "list_documents", nil).Documents); n != 6 {
		t.Errorf("server a has %d documents, want 6", n)
	}
	if n := len(callOK[listResult](t, cb, "list_documents", nil).Documents); n != 5 {
		t.Errorf("server b has %d documents, want 5", n)
	}
	// A third server starts from the seed again.
	cc, _ := connect(t, NewDocstore())
	if got := callOK[readResult](t, cc, "read_document", map[string]any{"id": "readme"}); got.Title != "About this document store" {
		t.Errorf("new server readme title = %q, want the seed", got.Title)
	}
}

// TestConcurrentCalls exercises the store's locking; run it with -race.
func TestConcurrentCalls(t *testing.T) {
	c := newTestClient(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("doc-%d", i%3)
			for j := range 10 {
				text := fmt.Sprintf("writer %d round %d\n", i, j)
				if res := call(t, c, "write_document", map[string]any{"id": id, "title": id, "text": text}); res.IsError {
					t.Errorf("write: %s", resultText(res))
					return
				}
				res := call(t, c, "read_document", map[string]any{"id": id})
				if res.IsError {
					t.Errorf("read: %s", resultText(res))
					return
				}
				call(t, c, "search", map[string]any{"query": "writer", "id": id})
			}
		}()
	}
	wg.Wait()
	if n := len(callOK[listResult](t, c, "list_documents", nil).Documents); n != 8 {
		t.Errorf("%d documents, want 8", n)
	}
}
