package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	iofs "io/fs"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/mark3labs/mcp-go/mcp"
)

// Entry is one thing search_tools can find: a tool of a server, or a
// saved skill.
type Entry struct {
	// Kind is "tool" or "skill".
	Kind string
	// Name is how a snippet refers to it: "docstore.ReadDocument" for a
	// tool, the import path "mcpfs/skills/<name>" for a skill.
	Name string
	// Path is the file of the tree that describes it in full.
	Path string
	// Summary is one line: what it does.
	Summary string
	// Signature is the Go declarations a snippet needs to use it.
	Signature string
	// Text is what a query is matched against, besides Name and Summary.
	Text string
}

// Source feeds entries to search_tools beyond the ones the server finds in
// the tree itself (servers/<server>/*.go and skills/<name>/SKILL.md). A
// skills store that keeps skills outside the tree implements it; Entries
// is called when the tree changes and must be cheap enough for that.
type Source interface {
	Entries(ctx context.Context, tree iofs.FS) ([]Entry, error)
}

// Detail levels of search_tools.
const (
	DetailNames     = "names"
	DetailSummary   = "summary"
	DetailSignature = "signature"
)

// Search bounds.
const (
	defaultLimit          = 10
	defaultSignatureLimit = 5
	maxLimit              = 50
	maxSearchOutput       = 32 << 10
)

func (s *Server) handleSearch(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := argsOf(req)
	query, err := a.str("query")
	if err != nil {
		return toolError("search_tools: %v", err), nil
	}
	detail, err := a.str("detail")
	if err != nil {
		return toolError("search_tools: %v", err), nil
	}
	switch detail {
	case "":
		detail = DetailSummary
	case DetailNames, DetailSummary, DetailSignature:
	default:
		return toolError("search_tools: detail must be names, summary or signature, got %q", detail), nil
	}
	def := defaultLimit
	if detail == DetailSignature {
		def = defaultSignatureLimit
	}
	limit, err := a.integer("limit", def)
	if err != nil {
		return toolError("search_tools: %v", err), nil
	}
	if limit <= 0 || limit > maxLimit {
		return toolError("search_tools: limit must be between 1 and %d, got %d", maxLimit, limit), nil
	}
	s.engine.WaitReady(ctx)
	idx := s.index(ctx)
	hits := idx.search(query)
	return mcp.NewToolResultText(renderHits(query, hits, detail, limit, idx.total())), nil
}

// index returns the search index of the current tree, building it when
// the tree changed.
func (s *Server) index(ctx context.Context) *index {
	tree := s.engine.Tree()
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	if s.idx != nil && s.idx.tree == tree {
		return s.idx
	}
	entries := treeEntries(tree)
	for _, src := range s.opts.Sources {
		more, err := src.Entries(ctx, tree)
		if err != nil {
			s.log.Warn("search source", "error", err)
			continue
		}
		entries = append(entries, more...)
	}
	s.idx = newIndex(tree, entries)
	return s.idx
}

// renderHits formats the first limit hits at the given detail.
func renderHits(query string, hits []hit, detail string, limit, total int) string {
	var b strings.Builder
	shown := min(limit, len(hits))
	switch {
	case len(hits) == 0 && total == 0:
		return "No tools yet: no server is ready (list_dir servers shows their state).\n"
	case len(hits) == 0:
		return fmt.Sprintf("Nothing matches %q among %d tools and skills: try other words, or list_dir servers.\n", query, total)
	}
loop:
	for i, h := range hits[:shown] {
		e := h.entry
		switch detail {
		case DetailNames:
			b.WriteString(e.Name + "\n")
		case DetailSummary:
			b.WriteString(e.Name)
			if e.Summary != "" {
				b.WriteString(" — " + e.Summary)
			}
			b.WriteString("\n")
		case DetailSignature:
			if b.Len()+len(e.Signature) > maxSearchOutput && i > 0 {
				shown = i
				break loop
			}
			fmt.Fprintf(&b, "// %s (%s)\n%s\n", e.Name, e.Path, strings.TrimRight(e.Signature, "\n"))
			if i < shown-1 {
				b.WriteString("\n")
			}
		}
	}
	if shown < len(hits) {
		fmt.Fprintf(&b, "[%d of %d matches shown; raise limit for more]\n", shown, len(hits))
	}
	if detail != DetailSignature {
		b.WriteString("[import \"mcpfs/servers/<server>\"; search_tools with detail=signature, or read_file the tool's .go, shows its arguments]\n")
	}
	return b.String()
}

// treeEntries finds the tools of every server and the skills in the tree.
func treeEntries(tree iofs.FS) []Entry {
	var out []Entry
	servers, _ := iofs.ReadDir(tree, "servers")
	for _, sd := range servers {
		if !sd.IsDir() {
			continue
		}
		dir := "servers/" + sd.Name()
		files, _ := iofs.ReadDir(tree, dir)
		for _, f := range files {
			name := f.Name()
			if f.IsDir() || name == "doc.go" || !strings.HasSuffix(name, ".go") {
				continue
			}
			data, err := iofs.ReadFile(tree, dir+"/"+name)
			if err != nil {
				continue
			}
			if e, ok := toolEntry(sd.Name(), dir+"/"+name, data); ok {
				out = append(out, e)
			}
		}
	}
	skills, _ := iofs.ReadDir(tree, "skills")
	for _, sd := range skills {
		if sd.IsDir() {
			if e, ok := skillEntry(tree, sd.Name()); ok {
				out = append(out, e)
			}
		}
	}
	return out
}

// toolEntry reads one generated tool file: its exported function (the one
// with a body that calls the tool), its doc, and the declarations a
// snippet needs.
func toolEntry(pkg, file string, src []byte) (Entry, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return Entry{}, false
	}
	var fn *ast.FuncDecl
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.IsExported() && fd.Body != nil {
			fn = fd
			break
		}
	}
	if fn == nil {
		return Entry{}, false
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	start := fn.Pos()
	if fn.Doc != nil {
		start = fn.Doc.Pos()
	}
	var sig bytes.Buffer
	sig.Write(bytes.TrimRight(src[off(start):off(fn.Body.Lbrace)], " "))
	sig.WriteString("\n")
	if rest := bytes.TrimSpace(src[off(fn.End()):]); len(rest) > 0 {
		sig.WriteString("\n")
		sig.Write(rest)
		sig.WriteString("\n")
	}
	doc := ""
	if fn.Doc != nil {
		doc = fn.Doc.Text()
	}
	return Entry{
		Kind:      "tool",
		Name:      pkg + "." + fn.Name.Name,
		Path:      file,
		Summary:   summary(doc),
		Signature: sig.String(),
		Text:      toolName(fn) + " " + string(src[off(f.Name.End()):]),
	}, true
}

// toolName is the MCP tool name the function calls: the second argument
// of its mcp.Call or mcp.CallExtra.
func toolName(fn *ast.FuncDecl) string {
	name := ""
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || name != "" || len(call.Args) < 2 {
			return name == ""
		}
		if lit, ok := call.Args[1].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			name, _ = strconv.Unquote(lit.Value)
		}
		return name == ""
	})
	return name
}

// summary is the first sentence of a generated function's description:
// the doc's first paragraph names the tool, the next one describes it.
func summary(doc string) string {
	paras := strings.Split(strings.TrimSpace(doc), "\n\n")
	text := paras[0]
	if len(paras) > 1 {
		text = paras[1]
	} else if i := strings.Index(text, "\nTitle: "); i >= 0 {
		text = text[i+len("\nTitle: "):]
	}
	text = strings.Join(strings.Fields(text), " ")
	if i := strings.Index(text, ". "); i >= 0 {
		text = text[:i+1]
	}
	if r := []rune(text); len(r) > 200 {
		text = string(r[:200]) + "…"
	}
	return text
}

// skillEntry reads skills/<name>/SKILL.md (front matter name and
// description) and the exported functions of the skill's Go files.
func skillEntry(tree iofs.FS, name string) (Entry, bool) {
	dir := "skills/" + name
	md, err := iofs.ReadFile(tree, dir+"/SKILL.md")
	if err != nil {
		return Entry{}, false
	}
	desc := frontMatter(md)["description"]
	var sig strings.Builder
	fmt.Fprintf(&sig, "import %q\n", "mcpfs/skills/"+name)
	files, _ := iofs.ReadDir(tree, dir)
	fset := token.NewFileSet()
	for _, fe := range files {
		if fe.IsDir() || !strings.HasSuffix(fe.Name(), ".go") || strings.HasSuffix(fe.Name(), "_test.go") {
			continue
		}
		src, err := iofs.ReadFile(tree, dir+"/"+fe.Name())
		if err != nil {
			continue
		}
		f, err := parser.ParseFile(fset, fe.Name(), src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !fd.Name.IsExported() || fd.Body == nil {
				continue
			}
			start := fd.Pos()
			if fd.Doc != nil {
				start = fd.Doc.Pos()
			}
			sig.WriteString("\n")
			sig.Write(bytes.TrimRight(src[fset.Position(start).Offset:fset.Position(fd.Body.Lbrace).Offset], " "))
			sig.WriteString("\n")
		}
	}
	return Entry{
		Kind:      "skill",
		Name:      "mcpfs/skills/" + name,
		Path:      dir + "/SKILL.md",
		Summary:   summary("\n\n" + desc),
		Signature: sig.String(),
		Text:      string(md) + " " + sig.String(),
	}, true
}

// frontMatter parses the "key: value" lines between the leading "---"
// lines of a markdown file.
func frontMatter(md []byte) map[string]string {
	out := map[string]string{}
	text := strings.ReplaceAll(string(md), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return out
	}
	block, _, ok := strings.Cut(rest, "\n---")
	if !ok {
		return out
	}
	for _, line := range strings.Split(block, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, " ") {
			continue
		}
		v = strings.TrimSpace(v)
		if uq, err := strconv.Unquote(v); err == nil {
			v = uq
		} else {
			v = strings.Trim(v, `'`)
		}
		out[strings.TrimSpace(k)] = v
	}
	return out
}

// index ranks entries for a query with Okapi BM25 over their name (counted
// three times), summary and text.
type index struct {
	tree    iofs.FS
	entries []Entry
	docs    []map[string]int // term frequencies per entry
	lens    []int
	avgLen  float64
	df      map[string]int
}

// nameWeight is how many times an entry's name counts in its document.
const nameWeight = 3

func newIndex(tree iofs.FS, entries []Entry) *index {
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	x := &index{tree: tree, entries: entries, df: map[string]int{}}
	total := 0
	for _, e := range entries {
		tf := map[string]int{}
		n := 0
		add := func(s string, w int) {
			for _, t := range terms(s) {
				tf[t] += w
				n += w
			}
		}
		add(e.Name, nameWeight)
		add(e.Summary, 1)
		add(e.Text, 1)
		for t := range tf {
			x.df[t]++
		}
		x.docs = append(x.docs, tf)
		x.lens = append(x.lens, n)
		total += n
	}
	if len(entries) > 0 {
		x.avgLen = float64(total) / float64(len(entries))
	}
	return x
}

func (x *index) total() int { return len(x.entries) }

type hit struct {
	entry Entry
	score float64
}

// BM25 parameters (the usual ones).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// search returns the entries that match at least one query term, best
// first; an empty query returns every entry by name.
func (x *index) search(query string) []hit {
	q := terms(query)
	if len(q) == 0 {
		hits := make([]hit, len(x.entries))
		for i, e := range x.entries {
			hits[i] = hit{entry: e}
		}
		return hits
	}
	seen := map[string]bool{}
	n := float64(len(x.entries))
	var hits []hit
	scores := make([]float64, len(x.entries))
	for _, t := range q {
		if seen[t] {
			continue
		}
		seen[t] = true
		df := float64(x.df[t])
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for i, tf := range x.docs {
			f := float64(tf[t])
			if f == 0 {
				continue
			}
			norm := 1 - bm25B + bm25B*float64(x.lens[i])/x.avgLen
			scores[i] += idf * f * (bm25K1 + 1) / (f + bm25K1*norm)
		}
	}
	for i, sc := range scores {
		if sc > 0 {
			hits = append(hits, hit{entry: x.entries[i], score: sc})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	return hits
}

// terms splits text into lower-case search terms: words and numbers,
// split at camelCase and snake_case boundaries, plurals made singular.
// A compound identifier also counts whole ("readdocument").
func terms(text string) []string {
	var out []string
	var word []rune
	var parts []string
	flushWord := func() {
		if len(parts) > 1 {
			out = append(out, stem(strings.Join(parts, "")))
		}
		parts = parts[:0]
	}
	flushPart := func() {
		if len(word) > 0 {
			p := strings.ToLower(string(word))
			parts = append(parts, p)
			out = append(out, stem(p))
			word = word[:0]
		}
	}
	rs := []rune(text)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if len(word) > 0 {
				prev := word[len(word)-1]
				lowerToUpper := unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev))
				acronymEnd := unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if lowerToUpper || acronymEnd {
					flushPart()
				}
			}
			word = append(word, r)
		case r == '_' || r == '-':
			flushPart()
		default:
			flushPart()
			flushWord()
		}
	}
	flushPart()
	flushWord()
	return out
}

// stem makes an English plural singular: "entities" → "entity",
// "documents" → "document", "matches" → "match"; "class" stays.
func stem(w string) string {
	switch {
	case len(w) <= 3:
		return w
	case strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "xes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:len(w)-1]
	}
	return w
}
