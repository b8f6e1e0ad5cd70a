package search

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"sort"
	"strings"

	"github.com/mcpfs/mcpfs/discovery/catalog"
	"github.com/mcpfs/mcpfs/discovery/naming"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// Kind is what a document describes.
type Kind string

// The kinds of documents.
const (
	KindTool  Kind = "tool"
	KindSkill Kind = "skill"
)

// Doc is one thing a search can find: a tool of a server or a saved skill.
// Name, Path and Summary are what a hit shows; the other fields are what a
// query is matched against, each with its own weight.
type Doc struct {
	Kind Kind
	// Name is how a snippet refers to it: "github.CreateIssue" for a
	// tool, the import path "mcpfs/skills/<name>" for a skill.
	Name string
	// Path is the file of the tree that describes it in full:
	// servers/<server>/<tool>.go or skills/<name>/SKILL.md.
	Path string
	// Summary is one line: what it does.
	Summary string

	// Server is the server's package name (a tool's); Tool is the MCP
	// tool name, or the skill's name.
	Server string
	Tool   string
	// ServerID is the server's own name (its serverInfo name), which
	// labelled examples name it by (examples.go).
	ServerID string
	// ServerWords name the server beyond its package name: its key in
	// the config, its serverInfo name and title.
	ServerWords string
	// Title is the tool's title (or its annotations' title).
	Title string
	// Description is the tool's or skill's full description.
	Description string
	// Args are the argument names and enum values, one entry each;
	// ArgText is their descriptions, and nested properties' names.
	Args    []string
	ArgText string
	// Text is anything else worth matching (a skill's SKILL.md body and
	// its exported function names).
	Text string
	// Deprecated is set when the description says the tool is deprecated:
	// it ranks after an equal match that is not.
	Deprecated bool
}

// FromTree returns the index of a tree: the tools of its catalog's servers
// and its skills.
func FromTree(t *mcpfs.Tree) *Index {
	return New(append(ToolDocs(t.Catalog()), SkillDocs(t.Skills())...))
}

// ToolDocs returns a document for every tool of every server of cat that
// has a listing (a ready server's, or a cached one), named as the
// generator names them: servers/<server>/<file>.go and <server>.<Func>.
func ToolDocs(cat *catalog.Catalog) []Doc {
	if cat == nil {
		return nil
	}
	var out []Doc
	for _, s := range cat.Servers {
		out = append(out, serverDocs(s)...)
	}
	return out
}

// rawTool is the part of a tools/list entry a search reads.
type rawTool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations struct {
		Title string `json:"title"`
	} `json:"annotations"`
}

// schema is the part of a JSON schema a search reads.
type schema struct {
	Description string             `json:"description"`
	Title       string             `json:"title"`
	Properties  map[string]*schema `json:"properties"`
	Items       *schema            `json:"items"`
	Enum        []any              `json:"enum"`
}

func serverDocs(s catalog.ServerSnapshot) []Doc {
	pkg := naming.Package(s.Name)
	// The same names, in the same order, as fs/gen assigns them.
	names := naming.NewSet()
	files := naming.NewFileSet("doc")
	serverWords := strings.Join([]string{s.Key, s.ServerName, s.ServerTitle}, " ")
	out := make([]Doc, 0, len(s.Tools))
	for _, t := range s.Tools {
		var raw rawTool
		if json.Unmarshal(t.Raw, &raw) != nil {
			raw = rawTool{}
		}
		name := t.Name
		if name == "" {
			name = raw.Name
		}
		fn := names.Unique(naming.Exported(name), "Args", "Result")
		file := files.Unique(naming.FileBase(name))
		title := raw.Title
		if title == "" {
			title = raw.Annotations.Title
		}
		d := Doc{
			Kind:        KindTool,
			Name:        pkg + "." + fn,
			Path:        "servers/" + pkg + "/" + file + ".go",
			Summary:     firstSentence(raw.Description),
			Server:      pkg,
			ServerID:    s.ServerName,
			Tool:        name,
			ServerWords: serverWords,
			Title:       title,
			Description: raw.Description,
			Deprecated:  strings.Contains(strings.ToLower(raw.Description), "deprecated"),
		}
		var in schema
		if json.Unmarshal(raw.InputSchema, &in) == nil {
			var text strings.Builder
			argWords(&in, 0, &d.Args, &text)
			d.ArgText = text.String()
		}
		out = append(out, d)
	}
	return out
}

// argWords collects the top-level property names and enum values of a
// schema into args, and descriptions and nested names into text.
func argWords(s *schema, depth int, args *[]string, text *strings.Builder) {
	if s == nil || depth > 3 {
		return
	}
	keys := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := s.Properties[k]
		if depth == 0 {
			*args = append(*args, k)
		} else {
			text.WriteString(k + " ")
		}
		if p == nil {
			continue
		}
		text.WriteString(p.Title + " " + p.Description + " ")
		for _, e := range p.Enum {
			if v, ok := e.(string); ok && len(v) <= 40 {
				if depth == 0 {
					*args = append(*args, v)
				} else {
					text.WriteString(v + " ")
				}
			}
		}
		argWords(p, depth+1, args, text)
		if p.Items != nil {
			text.WriteString(p.Items.Description + " ")
			argWords(p.Items, depth+1, args, text)
		}
	}
}

// SkillDocs returns a document for every skill: its name, description,
// SKILL.md and the exported functions of its Go files.
func SkillDocs(skills []mcpfs.Skill) []Doc {
	out := make([]Doc, 0, len(skills))
	for _, sk := range skills {
		var text strings.Builder
		text.WriteString(string(sk.Files["SKILL.md"]))
		files := make([]string, 0, len(sk.Files))
		for f := range sk.Files {
			files = append(files, f)
		}
		sort.Strings(files)
		for _, f := range files {
			if path.Ext(f) == ".go" && !strings.HasSuffix(f, "_test.go") {
				text.WriteString(" " + exportedFuncs(f, sk.Files[f]))
			}
		}
		out = append(out, Doc{
			Kind:        KindSkill,
			Name:        "mcpfs/skills/" + sk.Name,
			Path:        "skills/" + sk.Name + "/SKILL.md",
			Summary:     firstSentence(sk.Description),
			Tool:        sk.Name,
			Description: sk.Description,
			Text:        text.String(),
		})
	}
	return out
}

// exportedFuncs returns the names and doc comments of a Go file's
// exported functions.
func exportedFuncs(name string, src []byte) string {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.IsExported() {
			b.WriteString(fd.Name.Name + " ")
			if fd.Doc != nil {
				b.WriteString(fd.Doc.Text() + " ")
			}
		}
	}
	return b.String()
}

// firstSentence is the first sentence of a description's first non-empty
// line, at most 200 runes.
func firstSentence(desc string) string {
	for _, line := range strings.Split(desc, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			continue
		}
		if i := strings.Index(line, ". "); i >= 0 {
			line = line[:i+1]
		}
		if r := []rune(line); len(r) > 200 {
			line = string(r[:200]) + "…"
		}
		return line
	}
	return ""
}
