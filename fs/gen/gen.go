package gen

import (
	"go/format"
	"go/scanner"
	"go/token"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpfs/mcpfs/discovery/catalog"
	"github.com/mcpfs/mcpfs/discovery/naming"
)

// File is one generated file.
type File struct {
	// Path is slash-separated and relative to the tree root, for example
	// "servers/github/create_issue.go".
	Path string
	Data []byte
}

// formatFailed is called when gofmt rejects generated source (a generator
// bug); the file is then replaced by a minimal stub. Tests hook it.
var formatFailed = func(path string, err error) {}

// tool is one tool with the names assigned to it.
type tool struct {
	name  string // the exact MCP tool name
	raw   *value // the tool's JSON object; nil if it did not parse
	fn    string // Go function name; fn+"Args" and fn+"Result" are its types
	file  string // file base name, without ".go"
	index string // the first sentence of its description
	// learned is the shape learned from the tool's results
	// (catalog.Tool.Learned); nil when none.
	learned *value
}

// Server returns the files of servers/<s.Name>/: doc.go, and one file per
// tool, sorted by Path. It is a pure function of s.
func Server(s catalog.ServerSnapshot) []File {
	out, index := ToolFiles(s)
	out = append(out, Doc(s, index))
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// ToolIndex is what doc.go says of one tool: its function's name and the
// first sentence of its description.
type ToolIndex struct {
	Func, Summary string
}

// ToolFiles returns the tool files of servers/<s.Name>/ (every file but
// doc.go, in no set order) and the index of the tools doc.go lists, in
// the order of s.Tools. They are a pure function of s.Name and each
// tool's Name, Raw and Learned: a server's state, its info and its key do
// not change them (doc.go says those), so files made for one snapshot
// serve every snapshot that lists the same tools.
func ToolFiles(s catalog.ServerSnapshot) ([]File, []ToolIndex) {
	pkg := naming.Package(s.Name)
	dir := "servers/" + pkg + "/"

	tools := make([]tool, 0, len(s.Tools))
	for _, t := range s.Tools {
		raw := parse(t.Raw)
		if raw != nil && raw.kind != 'o' {
			raw = nil
		}
		name := t.Name
		if name == "" {
			name = raw.getStr("name")
		}
		learned := parse(t.Learned)
		if learned != nil && learned.kind != 'o' {
			learned = nil
		}
		tools = append(tools, tool{name: name, raw: raw, index: firstSentence(raw.getStr("description")), learned: learned})
	}
	names, order := nameTools(tools)

	out := make([]File, 0, len(tools)+1)
	// In claim order too: the names of the types a tool declares do not
	// depend on the order of tools/list either.
	for _, i := range order {
		t := tools[i]
		path := dir + t.file + ".go"
		out = append(out, File{Path: path, Data: gofmt(path, toolSource(pkg, t, names), func() string {
			return stubSource(pkg, t)
		})})
	}
	index := make([]ToolIndex, len(tools))
	for i, t := range tools {
		index[i] = ToolIndex{Func: t.fn, Summary: t.index}
	}
	return out, index
}

// Doc returns servers/<s.Name>/doc.go, given the index ToolFiles returned
// for s's tools.
func Doc(s catalog.ServerSnapshot, index []ToolIndex) File {
	pkg := naming.Package(s.Name)
	key := s.Key
	if key == "" {
		key = s.Name
	}
	path := "servers/" + pkg + "/doc.go"
	return File{Path: path, Data: gofmt(path, docSource(s, pkg, key, index), func() string {
		return "// Package " + pkg + " is an MCP server.\npackage " + pkg + "\n"
	})}
}

// nameTools gives each tool its function and file name. Names do not
// depend on the order of tools/list: tools claim names in
// naming.Precedes order, and a tool whose Go name (or file name) another
// tool owns gets a suffix made from its own name (naming.Spelled), which
// stays the same when colliding tools are added or removed.
func nameTools(tools []tool) (*naming.Set, []int) {
	order := make([]int, len(tools))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return naming.Precedes(tools[order[a]].name, tools[order[b]].name) })
	names := naming.NewSet()
	files := naming.NewFileSet("doc")
	ownedFn := map[string]bool{}
	ownedFile := map[string]bool{}
	for _, i := range order {
		t := &tools[i]
		fn := naming.Exported(t.name)
		if ownedFn[fn] {
			fn = naming.Spelled(fn, t.name)
		} else {
			ownedFn[fn] = true
		}
		t.fn = names.Unique(fn, "Args", "Result")
		file := naming.FileBase(t.name)
		if key := strings.ToLower(file); ownedFile[key] {
			file = naming.FileBase(naming.Spelled(file, t.name))
		} else {
			ownedFile[key] = true
		}
		t.file = files.Unique(file)
	}
	return names, order
}

// gofmt formats src; if that fails, it reports the failure and formats the
// fallback instead. The generator writes gofmt's form itself (align lines
// up the columns gofmt would; TestCanonical holds every generated file of
// the test inputs and the fuzz corpus to it), so go/format, half of the
// generator's time, runs only for a file with a top-level comment that
// gofmt might rewrite (plainDocComments). The source is still scanned
// (wellFormed), so that text from a schema that breaks out of a comment or
// a string still gives the stub; the generator's structure is held to
// go/parser by its tests and fuzzing.
func gofmt(path, src string, fallback func() string) []byte {
	src = align(src)
	if plainDocComments(src) && wellFormed(src) {
		return []byte(src)
	}
	b, err := format.Source([]byte(src))
	if err == nil {
		return b
	}
	formatFailed(path, err)
	b, err = format.Source([]byte(fallback()))
	if err != nil {
		return []byte(fallback())
	}
	return b
}

// wellFormed says whether src is lexically sound Go (every comment,
// string and rune closed, no stray character) with its brackets paired.
// It costs a quarter of a parse.
func wellFormed(src string) bool {
	fset := token.NewFileSet()
	var s scanner.Scanner
	ok := true
	s.Init(fset.AddFile("", fset.Base(), len(src)), []byte(src), func(token.Position, string) { ok = false }, 0)
	var open []token.Token
	for {
		_, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return ok && len(open) == 0
		case token.ILLEGAL:
			return false
		case token.LPAREN, token.LBRACK, token.LBRACE:
			open = append(open, tok)
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if len(open) == 0 || open[len(open)-1] != tok-(token.RPAREN-token.LPAREN) {
				return false
			}
			open = open[:len(open)-1]
		}
	}
}

// header is the generated-code line every file starts with (the form go
// vet and editors recognise). The server's config name is in doc.go.
const header = "// Code generated by mcpfs. DO NOT EDIT.\n\n"

// toolSource is the Go source of one tool's file: the function with the
// tool's description, then the argument and result types. Only what an
// agent needs to call the tool is written: what the README says once for
// every tool (optional fields are pointers, mcp.Result's methods) is not
// repeated here.
func toolSource(pkg string, t tool, names *naming.Set) string {
	var b strings.Builder
	// No generated-code header: doc.go has it, and the README says what
	// holds for every tool file.
	b.WriteString("package " + pkg + "\n\nimport \"mcpfs/mcp\"\n\n")

	shared := map[string]string{}
	in := newTypeGen(names, t.fn, t.raw.get("inputSchema"), false)
	in.shared = shared
	inSchema := in.root
	if inSchema == nil || inSchema.kind != 'o' {
		inSchema = &value{kind: 'o'}
	}
	hasExtra, _ := in.structDecl(t.fn+"Args", "", inSchema, 0, true)

	resultType := "mcp.Result"
	out := newTypeGen(names, t.fn, t.raw.get("outputSchema"), true)
	out.shared = shared
	if o := out.root; o != nil && o.kind == 'o' && o.get("$ref") == nil && hasProperties(o) &&
		(len(schemaTypes(o)) == 0 || isObjectSchema(o)) {
		resultType = t.fn + "Result"
		out.structDecl(resultType, "", o, 0, true)
	}
	learned := ""
	if resultType == "mcp.Result" {
		learned = learnedDecl(t, names, shared)
	}

	writeComment(&b, "", funcDoc(t))
	b.WriteString("func " + t.fn + "(args " + t.fn + "Args) (out " + resultType + ", err error) {\n")
	call := "mcp.Call(" + strconv.Quote(pkg) + ", " + strconv.Quote(t.name) + ", args, &out)"
	if hasExtra {
		call = "mcp.CallExtra(" + strconv.Quote(pkg) + ", " + strconv.Quote(t.name) + ", args, args.Extra, &out)"
	}
	b.WriteString("\terr = " + call + "\n\treturn\n}\n")
	b.WriteString(strings.Join(in.decls, ""))
	b.WriteString(strings.Join(out.decls, ""))
	b.WriteString(learned)
	return b.String()
}

// learnedDecl declares <Func>Result for a tool without an output schema
// whose results mcpfs has learned (see fs/gen/shape): the function keeps
// returning mcp.Result, so code written against it never breaks, and the
// type is read with Decode. "" when nothing usable was learned.
func learnedDecl(t tool, names *naming.Set, shared map[string]string) string {
	s := t.learned.get("schema")
	if s == nil || s.kind != 'o' {
		return ""
	}
	name := t.fn + "Result"
	g := newTypeGen(names, t.fn, s, true)
	g.shared = shared
	n := clip(t.learned.get("results").compact(), 20)
	results := " results ("
	if n == "1" {
		results = " result ("
	}
	doc := name + " is learned from " + n + results +
		oneLine(t.learned.getStr("changed"), 30) + "), not declared by the server: r.Decode(&v)."
	var b strings.Builder
	switch {
	case isObjectSchema(s) && hasProperties(s):
		g.structDecl(name, "", s, 0, true)
		// structDecl put the struct first; its comment goes on top.
		decl := strings.TrimPrefix(g.decls[0], "\n")
		g.decls[0] = ""
		b.WriteString("\n")
		writeComment(&b, "", doc)
		b.WriteString(decl)
	case len(schemaTypes(s)) == 1 && schemaTypes(s)[0] == "array":
		et := g.resolve(s, "Items", 0)
		b.WriteString("\n")
		writeComment(&b, "", doc)
		b.WriteString("type " + name + " " + et.expr + "\n")
	default:
		return ""
	}
	b.WriteString(strings.Join(g.decls, ""))
	return b.String()
}

func hasProperties(s *value) bool {
	p := s.get("properties")
	return p != nil && p.kind == 'o' && len(p.obj) > 0
}

// funcDoc is the doc comment of a tool's function: a first paragraph with
// the tool's name, its title when the title says more than the name, and
// its annotation hints; then the full description. The description comes
// last so that gofmt never turns a one-line description into a heading,
// and the first paragraph is always there so that the description is
// always the second (search_tools takes its summary from it).
func funcDoc(t tool) string {
	doc := t.fn + " calls " + strconv.Quote(clip(t.name, 200))
	if title := toolTitle(t.raw); title != "" && !sameWords(title, t.name) {
		doc += ": " + oneLine(title, 200)
	}
	if a := annotations(t.raw.get("annotations")); a != "" {
		doc += " (" + a + ")"
	}
	doc += "."
	if t.raw == nil {
		doc += "\nThe server's listing of this tool is not a JSON object: its arguments are untyped, use Extra."
	}
	if d := t.raw.getStr("description"); d != "" {
		doc += "\n\n" + d
	}
	return doc
}

// sameWords reports whether a title is only the tool's name in other
// words: "Read Text File" for read_text_file, "Get Sum Tool" for get-sum.
func sameWords(title, name string) bool {
	norm := func(s string) string {
		var b strings.Builder
		for _, r := range strings.ToLower(s) {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	t := norm(title)
	return t == norm(name) || strings.TrimSuffix(t, "tool") == norm(name)
}

func toolTitle(raw *value) string {
	if t := raw.getStr("title"); t != "" {
		return t
	}
	return raw.get("annotations").getStr("title")
}

// annotations describes a tool's annotation hints in a few words, leaving
// out what says nothing to a caller: destructive and idempotent hints of
// a read-only tool (the spec gives them meaning only for tools that
// write), and a closed world.
func annotations(a *value) string {
	var out []string
	ro, _ := a.getBool("readOnlyHint")
	if ro {
		out = append(out, "read-only")
	} else {
		if v, ok := a.getBool("destructiveHint"); ok {
			if v {
				out = append(out, "destructive")
			} else {
				out = append(out, "not destructive")
			}
		}
		if v, _ := a.getBool("idempotentHint"); v {
			out = append(out, "idempotent")
		}
	}
	if v, _ := a.getBool("openWorldHint"); v {
		out = append(out, "open world")
	}
	return strings.Join(out, ", ")
}

// stubSource is the fallback file of a tool whose generated source did not
// format: a callable function with untyped arguments.
func stubSource(pkg string, t tool) string {
	return header + "package " + pkg + "\n\nimport \"mcpfs/mcp\"\n\n" +
		"// " + t.fn + " calls " + strconv.Quote(clip(t.name, 200)) + ".\n" +
		"// Its schema could not be turned into Go types: put the arguments in Extra.\n" +
		"func " + t.fn + "(args " + t.fn + "Args) (mcp.Result, error) {\n\tvar out mcp.Result\n" +
		"\terr := mcp.CallExtra(" + strconv.Quote(pkg) + ", " + strconv.Quote(t.name) + ", args, args.Extra, &out)\n\treturn out, err\n}\n\n" +
		"type " + t.fn + "Args struct {\n" +
		"\t// Extra holds the arguments, sent as a JSON object.\n\tExtra map[string]any `json:\"-\"`\n}\n"
}

// docToolLines is how many tools doc.go lists one line each (name and
// first sentence); a server with more lists their names only.
const docToolLines = 30

// docSource is the Go source of servers/<pkg>/doc.go.
func docSource(s catalog.ServerSnapshot, pkg, key string, tools []ToolIndex) string {
	var d strings.Builder
	d.WriteString("Package " + pkg + " is the MCP server " + strconv.Quote(clip(key, 200)) + ".\n\n")
	if info := serverInfo(s); info != "" {
		d.WriteString("Server: " + info + "\n")
	}
	if s.Transport != "" {
		d.WriteString("Transport: " + oneLine(s.Transport, 40) + "\n")
	}
	d.WriteString("State: " + stateLine(s) + "\n")
	if s.Stale {
		d.WriteString("Listing: not live, " + staleLine(s) + "\n")
	}
	if s.ProtocolVersion != "" {
		d.WriteString("Protocol version: " + oneLine(s.ProtocolVersion, 40) + "\n")
	}
	d.WriteString("Tools: " + strconv.Itoa(len(tools)))
	if s.ToolsTruncated {
		d.WriteString(" (the listing was cut short: the server has more tools than mcpfs reads)")
	}
	d.WriteString("\n")
	d.WriteString("\n# Tools\n\n")
	if len(tools) == 0 {
		d.WriteString("None")
		if s.State != catalog.StateReady {
			d.WriteString(" while the server is " + oneLine(string(s.State), 40))
		}
		d.WriteString(".\n")
	}
	if len(tools) > docToolLines {
		// Many tools: their names only, so that doc.go stays short; each
		// tool's file has its description.
		d.WriteString("Their files say what each does; grep -il <word> servers/" + pkg + "/ finds one.\n\n")
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = t.Func
		}
		d.WriteString(strings.Join(names, ", ") + ".\n")
	} else {
		for _, t := range tools {
			line := "  - " + t.Func
			if t.Summary != "" {
				line += " — " + t.Summary
			}
			d.WriteString(line + "\n")
		}
	}
	if ins := sanitize(s.Instructions); ins != "" {
		d.WriteString("\n# Instructions\n\nThe server's instructions, as it sent them:\n\n" + ins + "\n")
	}

	var b strings.Builder
	b.WriteString(header)
	writeComment(&b, "", d.String())
	b.WriteString("package " + pkg + "\n")
	return b.String()
}

func serverInfo(s catalog.ServerSnapshot) string {
	var parts []string
	if s.ServerName != "" {
		parts = append(parts, oneLine(s.ServerName, 100))
	}
	if s.ServerVersion != "" {
		parts = append(parts, oneLine(s.ServerVersion, 40))
	}
	info := strings.Join(parts, " ")
	if s.ServerTitle != "" {
		if info != "" {
			info += " "
		}
		info += "(" + oneLine(s.ServerTitle, 100) + ")"
	}
	return info
}

func stateLine(s catalog.ServerSnapshot) string {
	st := oneLine(string(s.State), 40)
	if st == "" {
		st = "unknown"
	}
	switch s.State {
	case catalog.StateDisabled:
		st += ` ("disabled": true in the config)`
	case catalog.StateFailed, catalog.StateConnecting:
		if s.Err != "" {
			st += ": " + oneLine(s.Err, 300)
		}
		if s.State == catalog.StateFailed && !s.NextRetry.IsZero() {
			st += " (mcpfs starts it again by itself, and at once on the next call)"
		}
	}
	return st
}

// staleLine says where a listing that is not live comes from.
func staleLine(s catalog.ServerSnapshot) string {
	when := "at an unknown time"
	if !s.ListedAt.IsZero() {
		when = "as listed at " + s.ListedAt.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if s.State == catalog.StateConnecting {
		return "from the cache " + when + ", while the server connects; the tools may have changed since"
	}
	return when + ", before the server " + oneLine(string(s.State), 40) + "; the tools may have changed since"
}
