package gen

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpfs/mcpfs/discovery/naming"
)

// Bounds that keep hostile schemas from producing huge or endless output.
const (
	maxDepth     = 24  // nesting of schemas below a tool's input or output
	maxTypes     = 256 // named types (structs and enums) per tool
	maxEnumConst = 100 // string enums with more values stay plain strings
	maxAlts      = 8   // anyOf/oneOf alternatives listed in a comment
)

// Kinds of Go types, which decide how an optional field is declared.
const (
	kScalar = iota // string, int, float64, bool
	kEnum          // a named string type with constants
	kStruct        // a named struct type
	kRef           // slice, map or interface: nil already means absent
	kPtr           // already a pointer (nullable)
)

// goType is the Go type chosen for one schema.
type goType struct {
	expr    string
	kind    int
	emptyOK bool     // enum: "" is one of the values
	notes   []string // sentences for the field's comment
}

func anyType(notes ...string) goType { return goType{expr: "any", kind: kRef, notes: notes} }

// typeGen turns one JSON Schema document (a tool's inputSchema or
// outputSchema) into Go declarations.
type typeGen struct {
	names  *naming.Set // the package's identifiers
	prefix string      // type name prefix: the function name, or it + "Result"
	root   *value
	output bool              // decoding a result: optional fields are plain values
	decls  []string          // declarations, in order
	refs   map[string]goType // resolved $ref targets
	active map[string]bool   // $refs being resolved: a cycle
	types  int               // named types emitted
	// shared maps the shape of each nested struct (its comment and body)
	// and of each string enum (its values) the arguments declared to the
	// type's name, so that the result reuses it instead of declaring the
	// same type again. Set by the caller; nil shares nothing.
	shared map[string]string
}

func newTypeGen(names *naming.Set, fn string, root *value, output bool) *typeGen {
	g := &typeGen{names: names, prefix: fn, root: root, output: output,
		refs: map[string]goType{}, active: map[string]bool{}}
	if output {
		g.prefix = fn + "Result"
	}
	return g
}

// typeName assigns a new exported type name below the generator's prefix.
func (g *typeGen) typeName(hint string) string {
	return g.names.Unique(naming.Exported(g.prefix + hint))
}

// schemaTypes returns the "type" keyword as a list.
func schemaTypes(s *value) []string {
	t := s.get("type")
	if t == nil {
		return nil
	}
	if t.kind == 's' {
		return []string{t.str}
	}
	return t.strings()
}

func isNullSchema(s *value) bool {
	ts := schemaTypes(s)
	return len(ts) == 1 && ts[0] == "null" || s.get("const") != nil && s.get("const").kind == 'z'
}

// resolve returns the Go type for schema s; hint names any type it declares.
func (g *typeGen) resolve(s *value, hint string, depth int) goType {
	if depth > maxDepth {
		return anyType("Nested too deeply to type; any JSON value.")
	}
	if s == nil {
		return anyType()
	}
	switch s.kind {
	case 'b':
		if !s.b {
			return anyType("The schema accepts no value.")
		}
		return anyType()
	case 'o':
	default:
		return anyType("The schema is not a JSON object; any JSON value.")
	}
	if ref := s.getStr("$ref"); ref != "" {
		return g.ref(ref, depth)
	}

	types := schemaTypes(s)
	nullable := false
	if len(types) > 1 {
		var rest []string
		for _, t := range types {
			if t == "null" {
				nullable = true
			} else {
				rest = append(rest, t)
			}
		}
		types = rest
	}

	for _, kw := range []string{"anyOf", "oneOf"} {
		alts := s.get(kw)
		if alts == nil || alts.kind != 'a' || len(alts.arr) == 0 {
			continue
		}
		var nonNull []*value
		for _, a := range alts.arr {
			if !isNullSchema(a) {
				nonNull = append(nonNull, a)
			}
		}
		if len(nonNull) == 1 {
			t := g.resolve(nonNull[0], hint, depth+1)
			if len(nonNull) < len(alts.arr) {
				t = pointer(t)
			}
			return t
		}
		var sums []string
		for i, a := range nonNull {
			if i == maxAlts {
				sums = append(sums, "...")
				break
			}
			sums = append(sums, g.summary(a))
		}
		note := "Any JSON value: " + kw + " " + strings.Join(sums, " | ") + "."
		if len(nonNull) < len(alts.arr) {
			note += " May be null."
		}
		return anyType(note)
	}

	if all := s.get("allOf"); all != nil && all.kind == 'a' && len(all.arr) > 0 {
		if len(all.arr) == 1 && s.get("properties") == nil {
			return g.resolve(all.arr[0], hint, depth+1)
		}
		if merged, ok := g.mergeAllOf(s, depth); ok {
			return g.object(merged, hint, depth)
		}
		return anyType("Any JSON value: allOf of schemas that are not all objects.")
	}

	var t goType
	if c := s.get("const"); c != nil {
		t = constType(c)
	} else if e := s.get("enum"); e != nil && e.kind == 'a' {
		t = g.enum(s, e, types, hint, depth)
	} else {
		t = g.byType(s, types, hint, depth)
	}
	if nullable {
		t = pointer(t)
	}
	return t
}

func (g *typeGen) byType(s *value, types []string, hint string, depth int) goType {
	if len(types) > 1 {
		return anyType("Any JSON value of type " + strings.Join(types, " or ") + ".")
	}
	typ := ""
	if len(types) == 1 {
		typ = types[0]
	} else if s.get("properties") != nil || s.get("additionalProperties") != nil {
		typ = "object"
	} else if s.get("items") != nil {
		typ = "array"
	}
	switch typ {
	case "string":
		return goType{expr: "string", kind: kScalar}
	case "integer":
		return goType{expr: "int", kind: kScalar}
	case "number":
		return goType{expr: "float64", kind: kScalar}
	case "boolean":
		return goType{expr: "bool", kind: kScalar}
	case "null":
		return anyType("Always null.")
	case "array":
		items := s.get("items")
		if items == nil || items.kind == 'a' {
			return goType{expr: "[]any", kind: kRef}
		}
		et := g.resolve(items, singular(hint), depth+1)
		return goType{expr: "[]" + et.expr, kind: kRef, notes: prefixNotes("Each item: ", et.notes)}
	case "object":
		return g.object(s, hint, depth)
	case "":
		return anyType()
	}
	return anyType("Any JSON value (unknown type " + strconv.Quote(typ) + ").")
}

func prefixNotes(p string, notes []string) []string {
	var out []string
	for _, n := range notes {
		out = append(out, p+n)
	}
	return out
}

func pointer(t goType) goType {
	switch t.kind {
	case kScalar, kEnum, kStruct:
		return goType{expr: "*" + t.expr, kind: kPtr, notes: t.notes}
	}
	return t
}

func constType(c *value) goType {
	note := "Always " + clip(c.compact(), 120) + "."
	switch c.kind {
	case 's':
		return goType{expr: "string", kind: kScalar, notes: []string{note}}
	case 'b':
		return goType{expr: "bool", kind: kScalar, notes: []string{note}}
	case 'n':
		if isInteger(c.str) {
			return goType{expr: "int", kind: kScalar, notes: []string{note}}
		}
		return goType{expr: "float64", kind: kScalar, notes: []string{note}}
	}
	return anyType(note)
}

func isInteger(lit string) bool {
	_, err := strconv.ParseInt(lit, 10, 64)
	return err == nil
}

// enum declares a named string type with one constant per value, or falls
// back to the base type with the values listed in the comment.
func (g *typeGen) enum(s, e *value, types []string, hint string, depth int) goType {
	allStrings := len(e.arr) > 0
	var vals []string
	for _, v := range e.arr {
		if v.kind != 's' {
			allStrings = false
		}
		vals = append(vals, v.compact())
	}
	note := "One of: " + clip(strings.Join(vals, ", "), 400) + "."
	if !allStrings || len(e.arr) > maxEnumConst || g.types >= maxTypes {
		t := g.byType(s, types, hint, depth)
		if len(types) == 0 && allStrings {
			t = goType{expr: "string", kind: kScalar}
		}
		t.notes = append(t.notes, note)
		return t
	}
	seen := map[string]bool{}
	emptyOK := false
	for _, v := range e.arr {
		emptyOK = emptyOK || v.str == ""
	}
	shape := "enum " + strings.Join(vals, ",")
	if g.output {
		// A result is only read: a string with its values in the comment
		// says as much as a named type with constants, unless the
		// arguments already declared that type.
		if t, ok := g.shared[shape]; ok {
			return goType{expr: t, kind: kEnum, emptyOK: emptyOK}
		}
		return goType{expr: "string", kind: kScalar, notes: []string{note}}
	}
	g.types++
	name := g.typeName(hint)
	if g.shared != nil {
		if _, ok := g.shared[shape]; !ok {
			g.shared[shape] = name
		}
	}
	var d strings.Builder
	d.WriteString("\ntype " + name + " string\n\nconst (\n")
	for _, v := range e.arr {
		if seen[v.str] {
			continue
		}
		seen[v.str] = true
		c := g.names.Unique(naming.Exported(name + naming.EnumValue(v.str)))
		d.WriteString("\t" + c + " " + name + " = " + strconv.Quote(v.str) + "\n")
	}
	d.WriteString(")\n")
	g.decls = append(g.decls, d.String())
	return goType{expr: name, kind: kEnum, emptyOK: emptyOK}
}

// ref resolves a $ref inside the document: "#", "#/$defs/X",
// "#/definitions/X" or any JSON pointer. References to other documents,
// unresolvable ones and cycles become any.
func (g *typeGen) ref(ref string, depth int) goType {
	if t, ok := g.refs[ref]; ok {
		return t
	}
	if g.active[ref] {
		return goType{expr: "map[string]any", kind: kRef, notes: []string{"Recursive (" + clip(oneLine(ref, 80), 80) + "); left untyped."}}
	}
	target, name := g.pointer(ref)
	if target == nil {
		return anyType("Unresolved reference " + strconv.Quote(clip(ref, 80)) + "; any JSON value.")
	}
	g.active[ref] = true
	t := g.resolve(target, name, depth+1)
	delete(g.active, ref)
	g.refs[ref] = t
	return t
}

// pointer follows a JSON pointer fragment from the document root, and
// returns the target and a type name hint (its last segment).
func (g *typeGen) pointer(ref string) (*value, string) {
	if !strings.HasPrefix(ref, "#") {
		return nil, ""
	}
	frag := ref[1:]
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	if frag == "" {
		return g.root, ""
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, ""
	}
	cur := g.root
	name := ""
	for _, seg := range strings.Split(frag[1:], "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		name = seg
		switch {
		case cur == nil:
			return nil, ""
		case cur.kind == 'o':
			cur = cur.get(seg)
		case cur.kind == 'a':
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(cur.arr) {
				return nil, ""
			}
			cur = cur.arr[i]
		default:
			return nil, ""
		}
	}
	return cur, naming.Exported(name)
}

// mergeAllOf merges the properties and required lists of allOf members that
// are all objects into one object schema.
func (g *typeGen) mergeAllOf(s *value, depth int) (*value, bool) {
	merged := &value{kind: 'o'}
	props := &value{kind: 'o'}
	req := &value{kind: 'a'}
	add := func(o *value) {
		if p := o.get("properties"); p != nil && p.kind == 'o' {
			for _, m := range p.obj {
				if props.get(m.key) == nil {
					props.obj = append(props.obj, m)
				}
			}
		}
		if r := o.get("required"); r != nil && r.kind == 'a' {
			req.arr = append(req.arr, r.arr...)
		}
	}
	add(s)
	for _, m := range s.get("allOf").arr {
		for i := 0; m != nil && m.kind == 'o' && m.getStr("$ref") != "" && i < maxDepth; i++ {
			ref := m.getStr("$ref")
			if g.active[ref] {
				return nil, false
			}
			m, _ = g.pointer(ref)
		}
		if m == nil || m.kind != 'o' {
			return nil, false
		}
		ts := schemaTypes(m)
		if !(len(ts) == 1 && ts[0] == "object" || len(ts) == 0 && m.get("properties") != nil) {
			return nil, false
		}
		add(m)
	}
	merged.obj = []member{{"type", &value{kind: 's', str: "object"}}, {"properties", props}, {"required", req}}
	if d := s.get("description"); d != nil {
		merged.obj = append(merged.obj, member{"description", d})
	}
	return merged, true
}

// summary describes a schema in a few words, for anyOf/oneOf comments.
func (g *typeGen) summary(s *value) string {
	if s == nil || s.kind != 'o' {
		return "any"
	}
	if ref := s.getStr("$ref"); ref != "" {
		return clip(oneLine(ref, 60), 60)
	}
	if c := s.get("const"); c != nil {
		return clip(oneLine(c.compact(), 40), 40)
	}
	ts := schemaTypes(s)
	t := strings.Join(ts, "|")
	if t == "" {
		t = "any"
	}
	if p := s.get("properties"); p != nil && p.kind == 'o' {
		var keys []string
		for i, m := range p.obj {
			if i == 6 {
				keys = append(keys, "...")
				break
			}
			keys = append(keys, m.key)
		}
		return "object{" + oneLine(strings.Join(keys, ", "), 80) + "}"
	}
	if t == "array" {
		return "array of " + g.summary(s.get("items"))
	}
	return oneLine(t, 40)
}

// singular guesses the name of one item of an array field: "Entities" ->
// "Entity", "Paths" -> "Path", "Data" -> "DataItem".
func singular(s string) string {
	switch {
	case len(s) > 4 && strings.HasSuffix(s, "ies"):
		return s[:len(s)-3] + "y"
	case len(s) > 4 && (strings.HasSuffix(s, "sses") || strings.HasSuffix(s, "xes")):
		return s[:len(s)-2]
	case len(s) > 3 && strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss"):
		return s[:len(s)-1]
	}
	return s + "Item"
}
