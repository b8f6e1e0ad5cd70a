package builtin

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Document kinds.
const (
	kindText = "text"
	kindCSV  = "csv"
)

// Limits that keep a long-lived server's memory bounded.
const (
	maxDocuments    = 256
	maxDocumentSize = 8 << 20 // bytes of text per document
	maxTitleLength  = 200
	maxIDLength     = 64
	maxHitText      = 400 // bytes of a line shown in a search hit
)

// slugPattern is the shape of a document id.
var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// document is one immutable document. Replacing a document swaps the
// pointer in the store, so readers never see a half-written one.
type document struct {
	id, title, kind, text string
	lines                 int
	table                 *table // csv documents only
}

// table is a parsed csv document: a header and rows of equal width.
type table struct {
	columns []string
	rows    [][]string
}

// column returns the index of name, or -1.
func (t *table) column(name string) int { return slices.Index(t.columns, name) }

// parseTable parses csv text with a header line. The error says which line
// is wrong.
func parseTable(text string) (*table, error) {
	r := csv.NewReader(strings.NewReader(text))
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("csv text is empty; the first line must be a header such as \"name,value\"")
	}
	if err != nil {
		return nil, fmt.Errorf("csv header: %w", err)
	}
	seen := make(map[string]bool, len(header))
	for i, h := range header {
		if h == "" {
			return nil, fmt.Errorf("csv header: column %d has no name", i+1)
		}
		if seen[h] {
			return nil, fmt.Errorf("csv header: column %q appears twice", h)
		}
		seen[h] = true
	}
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("csv rows: %w", err)
	}
	if rows == nil {
		rows = [][]string{}
	}
	return &table{columns: header, rows: rows}, nil
}

// countLines counts lines the way an editor does: a final line without a
// newline counts, a trailing newline does not start a new line.
func countLines(text string) int {
	if text == "" {
		return 0
	}
	n := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

// sliceLines returns up to limit lines of text starting at line offset
// (0-based), and how many lines that is. limit <= 0 means to the end.
func sliceLines(text string, offset, limit int) (string, int) {
	start := 0
	for i := 0; i < offset; i++ {
		j := strings.IndexByte(text[start:], '\n')
		if j < 0 {
			return "", 0
		}
		start += j + 1
	}
	rest := text[start:]
	if limit <= 0 {
		return rest, countLines(rest)
	}
	end := 0
	n := 0
	for n < limit && end < len(rest) {
		j := strings.IndexByte(rest[end:], '\n')
		n++
		if j < 0 {
			end = len(rest)
			break
		}
		end += j + 1
	}
	return rest[:end], n
}

// store is the mutable state of one docstore server.
type store struct {
	mu   sync.RWMutex
	docs map[string]*document
}

func newStore(seed []*document) *store {
	s := &store{docs: make(map[string]*document, len(seed))}
	for _, d := range seed {
		s.docs[d.id] = d
	}
	return s
}

// get returns the document id or an error that lists what exists.
func (s *store) get(id string) (*document, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if d, ok := s.docs[id]; ok {
		return d, nil
	}
	return nil, fmt.Errorf("no document %q; documents: %s (list_documents shows details)", id, s.idsLocked())
}

// list returns every document sorted by id.
func (s *store) list() []*document {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*document, 0, len(s.docs))
	for _, d := range s.docs {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b *document) int { return strings.Compare(a.id, b.id) })
	return out
}

// put adds or replaces d and reports whether it was new.
func (s *store) put(d *document) (created bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, exists := s.docs[d.id]
	if !exists && len(s.docs) >= maxDocuments {
		return false, fmt.Errorf("cannot create %q: the store already holds %d documents, the most it keeps; replace an existing one instead", d.id, maxDocuments)
	}
	s.docs[d.id] = d
	return !exists, nil
}

// csvIDs lists the ids of csv documents, for error messages.
func (s *store) csvIDs() string {
	var ids []string
	for _, d := range s.list() {
		if d.kind == kindCSV {
			ids = append(ids, d.id)
		}
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

func (s *store) idsLocked() string {
	ids := make([]string, 0, len(s.docs))
	for id := range s.docs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return strings.Join(ids, ", ")
}

// matcher finds a lower-case query in a lower-cased line.
type matcher struct {
	query string // lower case
	word  bool   // match whole words only
}

// match reports whether lower, a line passed through strings.ToLower,
// contains the query.
func (m matcher) match(lower string) bool {
	if !m.word {
		return strings.Contains(lower, m.query)
	}
	for from := 0; from <= len(lower); {
		i := strings.Index(lower[from:], m.query)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(m.query)
		before, _ := utf8.DecodeLastRuneInString(lower[:i])
		after, _ := utf8.DecodeRuneInString(lower[end:])
		if !isWordRune(before) && !isWordRune(after) {
			return true
		}
		_, size := utf8.DecodeRuneInString(lower[i:])
		from = i + size
	}
	return false
}

// isWordRune reports whether r is part of a word. utf8.RuneError (the
// value at either end of a line) is not.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// clip shortens s to at most max bytes on a rune boundary, marking the cut.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
