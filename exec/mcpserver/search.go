package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	iofs "io/fs"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpfs/mcpfs/discovery"
	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/fs/search"
)

// Entry is one thing search_tools can find beyond the tree's own tools
// and skills (see Source).
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
// the tree itself (the tools of its catalog and its skills). A skills
// store that keeps skills outside the tree implements it; Entries is
// called when the tree changes and must be cheap enough for that.
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
	defaultLimit          = 5
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
	hits := idx.Search(query, 0)
	return mcp.NewToolResultText(idx.render(query, hits, detail, limit)), nil
}

// index is the search index of one tree, and where the declarations of
// its hits come from.
type index struct {
	*search.Index
	tree iofs.FS
	sigs map[string]string // signatures given by sources, by name
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
	x := &index{tree: tree, sigs: map[string]string{}}
	var docs []search.Doc
	if t, ok := tree.(catalogTree); ok {
		docs = append(search.ToolDocs(t.Catalog()), search.SkillDocs(t.Skills())...)
	}
	for _, src := range s.opts.Sources {
		more, err := src.Entries(ctx, tree)
		if err != nil {
			s.log.Warn("search source", "error", err)
			continue
		}
		for _, e := range more {
			docs = append(docs, entryDoc(e))
			x.sigs[e.Name] = e.Signature
		}
	}
	x.Index = search.New(docs)
	s.idx = x
	return s.idx
}

// catalogTree is a tree that knows the catalog and skills it shows, as
// *fs.Tree does; search_tools indexes those.
type catalogTree interface {
	Catalog() *discovery.Catalog
	Skills() []mcpfs.Skill
}

var _ catalogTree = (*mcpfs.Tree)(nil)

// entryDoc is a source's entry as a search document.
func entryDoc(e Entry) search.Doc {
	name := e.Name
	if i := strings.LastIndexAny(name, "./"); i >= 0 {
		name = name[i+1:]
	}
	kind := search.KindTool
	if e.Kind == "skill" {
		kind = search.KindSkill
	}
	return search.Doc{Kind: kind, Name: e.Name, Path: e.Path, Summary: e.Summary, Tool: name, Description: e.Summary, Text: e.Text}
}

// render formats the first limit hits at the given detail.
func (x *index) render(query string, hits []search.Hit, detail string, limit int) string {
	var b strings.Builder
	shown := min(limit, len(hits))
	switch {
	case len(hits) == 0 && x.Len() == 0:
		return "No tools yet: no server is ready (list_dir servers shows their state).\n"
	case len(hits) == 0:
		return fmt.Sprintf("Nothing matches %q among %d tools and skills: try other words, or list_dir servers.\n", query, x.Len())
	}
loop:
	for i, h := range hits[:shown] {
		switch detail {
		case DetailNames:
			b.WriteString(h.Doc.Name + "\n")
		case DetailSummary:
			b.WriteString(search.Line(h.Doc) + "\n")
		case DetailSignature:
			sig := x.signature(h.Doc)
			if b.Len()+len(sig) > maxSearchOutput && i > 0 {
				shown = i
				break loop
			}
			fmt.Fprintf(&b, "// %s (%s)\n%s\n", h.Doc.Name, h.Doc.Path, strings.TrimRight(sig, "\n"))
			if i < shown-1 {
				b.WriteString("\n")
			}
		}
	}
	if shown < len(hits) {
		fmt.Fprintf(&b, "[%d of %d matches shown]\n", shown, len(hits))
	}
	return b.String()
}

// signature is the Go declarations a snippet needs to use a hit: for a
// tool, its function (with doc) and types from its generated file; for a
// skill, the import and its exported functions.
func (x *index) signature(d search.Doc) string {
	if sig, ok := x.sigs[d.Name]; ok {
		return sig
	}
	if d.Kind == search.KindSkill {
		return skillSignature(x.tree, strings.TrimSuffix(d.Path, "/SKILL.md"), d.Name)
	}
	src, err := iofs.ReadFile(x.tree, d.Path)
	if err != nil {
		return ""
	}
	return toolSignature(d.Path, src)
}

// toolSignature reads one generated tool file: its exported function (the
// one with a body that calls the tool) with its doc, and the declarations
// after it, without the body.
func toolSignature(file string, src []byte) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return ""
	}
	var fn *ast.FuncDecl
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.IsExported() && fd.Body != nil {
			fn = fd
			break
		}
	}
	if fn == nil {
		return ""
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
	return sig.String()
}

// skillSignature is the import of a skill and the declarations of the
// exported functions of its Go files.
func skillSignature(tree iofs.FS, dir, importPath string) string {
	var sig strings.Builder
	fmt.Fprintf(&sig, "import %q\n", importPath)
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
	return sig.String()
}
