package builtin

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Search and query limits.
const (
	searchDefaultLimit = 20
	searchMaxLimit     = 200
	queryDefaultLimit  = 100
	queryMaxLimit      = accessLogRows
)

// Search modes.
const (
	modeSubstring = "substring"
	modeWord      = "word"
)

// docstore binds the tools of one server to its store.
type docstore struct {
	store *store
}

// tools returns the tool definitions bound to this server's handlers.
func (d *docstore) tools() []server.ServerTool {
	return []server.ServerTool{
		bind("list_documents", structured(d.listDocuments)),
		bind("read_document", structured(d.readDocument)),
		bind("search", structured(d.search)),
		bind("query_rows", structured(d.queryRows)),
		bind("write_document", structured(d.writeDocument)),
		bind("word_count", wordCount),
	}
}

// toolDefinitions are built once, because deriving output schemas by
// reflection costs more than the rest of a server's construction. Servers
// share them and must treat them as read-only.
var toolDefinitions = sync.OnceValue(func() map[string]mcp.Tool {
	defs := make(map[string]mcp.Tool)
	for _, tool := range []mcp.Tool{
		listDocumentsTool(), readDocumentTool(), searchTool(),
		queryRowsTool(), writeDocumentTool(), wordCountTool(),
	} {
		defs[tool.Name] = tool
	}
	return defs
})

func bind(name string, handler server.ToolHandlerFunc) server.ServerTool {
	def, ok := toolDefinitions()[name]
	if !ok {
		panic("builtin: no definition for tool " + name)
	}
	return server.ServerTool{Tool: def, Handler: handler}
}

// structured adapts a typed handler: arguments are decoded into A, an error
// becomes a tool error result (IsError) carrying its message, and a result
// becomes structuredContent plus its JSON as text.
func structured[A, R any](fn func(context.Context, A) (R, error)) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args A
		if err := req.BindArguments(&args); err != nil {
			return mcp.NewToolResultErrorf("invalid arguments for %s: %v; see the tool's input schema", req.Params.Name, err), nil
		}
		res, err := fn(ctx, args)
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return mcp.NewToolResultStructuredOnly(res), nil
	}
}

// readOnly marks a tool that only reads the store.
func readOnly(title string) []mcp.ToolOption {
	return []mcp.ToolOption{
		mcp.WithToolTitle(title),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	}
}

// documentInfo describes one document.
type documentInfo struct {
	ID    string `json:"id" jsonschema:"document id, a slug such as handbook"`
	Title string `json:"title" jsonschema:"human-readable title"`
	Kind  string `json:"kind" jsonschema:"text or csv,enum=text,enum=csv"`
	Bytes int    `json:"bytes" jsonschema:"size of the text in bytes"`
	Lines int    `json:"lines" jsonschema:"number of lines of the text"`
}

func infoOf(doc *document) documentInfo {
	return documentInfo{ID: doc.id, Title: doc.title, Kind: doc.kind, Bytes: len(doc.text), Lines: doc.lines}
}

// ---------------------------------------------------------------------------
// list_documents

type listArgs struct{}

type listResult struct {
	Documents []documentInfo `json:"documents" jsonschema:"every document, sorted by id"`
}

func listDocumentsTool() mcp.Tool {
	return mcp.NewTool("list_documents", append(readOnly("List documents"),
		mcp.WithDescription("List every document in the store with its id, title, kind (text or csv), size in bytes and number of lines. Start here to find the id other tools take."),
		mcp.WithOutputSchema[listResult](),
	)...)
}

func (d *docstore) listDocuments(_ context.Context, _ listArgs) (listResult, error) {
	docs := d.store.list()
	res := listResult{Documents: make([]documentInfo, 0, len(docs))}
	for _, doc := range docs {
		res.Documents = append(res.Documents, infoOf(doc))
	}
	return res, nil
}

// ---------------------------------------------------------------------------
// read_document

type readArgs struct {
	ID     string `json:"id"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

type readResult struct {
	ID         string `json:"id" jsonschema:"document id"`
	Title      string `json:"title" jsonschema:"human-readable title"`
	Kind       string `json:"kind" jsonschema:"text or csv,enum=text,enum=csv"`
	Offset     int    `json:"offset" jsonschema:"0-based line number the text starts at"`
	Lines      int    `json:"lines" jsonschema:"number of lines in text"`
	TotalLines int    `json:"total_lines" jsonschema:"number of lines in the whole document"`
	More       bool   `json:"more" jsonschema:"true when lines remain after this range; continue with offset = offset + lines"`
	Text       string `json:"text" jsonschema:"the requested lines, each ending in a newline"`
}

func readDocumentTool() mcp.Tool {
	return mcp.NewTool("read_document", append(readOnly("Read a document"),
		mcp.WithDescription("Return the text of a document, whole or a range of lines. Documents can be large (the handbook is over 250 KB): prefer search, or read a range with offset and limit."),
		mcp.WithString("id", mcp.Required(), mcp.Description("Document id, as listed by list_documents."), mcp.MinLength(1)),
		mcp.WithInteger("offset", mcp.Description("Number of lines to skip from the start (0-based line number of the first line returned)."), mcp.DefaultNumber(0), mcp.Min(0)),
		mcp.WithInteger("limit", mcp.Description("Maximum number of lines to return; 0 returns everything from offset to the end."), mcp.DefaultNumber(0), mcp.Min(0)),
		mcp.WithOutputSchema[readResult](),
	)...)
}

func (d *docstore) readDocument(_ context.Context, args readArgs) (readResult, error) {
	doc, err := d.store.get(args.ID)
	if err != nil {
		return readResult{}, err
	}
	if args.Offset < 0 || args.Limit < 0 {
		return readResult{}, fmt.Errorf("offset (%d) and limit (%d) must not be negative", args.Offset, args.Limit)
	}
	if args.Offset > doc.lines {
		return readResult{}, fmt.Errorf("offset %d is past the end of %q, which has %d lines", args.Offset, doc.id, doc.lines)
	}
	text, n := sliceLines(doc.text, args.Offset, args.Limit)
	return readResult{
		ID: doc.id, Title: doc.title, Kind: doc.kind,
		Offset: args.Offset, Lines: n, TotalLines: doc.lines,
		More: args.Offset+n < doc.lines,
		Text: text,
	}, nil
}

// ---------------------------------------------------------------------------
// search

type searchArgs struct {
	Query string `json:"query"`
	ID    string `json:"id"`
	Limit int    `json:"limit"`
	Mode  string `json:"mode"`
}

type searchHit struct {
	ID   string `json:"id" jsonschema:"document id"`
	Line int    `json:"line" jsonschema:"1-based line number; read_document with offset = line - 1 starts there"`
	Text string `json:"text" jsonschema:"the matching line, cut at 400 bytes"`
}

type searchResult struct {
	Query     string      `json:"query" jsonschema:"the query as given"`
	Mode      string      `json:"mode" jsonschema:"how the query was matched,enum=substring,enum=word"`
	Hits      []searchHit `json:"hits" jsonschema:"matching lines in document id order, then line order"`
	Total     int         `json:"total" jsonschema:"number of matching lines, which may exceed the hits returned"`
	Truncated bool        `json:"truncated" jsonschema:"true when total exceeds the hits returned; raise limit or narrow the query"`
}

func searchTool() mcp.Tool {
	return mcp.NewTool("search", append(readOnly("Search documents"),
		mcp.WithDescription("Find the lines that contain a phrase, ignoring case, in every document or in one. Returns each hit's document id, line number and line text, plus the total number of matching lines."),
		mcp.WithString("query", mcp.Required(), mcp.Description("Phrase to look for; case is ignored."), mcp.MinLength(1)),
		mcp.WithString("id", mcp.Description("Search only this document; omit to search all of them.")),
		mcp.WithInteger("limit", mcp.Description("Maximum number of hits to return."), mcp.DefaultNumber(searchDefaultLimit), mcp.Min(1), mcp.Max(searchMaxLimit)),
		mcp.WithString("mode", mcp.Description("substring matches anywhere; word matches the query only as whole words (\"error\" then does not match \"errors\")."), mcp.Enum(modeSubstring, modeWord), mcp.DefaultString(modeSubstring)),
		mcp.WithOutputSchema[searchResult](),
	)...)
}

func (d *docstore) search(ctx context.Context, args searchArgs) (searchResult, error) {
	if strings.TrimSpace(args.Query) == "" {
		return searchResult{}, fmt.Errorf("query is empty; give a word or phrase to look for")
	}
	limit := args.Limit
	if limit == 0 {
		limit = searchDefaultLimit
	}
	if limit < 1 || limit > searchMaxLimit {
		return searchResult{}, fmt.Errorf("limit %d is out of range; use 1 to %d", limit, searchMaxLimit)
	}
	mode := args.Mode
	if mode == "" {
		mode = modeSubstring
	}
	if mode != modeSubstring && mode != modeWord {
		return searchResult{}, fmt.Errorf("mode %q is not known; use %q or %q", mode, modeSubstring, modeWord)
	}
	docs := d.store.list()
	if args.ID != "" {
		doc, err := d.store.get(args.ID)
		if err != nil {
			return searchResult{}, err
		}
		docs = []*document{doc}
	}

	m := matcher{query: strings.ToLower(args.Query), word: mode == modeWord}
	res := searchResult{Query: args.Query, Mode: mode, Hits: []searchHit{}}
	for _, doc := range docs {
		if err := ctx.Err(); err != nil {
			return searchResult{}, fmt.Errorf("search for %q: %w", args.Query, err)
		}
		// Lower-casing keeps every newline where it is (though not every
		// byte offset), so the lines of lower pair up with those of text.
		text, lower := doc.text, strings.ToLower(doc.text)
		for line := 1; text != ""; line++ {
			l, lowerLine := text, lower
			if i := strings.IndexByte(text, '\n'); i >= 0 {
				l, text = text[:i], text[i+1:]
			} else {
				text = ""
			}
			if i := strings.IndexByte(lower, '\n'); i >= 0 {
				lowerLine, lower = lower[:i], lower[i+1:]
			} else {
				lower = ""
			}
			if !m.match(lowerLine) {
				continue
			}
			res.Total++
			if len(res.Hits) < limit {
				res.Hits = append(res.Hits, searchHit{ID: doc.id, Line: line, Text: clip(l, maxHitText)})
			}
		}
	}
	res.Truncated = res.Total > len(res.Hits)
	return res, nil
}

// ---------------------------------------------------------------------------
// query_rows

type queryArgs struct {
	ID    string            `json:"id"`
	Where map[string]string `json:"where"`
	Limit int               `json:"limit"`
}

// queryResult documents the result of query_rows and gives its output
// schema; the handler returns the equivalent queryWire, which encodes rows
// without building a map per row and keeps their columns in header order.
type queryResult struct {
	ID        string              `json:"id" jsonschema:"document id"`
	Columns   []string            `json:"columns" jsonschema:"column names, in the order of the csv header"`
	Rows      []map[string]string `json:"rows" jsonschema:"matching rows in document order, each an object of column name to value"`
	Matched   int                 `json:"matched" jsonschema:"number of rows that match, which may exceed the rows returned"`
	Truncated bool                `json:"truncated" jsonschema:"true when matched exceeds the rows returned; raise limit or add conditions"`
}

// queryWire is what query_rows returns: it marshals to the JSON that
// queryResult describes.
type queryWire struct {
	ID        string   `json:"id"`
	Columns   []string `json:"columns"`
	Rows      []row    `json:"rows"`
	Matched   int      `json:"matched"`
	Truncated bool     `json:"truncated"`
}

// row is one csv row, marshalled as an object of column name to value in
// column order.
type row struct {
	columns, values []string
}

// MarshalJSON implements json.Marshaler.
func (r row) MarshalJSON() ([]byte, error) {
	n := 2
	for i := range r.columns {
		n += len(r.columns[i]) + len(r.values[i]) + 6
	}
	buf := make([]byte, 0, n)
	buf = append(buf, '{')
	for i, col := range r.columns {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, col)
		buf = append(buf, ':')
		buf = appendJSONString(buf, r.values[i])
	}
	return append(buf, '}'), nil
}

// appendJSONString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD,
// as encoding/json does.
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

func queryRowsTool() mcp.Tool {
	return mcp.NewTool("query_rows", append(readOnly("Query CSV rows"),
		mcp.WithDescription("Return the rows of a csv document whose columns equal the given values, as objects of column name to value (all values are strings). Results can be large: up to 10,000 rows of the access log."),
		mcp.WithString("id", mcp.Required(), mcp.Description("Id of a csv document, such as access-log."), mcp.MinLength(1)),
		mcp.WithObject("where", mcp.Description("Conditions that must all hold: column name to exact value, such as {\"region\": \"eu-west\", \"status\": \"503\"}. Omit to return every row."),
			mcp.AdditionalProperties(map[string]any{"type": "string"})),
		mcp.WithInteger("limit", mcp.Description("Maximum number of rows to return."), mcp.DefaultNumber(queryDefaultLimit), mcp.Min(1), mcp.Max(queryMaxLimit)),
		mcp.WithOutputSchema[queryResult](),
	)...)
}

func (d *docstore) queryRows(ctx context.Context, args queryArgs) (queryWire, error) {
	doc, err := d.store.get(args.ID)
	if err != nil {
		return queryWire{}, err
	}
	if doc.kind != kindCSV {
		return queryWire{}, fmt.Errorf("%q is a %s document; query_rows reads csv documents: %s", doc.id, doc.kind, d.store.csvIDs())
	}
	limit := args.Limit
	if limit == 0 {
		limit = queryDefaultLimit
	}
	if limit < 1 || limit > queryMaxLimit {
		return queryWire{}, fmt.Errorf("limit %d is out of range; use 1 to %d", limit, queryMaxLimit)
	}
	t := doc.table
	type cond struct {
		col   int
		value string
	}
	conds := make([]cond, 0, len(args.Where))
	for name, value := range args.Where {
		col := t.column(name)
		if col < 0 {
			return queryWire{}, fmt.Errorf("%q has no column %q; columns: %s", doc.id, name, strings.Join(t.columns, ", "))
		}
		conds = append(conds, cond{col, value})
	}

	res := queryWire{ID: doc.id, Columns: t.columns, Rows: []row{}}
rows:
	for i, values := range t.rows {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return queryWire{}, fmt.Errorf("query rows of %q: %w", doc.id, err)
			}
		}
		for _, c := range conds {
			if values[c.col] != c.value {
				continue rows
			}
		}
		res.Matched++
		if len(res.Rows) < limit {
			res.Rows = append(res.Rows, row{columns: t.columns, values: values})
		}
	}
	res.Truncated = res.Matched > len(res.Rows)
	return res, nil
}

// ---------------------------------------------------------------------------
// write_document

type writeArgs struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
	Kind  string `json:"kind"`
}

type writeResult struct {
	ID      string `json:"id" jsonschema:"document id"`
	Title   string `json:"title" jsonschema:"human-readable title"`
	Kind    string `json:"kind" jsonschema:"text or csv,enum=text,enum=csv"`
	Bytes   int    `json:"bytes" jsonschema:"size of the text in bytes"`
	Lines   int    `json:"lines" jsonschema:"number of lines of the text"`
	Created bool   `json:"created" jsonschema:"true when the id was new, false when an existing document was replaced"`
}

func writeDocumentTool() mcp.Tool {
	return mcp.NewTool("write_document",
		mcp.WithToolTitle("Write a document"),
		mcp.WithDescription("Create a document, or replace the one with the same id. Documents live in memory for as long as the server runs. A csv document must start with a header line and can then be read with query_rows."),
		mcp.WithString("id", mcp.Required(), mcp.Description("Document id: 1 to 64 lowercase letters, digits and single hyphens, such as eu-west-errors."), mcp.MinLength(1), mcp.MaxLength(maxIDLength)),
		mcp.WithString("title", mcp.Required(), mcp.Description("Human-readable title, up to 200 characters."), mcp.MinLength(1), mcp.MaxLength(maxTitleLength)),
		mcp.WithString("text", mcp.Required(), mcp.Description("The full text of the document, up to 8 MiB.")),
		mcp.WithString("kind", mcp.Description("text for prose, csv for a table with a header line."), mcp.Enum(kindText, kindCSV), mcp.DefaultString(kindText)),
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(true),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
		mcp.WithOutputSchema[writeResult](),
	)
}

func (d *docstore) writeDocument(_ context.Context, args writeArgs) (writeResult, error) {
	if len(args.ID) > maxIDLength || !slugPattern.MatchString(args.ID) {
		return writeResult{}, fmt.Errorf("invalid document id %q: use 1 to %d lowercase letters, digits and single hyphens, such as \"eu-west-errors\"", args.ID, maxIDLength)
	}
	title := strings.TrimSpace(args.Title)
	if title == "" {
		return writeResult{}, fmt.Errorf("document %q needs a title", args.ID)
	}
	if utf8.RuneCountInString(title) > maxTitleLength {
		return writeResult{}, fmt.Errorf("title of %q is %d characters long; the most is %d", args.ID, utf8.RuneCountInString(title), maxTitleLength)
	}
	if len(args.Text) > maxDocumentSize {
		return writeResult{}, fmt.Errorf("text of %q is %d bytes; the most a document holds is %d bytes (8 MiB)", args.ID, len(args.Text), maxDocumentSize)
	}
	kind := args.Kind
	if kind == "" {
		kind = kindText
	}
	doc := &document{id: args.ID, title: title, kind: kind, text: args.Text, lines: countLines(args.Text)}
	switch kind {
	case kindText:
	case kindCSV:
		t, err := parseTable(args.Text)
		if err != nil {
			return writeResult{}, fmt.Errorf("text of %q is not valid csv: %w", args.ID, err)
		}
		doc.table = t
	default:
		return writeResult{}, fmt.Errorf("kind %q is not known; use %q or %q", kind, kindText, kindCSV)
	}
	created, err := d.store.put(doc)
	if err != nil {
		return writeResult{}, err
	}
	info := infoOf(doc)
	return writeResult{ID: info.ID, Title: info.Title, Kind: info.Kind, Bytes: info.Bytes, Lines: info.Lines, Created: created}, nil
}

// ---------------------------------------------------------------------------
// word_count

func wordCountTool() mcp.Tool {
	return mcp.NewTool("word_count", append(readOnly("Count words"),
		mcp.WithDescription("Count the lines, words, characters and bytes of a text, like wc. Returns plain text with one \"name: count\" pair per line."),
		mcp.WithString("text", mcp.Required(), mcp.Description("The text to count.")),
	)...)
}

// wordCount has no output schema: its result is plain text.
func wordCount(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Text *string `json:"text"`
	}
	if err := req.BindArguments(&args); err != nil {
		return mcp.NewToolResultErrorf("invalid arguments for word_count: %v; pass {\"text\": \"...\"}", err), nil
	}
	if args.Text == nil {
		return mcp.NewToolResultError("word_count needs a text argument: pass {\"text\": \"...\"}"), nil
	}
	text := *args.Text
	return mcp.NewToolResultText(fmt.Sprintf("lines: %d\nwords: %d\ncharacters: %d\nbytes: %d\n",
		countLines(text), len(strings.Fields(text)), utf8.RuneCountInString(text), len(text))), nil
}
