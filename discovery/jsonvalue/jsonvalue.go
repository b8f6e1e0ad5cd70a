// Package jsonvalue is mcpfs's one JSON reader for input it must keep the
// shape of: config files and tool schemas. Unlike encoding/json it keeps
// where each value starts (for file:line:col in errors), the order of
// object keys (generated fields follow a schema's property order), and
// repeated keys (a config loader refuses them; a generator takes the
// first). Its syntax errors say what is wrong and what to write instead.
//
// It is a leaf: the standard library only, no I/O.
package jsonvalue

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the type of a JSON value.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// MaxDepth is the nesting Parse allows: a config file is a few levels
// deep, and the bound keeps a hostile one from exhausting the stack.
const MaxDepth = 100

// Value is one parsed JSON value and where it starts in the input.
type Value struct {
	Kind Kind
	Off  int // byte offset of the value's first byte

	Str     string // String: the decoded text; Number: the literal
	Bool    bool
	Elems   []*Value
	Members []Member // in input order, duplicates kept
}

// Member is one key of an object.
type Member struct {
	Key    string
	KeyOff int // byte offset of the key's opening quote
	Value  *Value
}

// Describe names the value's type for messages: "a string", "null", ...
func (v *Value) Describe() string {
	switch v.Kind {
	case Null:
		return "null"
	case Bool:
		return "a boolean"
	case Number:
		return "a number"
	case String:
		return "a string"
	case Array:
		return "an array"
	default:
		return "an object"
	}
}

// SyntaxError is a syntax error at a byte offset, inside the value at
// Path (PathKey and PathIndex's notation). Its message says what to do.
type SyntaxError struct {
	Off  int
	Path string
	Msg  string
}

func (e *SyntaxError) Error() string { return e.Msg }

// Parse parses data as exactly one JSON value surrounded by optional
// whitespace. Invalid UTF-8 in a string becomes U+FFFD, as encoding/json
// decodes it. An error is a *SyntaxError.
func Parse(data []byte) (*Value, error) {
	return ParseDepth(data, MaxDepth)
}

// ParseDepth is Parse allowing values nested maxDepth deep (encoding/json
// allows 10000).
func ParseDepth(data []byte, maxDepth int) (*Value, error) {
	p := &parser{data: data, maxDepth: maxDepth}
	p.skipSpace()
	if p.off == len(data) {
		return nil, p.errAt(p.off, "no JSON value")
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.off < len(data) {
		msg := "unexpected data after the end of the top-level value"
		if c := data[p.off]; c == '}' || c == ']' {
			msg += fmt.Sprintf("; is there an extra %q?", c)
		} else if c == '/' {
			msg = commentMsg
		} else {
			msg += "; a config file holds exactly one JSON object"
		}
		return nil, p.errAt(p.off, "%s", msg)
	}
	return v, nil
}

const commentMsg = "JSON does not allow comments; remove the comment"

type parser struct {
	data     []byte
	off      int
	maxDepth int
	// path is where the parser is: object keys (string) and array
	// indexes (int), rendered only for an error.
	path []any
}

func (p *parser) errAt(off int, format string, args ...any) error {
	path := ""
	for _, e := range p.path {
		if k, ok := e.(string); ok {
			path = PathKey(path, k)
		} else {
			path = PathIndex(path, e.(int))
		}
	}
	return &SyntaxError{Off: off, Path: path, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) skipSpace() {
	for p.off < len(p.data) {
		switch p.data[p.off] {
		case ' ', '\t', '\n', '\r':
			p.off++
		default:
			return
		}
	}
}

// eofErr reports the end of input inside the container opened at open.
func (p *parser) eofErr(open int, closer byte) error {
	what := "object"
	if closer == ']' {
		what = "array"
	}
	line, col := LineCol(p.data, open)
	return p.errAt(p.off, "unexpected end of file: the %s opened at %d:%d is not closed; the file looks truncated, add the missing %q", what, line, col, closer)
}

// unexpected describes a byte where a value was expected.
func (p *parser) unexpected(what string) error {
	c := p.data[p.off]
	switch {
	case c == '/':
		return p.errAt(p.off, commentMsg)
	case c == '#':
		return p.errAt(p.off, "JSON does not allow comments (# is not a comment either); remove it")
	case c == '\'':
		return p.errAt(p.off, "JSON strings use double quotes, not single quotes")
	case isWordByte(c):
		end := p.off
		for end < len(p.data) && isWordByte(p.data[end]) {
			end++
		}
		word := string(p.data[p.off:end])
		if what == "an object key" {
			return p.errAt(p.off, "object key %s must be in double quotes: \"%s\"", word, word)
		}
		return p.errAt(p.off, "unexpected word %q where %s was expected; JSON literals are true, false and null, strings need double quotes", word, what)
	}
	r, _ := utf8.DecodeRune(p.data[p.off:])
	return p.errAt(p.off, "unexpected %q where %s was expected", r, what)
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func (p *parser) value(depth int) (*Value, error) {
	if depth >= p.maxDepth {
		return nil, p.errAt(p.off, "JSON nested deeper than %d levels; a config file needs only a few", p.maxDepth)
	}
	if p.off >= len(p.data) {
		return nil, p.errAt(p.off, "unexpected end of file where a value was expected; the file looks truncated")
	}
	start := p.off
	switch c := p.data[p.off]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &Value{Kind: String, Off: start, Str: s}, nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case p.literal("true"):
		return &Value{Kind: Bool, Off: start, Bool: true}, nil
	case p.literal("false"):
		return &Value{Kind: Bool, Off: start}, nil
	case p.literal("null"):
		return &Value{Kind: Null, Off: start}, nil
	default:
		return nil, p.unexpected("a value")
	}
}

// literal consumes word if it is next and not followed by more letters.
func (p *parser) literal(word string) bool {
	end := p.off + len(word)
	if end > len(p.data) || string(p.data[p.off:end]) != word {
		return false
	}
	if end < len(p.data) && isWordByte(p.data[end]) {
		return false
	}
	p.off = end
	return true
}

func (p *parser) object(depth int) (*Value, error) {
	v := &Value{Kind: Object, Off: p.off}
	p.off++     // {
	comma := -1 // offset of the comma before the current key, if any
	for {
		p.skipSpace()
		if p.off >= len(p.data) {
			return nil, p.eofErr(v.Off, '}')
		}
		c := p.data[p.off]
		if c == '}' {
			if comma >= 0 {
				return nil, p.errAt(comma, "trailing comma before }: JSON does not allow one; remove the comma")
			}
			p.off++
			return v, nil
		}
		if c != '"' {
			return nil, p.unexpected("an object key")
		}
		keyOff := p.off
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.off >= len(p.data) {
			return nil, p.eofErr(v.Off, '}')
		}
		if p.data[p.off] != ':' {
			if p.data[p.off] == '/' {
				return nil, p.errAt(p.off, commentMsg)
			}
			return nil, p.errAt(p.off, "expected : after object key %q", key)
		}
		p.off++
		p.skipSpace()
		if p.off >= len(p.data) {
			return nil, p.eofErr(v.Off, '}')
		}
		p.path = append(p.path, key)
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		v.Members = append(v.Members, Member{Key: key, KeyOff: keyOff, Value: val})
		p.skipSpace()
		if p.off >= len(p.data) {
			return nil, p.eofErr(v.Off, '}')
		}
		switch p.data[p.off] {
		case ',':
			comma = p.off
			p.off++
		case '}':
			p.off++
			return v, nil
		case '/':
			return nil, p.errAt(p.off, commentMsg)
		case '"':
			return nil, p.errAt(p.off, "missing comma after the value of %q", key)
		default:
			return nil, p.errAt(p.off, "expected , or } after the value of %q", key)
		}
	}
}

func (p *parser) array(depth int) (*Value, error) {
	v := &Value{Kind: Array, Off: p.off}
	p.off++ // [
	comma := -1
	for {
		p.skipSpace()
		if p.off >= len(p.data) {
			return nil, p.eofErr(v.Off, ']')
		}
		if p.data[p.off] == ']' {
			if comma >= 0 {
				return nil, p.errAt(comma, "trailing comma before ]: JSON does not allow one; remove the comma")
			}
			p.off++
			return v, nil
		}
		p.path = append(p.path, len(v.Elems))
		elem, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		v.Elems = append(v.Elems, elem)
		p.skipSpace()
		if p.off >= len(p.data) {
			return nil, p.eofErr(v.Off, ']')
		}
		switch c := p.data[p.off]; c {
		case ',':
			comma = p.off
			p.off++
		case ']':
			p.off++
			return v, nil
		case '/':
			return nil, p.errAt(p.off, commentMsg)
		default:
			if c == '"' || c == '{' || c == '[' || c == '-' || c >= '0' && c <= '9' {
				return nil, p.errAt(p.off, "missing comma between array elements")
			}
			return nil, p.errAt(p.off, "expected , or ] after an array element")
		}
	}
}

// str parses a string starting at the opening quote.
func (p *parser) str() (string, error) {
	open := p.off
	p.off++
	// Fast path: no escapes.
	i := p.off
	for i < len(p.data) && p.data[i] != '"' && p.data[i] != '\\' && p.data[i] >= 0x20 {
		i++
	}
	if i < len(p.data) && p.data[i] == '"' {
		s := validUTF8(string(p.data[p.off:i]))
		p.off = i + 1
		return s, nil
	}
	var b strings.Builder
	b.Write(p.data[p.off:i])
	p.off = i
	for {
		if p.off >= len(p.data) {
			line, col := LineCol(p.data, open)
			return "", p.errAt(p.off, "unexpected end of file: the string opened at %d:%d is not closed; add the missing \"", line, col)
		}
		c := p.data[p.off]
		switch {
		case c == '"':
			p.off++
			return validUTF8(b.String()), nil
		case c < 0x20:
			if c == '\n' {
				return "", p.errAt(p.off, "line break inside a string; close the string with \" or write \\n")
			}
			return "", p.errAt(p.off, "control character %U inside a string; escape it", rune(c))
		case c == '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		default:
			b.WriteByte(c)
			p.off++
		}
	}
}

// escape decodes one backslash escape into b.
func (p *parser) escape(b *strings.Builder) error {
	start := p.off
	if p.off+1 >= len(p.data) {
		return p.errAt(p.off, "unexpected end of file inside a string escape")
	}
	c := p.data[p.off+1]
	p.off += 2
	switch c {
	case '"', '\\', '/':
		b.WriteByte(c)
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return p.errAt(start, "invalid \\u escape: want 4 hex digits")
		}
		if utf16.IsSurrogate(r) {
			// A high surrogate followed by \uDC00-\uDFFF forms one rune;
			// anything else becomes U+FFFD, as encoding/json does.
			save := p.off
			if p.off+1 < len(p.data) && p.data[p.off] == '\\' && p.data[p.off+1] == 'u' {
				p.off += 2
				if r2, ok := p.hex4(); ok {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						b.WriteRune(dec)
						return nil
					}
				}
			}
			p.off = save
			r = utf8.RuneError
		}
		b.WriteRune(r)
	default:
		r, _ := utf8.DecodeRune(p.data[p.off-1:])
		return p.errAt(start, "invalid escape \\%c in a string; write \\\\ for a backslash (Windows paths need \\\\ or /)", r)
	}
	return nil
}

// validUTF8 replaces each byte of s that is not valid UTF-8 with U+FFFD,
// as encoding/json does when it decodes a string.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func (p *parser) hex4() (rune, bool) {
	if p.off+4 > len(p.data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.data[p.off:p.off+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.off += 4
	return rune(n), true
}

// number parses a number with JSON's grammar and keeps its text.
func (p *parser) number() (*Value, error) {
	start := p.off
	d := p.data
	i := p.off
	if d[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
			n++
		}
		return n
	}
	bad := func() error {
		end := i
		for end < len(d) && (isWordByte(d[end]) || d[end] == '.' || d[end] == '+' || d[end] == '-') {
			end++
		}
		return p.errAt(start, "invalid number %q", d[start:end])
	}
	if i < len(d) && d[i] == '0' {
		i++
	} else if digits() == 0 {
		return nil, bad()
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return nil, bad()
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, bad()
		}
	}
	if i < len(d) && (isWordByte(d[i]) || d[i] == '.') {
		return nil, bad()
	}
	p.off = i
	return &Value{Kind: Number, Off: start, Str: string(d[start:i])}, nil
}

// LineCol returns the 1-based line and column (in characters) of offset
// off in data.
func LineCol(data []byte, off int) (line, col int) {
	if off > len(data) {
		off = len(data)
	}
	line = 1
	lineStart := 0
	for i := 0; i < off; i++ {
		if data[i] == '\n' {
			line++
			lineStart = i + 1
		}
	}
	return line, utf8.RuneCount(data[lineStart:off]) + 1
}

// PathKey appends an object key to a JSON path: a.b, or a["b.c"] when
// the key is not a plain name.
func PathKey(base, key string) string {
	plain := key != ""
	for i := 0; i < len(key) && plain; i++ {
		c := key[i]
		plain = c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	switch {
	case !plain:
		return base + "[" + strconv.Quote(key) + "]"
	case base == "":
		return key
	default:
		return base + "." + key
	}
}

// PathIndex appends an array index to a JSON path.
func PathIndex(base string, i int) string {
	return base + "[" + strconv.Itoa(i) + "]"
}
