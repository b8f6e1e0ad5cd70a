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
	g.structDecl(name, hint, "is an object in "+g.owner+".", s, depth, false)
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
// types of its fields. what completes the sentence "<name> ...". It reports
// whether the struct has an Extra field (only a top-level input struct can).
func (g *typeGen) structDecl(name, hint, what string, s *value, depth int, top bool) (extra bool) {
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
			body.WriteString("\n")
			writeComment(&body, "\t", fieldDoc(m.val, ft, req, g.output))
			body.WriteString("\t" + fname + " " + expr + " `json:\"" + m.key + omit + "\"`\n")
		}
	}
	if extra {
		body.WriteString("\n")
		writeComment(&body, "\t", extraDoc(s, props, bad, required, moreAllowed))
		body.WriteString("\tExtra map[string]any `json:\"-\"`\n")
	}

	var decl strings.Builder
	decl.WriteString("\n")
	doc := name + " " + what
	if d := s.getStr("description"); d != "" {
		doc += "\n\n" + d
	}
	if g.output && len(bad) > 0 {
		var qs []string
		for _, b := range bad {
			qs = append(qs, strconv.Quote(clip(b, 60)))
		}
		doc += "\n\nNot decoded: the properties " + strings.Join(qs, ", ") + ", whose names cannot be Go struct tags."
	}
	writeComment(&decl, "", doc)
	decl.WriteString("type " + name + " struct {" + body.String() + "}\n")

	g.decls[slot] = decl.String()
	return extra
}

func isObjectSchema(s *value) bool {
	ts := schemaTypes(s)
	return len(ts) == 1 && ts[0] == "object"
}

// fieldDoc is the comment of one struct field: the property's description,
// the notes of its type, its constraints and whether it is required.
func fieldDoc(s *value, t goType, required, output bool) string {
	var parts []string
	if d := s.getStr("description"); d != "" {
		parts = append(parts, d)
	} else if d := s.getStr("title"); d != "" {
		parts = append(parts, d)
	}
	var facts []string
	if !output {
		if required {
			facts = append(facts, "Required.")
		} else {
			facts = append(facts, "Optional.")
		}
	}
	facts = append(facts, t.notes...)
	facts = append(facts, facets(s)...)
	if len(facts) > 0 {
		parts = append(parts, strings.Join(facts, " "))
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
