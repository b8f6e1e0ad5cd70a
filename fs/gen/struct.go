package gen

import (
	"strconv"
	"strings"

	"github.com/mcpfs/mcpfs/discovery/naming"
)

// object returns the Go type for an object schema: a named struct when it
// lists properties, otherwise a map.
func (g *typeGen) object(s *value, hint string, depth int) goType {
	props := s.get("properties")
	ap := s.get("additionalProperties")
	if props == nil || props.kind != 'o' || len(props.obj) == 0 {
		if ap != nil && ap.kind == 'o' {
			vt := g.resolve(ap, hint+"Value", depth+1)
			return goType{expr: "map[string]" + vt.expr, kind: kRef, notes: prefixNotes("Each value: ", vt.notes)}
		}
		return goType{expr: "map[string]any", kind: kRef}
	}
	if !g.output {
		for _, m := range props.obj {
			if !naming.ValidTag(m.key) {
				return goType{expr: "map[string]any", kind: kRef, notes: []string{
					"An object with the properties " + quotedKeys(props, 12) + "; a map, because " +
						strconv.Quote(clip(m.key, 40)) + " cannot be a Go struct tag."}}
			}
		}
	}
	if g.types >= maxTypes {
		return goType{expr: "map[string]any", kind: kRef, notes: []string{"An object with the properties " + quotedKeys(props, 12) + " (too many types in this schema to name them all)."}}
	}
	g.types++
	name := g.typeName(hint)
	if _, same := g.structDecl(name, hint, s, depth, false); same != "" {
		return goType{expr: same, kind: kStruct}
	}
	return goType{expr: name, kind: kStruct}
}

func quotedKeys(props *value, max int) string {
	var ks []string
	for i, m := range props.obj {
		if i == max {
			ks = append(ks, "...")
			break
		}
		ks = append(ks, strconv.Quote(clip(m.key, 40)))
	}
	return strings.Join(ks, ", ")
}

// structDecl declares the struct type name for object schema s, then the
// types of its fields. It reports whether the struct has an Extra field
// (only a top-level input struct can). A nested struct of a result that is
// the same, field for field and comment for comment, as one of the
// arguments' is not declared again: structDecl returns that type's name
// as same, and the caller uses it instead of name.
func (g *typeGen) structDecl(name, hint string, s *value, depth int, top bool) (extra bool, same string) {
	slot := len(g.decls) // this struct's declaration goes before its fields' types
	g.decls = append(g.decls, "")
	if top {
		g.active["#"] = true
	}

	props := s.get("properties")
	if props != nil && props.kind != 'o' {
		props = nil
	}
	required := map[string]bool{}
	for _, r := range s.get("required").strings() {
		required[r] = true
	}

	var bad []string // properties whose names cannot be struct tags
	if props != nil {
		for _, m := range props.obj {
			if !naming.ValidTag(m.key) {
				bad = append(bad, m.key)
			}
		}
	}
	ap := s.get("additionalProperties")
	moreAllowed := ap != nil && (ap.kind == 'b' && ap.b || ap.kind == 'o')
	extra = top && !g.output && (len(bad) > 0 || moreAllowed || props == nil && !isObjectSchema(s))

	fields := naming.NewSet()
	if extra {
		fields.Reserve("Extra")
	}
	var body strings.Builder
	if props != nil {
		for _, m := range props.obj {
			if !naming.ValidTag(m.key) {
				continue
			}
			fname := fields.Unique(naming.Exported(m.key))
			ft := g.resolve(m.val, hint+fname, depth+1)
			req := required[m.key]
			if req && !g.output && m.val != nil && m.val.get("default") != nil {
				// Required with a default: leaving it out lets the server
				// apply its default, where the zero value would override it.
				req = false
			}
			expr, omit := ft.expr, ""
			if !req {
				omit = ",omitempty"
				if !g.output {
					switch ft.kind {
					case kScalar, kStruct:
						expr = "*" + expr
					case kEnum:
						if ft.emptyOK {
							expr = "*" + expr
						}
					}
				}
			}
			writeComment(&body, "\t", fieldDoc(m.val, ft))
			body.WriteString("\t" + fname + " " + expr + " `json:\"" + m.key + omit + "\"`\n")
		}
	}
	if extra {
		writeComment(&body, "\t", extraDoc(s, props, bad, required, moreAllowed))
		body.WriteString("\tExtra map[string]any `json:\"-\"`\n")
	}

	var doc []string
	if d := s.getStr("description"); d != "" {
		doc = append(doc, d)
	}
	if g.output && len(bad) > 0 {
		var qs []string
		for _, b := range bad {
			qs = append(qs, strconv.Quote(clip(b, 60)))
		}
		doc = append(doc, "Not decoded: the properties "+strings.Join(qs, ", ")+", whose names cannot be Go struct tags.")
	}
	var comment strings.Builder
	writeComment(&comment, "", strings.Join(doc, "\n\n"))
	shape := comment.String() + " struct {\n" + body.String() + "}\n"
	if !top && g.shared != nil {
		if g.output {
			if t, ok := g.shared[shape]; ok {
				g.decls[slot] = ""
				return false, t
			}
		} else if _, ok := g.shared[shape]; !ok {
			g.shared[shape] = name
		}
	}
	if body.Len() == 0 {
		g.decls[slot] = "\n" + comment.String() + "type " + name + " struct{}\n"
	} else {
		g.decls[slot] = "\n" + comment.String() + "type " + name + " struct {\n" + body.String() + "}\n"
	}
	return extra, ""
}

func isObjectSchema(s *value) bool {
	ts := schemaTypes(s)
	return len(ts) == 1 && ts[0] == "object"
}

// fieldDoc is the comment of one struct field: the property's description,
// the notes of its type and its constraints, on one line where they fit.
// Whether a field is required is in its declaration (an optional field has
// omitempty), not repeated here.
func fieldDoc(s *value, t goType) string {
	var parts []string
	if d := s.getStr("description"); d != "" {
		parts = append(parts, d)
	} else if d := s.getStr("title"); d != "" {
		parts = append(parts, d)
	}
	var facts []string
	facts = append(facts, t.notes...)
	facts = append(facts, facets(s)...)
	if len(facts) > 0 {
		facts := strings.Join(facts, " ")
		if len(parts) == 1 && !strings.Contains(parts[0], "\n") {
			sep := " "
			if p := strings.TrimRight(parts[0], " "); p != "" && !strings.ContainsAny(p[len(p)-1:], ".!?:;") {
				sep = ". "
			}
			parts[0] = strings.TrimRight(parts[0], " ") + sep + facts
		} else {
			parts = append(parts, facts)
		}
	}
	return strings.Join(parts, "\n")
}

var facetNames = []struct{ key, label string }{
	{"default", "Default"},
	{"format", "Format"},
	{"minimum", "Minimum"},
	{"maximum", "Maximum"},
	{"exclusiveMinimum", "Exclusive minimum"},
	{"exclusiveMaximum", "Exclusive maximum"},
	{"multipleOf", "Multiple of"},
	{"minLength", "Min length"},
	{"maxLength", "Max length"},
	{"pattern", "Pattern"},
	{"minItems", "Min items"},
	{"maxItems", "Max items"},
	{"uniqueItems", "Unique items"},
	{"minProperties", "Min properties"},
	{"maxProperties", "Max properties"},
	{"examples", "Examples"},
	{"example", "Example"},
	{"deprecated", "Deprecated"},
}

// facets lists a schema's constraints and hints as sentences.
func facets(s *value) []string {
	var out []string
	for _, f := range facetNames {
		v := s.get(f.key)
		if v == nil {
			continue
		}
		text := v.compact()
		if v.kind == 's' && (f.key == "format" || f.key == "pattern") {
			text = v.str
		}
		out = append(out, f.label+": "+oneLine(text, 200)+".")
	}
	return out
}

func extraDoc(s, props *value, bad []string, required map[string]bool, moreAllowed bool) string {
	doc := "Extra holds arguments sent as they are: Call merges its entries into the JSON object of arguments (an entry replaces a field of the same JSON name)."
	if props == nil && !isObjectSchema(s) {
		doc += "\nThe tool's inputSchema does not describe an object with properties: put all arguments here."
	}
	if moreAllowed {
		doc += "\nThe schema allows properties beyond the fields above."
	}
	if len(bad) > 0 {
		doc += "\nUse it for these properties, whose names cannot be Go struct tags:"
		for _, b := range bad {
			line := strconv.Quote(clip(b, 80))
			if required[b] {
				line += " (required)"
			}
			if d := firstSentence(props.get(b).getStr("description")); d != "" {
				line += ": " + d
			}
			doc += "\n  - " + line
		}
	}
	return doc
}
