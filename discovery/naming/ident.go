package naming

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Length bounds. Longer names are cut and get a hash suffix, so two long
// names that share a prefix still map to different results.
const (
	maxIdent    = 64 // bytes of a Go identifier
	maxFileBase = 60 // bytes of a file name before ".go"
)

// hash8 returns 8 hex digits of the SHA-256 of s: a stable, short
// fingerprint used when a name has to be cut or has no usable characters.
func hash8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

func isASCIIAlnum(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
}

// Exported returns the exported Go identifier for an MCP name (a tool name,
// a schema property name or a $defs key): the ASCII letters and digits of
// the name, each word (split at anything else) starting with an upper-case
// letter. The rest of each word keeps its case.
//
//	"create_issue"  -> "CreateIssue"
//	"get-file"      -> "GetFile"
//	"readGraph"     -> "ReadGraph"
//	"2fa"           -> "X2fa"
//	""              -> "Unnamed"
//	"検索"           -> "X" + 8 hex digits of the name's SHA-256
//
// Names longer than 64 bytes are cut and end in "_" + 8 hex digits. The
// result is always a valid, exported, non-keyword identifier; it is not
// unique: assign names through a Set.
func Exported(s string) string {
	var b strings.Builder
	upper := true
	for _, r := range s {
		if !isASCIIAlnum(r) {
			upper = true
			continue
		}
		if upper && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		upper = false
		b.WriteRune(r)
	}
	id := b.String()
	switch {
	case s == "":
		return "Unnamed"
	case id == "":
		return "X" + hash8(s)
	case id[0] >= '0' && id[0] <= '9':
		id = "X" + id
	}
	if len(id) > maxIdent {
		id = id[:maxIdent-9] + "_" + hash8(s)
	}
	return id
}

// EnumValue returns the identifier suffix for one enum value: Exported,
// except that the empty string is "Empty".
func EnumValue(v string) string {
	if v == "" {
		return "Empty"
	}
	return Exported(v)
}

// knownOS and knownArch are the GOOS and GOARCH values (current and
// historical) that the go command treats as build constraints in file names:
// a file "x_linux.go" is only compiled on Linux. A generated file must never
// end in one of them.
var knownOS = map[string]bool{
	"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true,
	"hurd": true, "illumos": true, "ios": true, "js": true, "linux": true, "nacl": true,
	"netbsd": true, "openbsd": true, "plan9": true, "solaris": true, "wasip1": true,
	"windows": true, "zos": true,
}

var knownArch = map[string]bool{
	"386": true, "amd64": true, "amd64p32": true, "arm": true, "armbe": true, "arm64": true,
	"arm64be": true, "loong64": true, "mips": true, "mipsle": true, "mips64": true,
	"mips64le": true, "mips64p32": true, "mips64p32le": true, "ppc": true, "ppc64": true,
	"ppc64le": true, "riscv": true, "riscv64": true, "s390": true, "s390x": true,
	"sparc": true, "sparc64": true, "wasm": true,
}

// specialFile reports whether the go command would read base+".go" as
// something other than a plain source file: ignored (leading "_" or "."), a
// test file ("_test"), or constrained to a GOOS or GOARCH ("_linux",
// "_amd64", "_windows_arm64").
func specialFile(base string) bool {
	if base == "" || base[0] == '_' || base[0] == '.' {
		return true
	}
	i := strings.LastIndexByte(base, '_')
	if i < 0 {
		return false
	}
	last := base[i+1:]
	return last == "test" || knownOS[last] || knownArch[last]
}

// FileBase returns the file name (without ".go") for a tool name: lower-case
// ASCII letters, digits and single underscores, with a word break before an
// upper-case letter that follows a lower-case one ("readGraph" ->
// "read_graph"). The result never starts with "_" or ".", never ends in
// "_test" or a GOOS/GOARCH name (it gets "_tool" appended), is at most 60
// bytes, and is "tool_" + 8 hex digits when the name has no ASCII letters or
// digits ("unnamed" when it is empty). It is not unique: assign file names through a Set from NewFileSet.
func FileBase(tool string) string {
	var b strings.Builder
	underscore := true // trims leading underscores
	prevLower := false
	for _, r := range tool {
		switch {
		case isASCIIAlnum(r):
			isUpper := r >= 'A' && r <= 'Z'
			if isUpper && prevLower && !underscore {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			underscore = false
			prevLower = !isUpper
		default:
			if !underscore {
				b.WriteByte('_')
				underscore = true
			}
			prevLower = false
		}
	}
	s := strings.TrimRight(b.String(), "_")
	switch {
	case tool == "":
		s = "unnamed"
	case s == "":
		s = "tool_" + hash8(tool)
	}
	if len(s) > maxFileBase {
		s = strings.TrimRight(s[:maxFileBase-9], "_") + "_" + hash8(tool)
	}
	return safeFile(s)
}

func safeFile(s string) string {
	if specialFile(s) {
		s += "_tool"
	}
	return s
}

// ValidTag reports whether a schema property name can be written as the name
// in a `json:"..."` struct tag and be sent byte for byte by encoding/json.
// encoding/json ignores tag names that contain quotes, backslashes, commas or
// characters other than letters, digits and a fixed set of punctuation;
// names with a leading or trailing space, and "-", are refused too. A
// property with such a name is sent through a map instead of a field.
func ValidTag(name string) bool {
	if name == "" || name == "-" || strings.TrimSpace(name) != name || !utf8.ValidString(name) {
		return false
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// Set assigns unique names. The zero value is not usable; use NewSet or
// NewFileSet. Assignment is deterministic: the same sequence of calls always
// gives the same names.
type Set struct {
	used  map[string]bool
	files bool // case-insensitive, and candidates are kept file-safe
}

// NewSet returns a Set of Go identifiers (case-sensitive) with the given
// names already taken.
func NewSet(reserved ...string) *Set {
	s := &Set{used: make(map[string]bool)}
	s.Reserve(reserved...)
	return s
}

// NewFileSet returns a Set of file base names: names differing only in case
// clash (case-insensitive file systems), and every name it hands out is
// file-safe as FileBase describes. The given names are already taken.
func NewFileSet(reserved ...string) *Set {
	s := &Set{used: make(map[string]bool), files: true}
	s.Reserve(reserved...)
	return s
}

func (s *Set) key(name string) string {
	if s.files {
		return strings.ToLower(name)
	}
	return name
}

// Reserve marks names as taken.
func (s *Set) Reserve(names ...string) {
	for _, n := range names {
		s.used[s.key(n)] = true
	}
}

// Taken reports whether name is taken.
func (s *Set) Taken(name string) bool { return s.used[s.key(name)] }

// Unique returns base, or base followed by 2, 3, ... (base + "_2", "_3", ...
// in a file set), choosing the first candidate c such that c+suffix is free
// for every given suffix and for c itself, and takes all of them. With
// suffixes "Args" and "Result", Unique("Foo") reserves a function name and
// the names of its argument and result types at once.
func (s *Set) Unique(base string, suffixes ...string) string {
	for n := 1; ; n++ {
		c := base
		if n > 1 {
			if s.files {
				c = base + "_" + strconv.Itoa(n)
			} else {
				c = base + strconv.Itoa(n)
			}
		}
		if s.files {
			c = safeFile(c)
		}
		if s.Taken(c) || anyTaken(s, c, suffixes) {
			continue
		}
		s.Reserve(c)
		for _, suf := range suffixes {
			s.Reserve(c + suf)
		}
		return c
	}
}

func anyTaken(s *Set, c string, suffixes []string) bool {
	for _, suf := range suffixes {
		if s.Taken(c + suf) {
			return true
		}
	}
	return false
}

// Spelled returns base followed by "_" and four hex digits of the
// SHA-256 of raw: the name of a tool whose Go name base another tool of
// the server owns (see Precedes). It depends on raw alone, so it stays
// the same whatever other tools the server lists, and in whatever order.
func Spelled(base, raw string) string {
	return base + "_" + hash8(raw)[:4]
}

// Precedes reports whether the tool name a has the first claim on a Go
// name (or file name) that b maps to as well: snake_case in lower case
// first, then kebab-case in lower case, then any other spelling, and
// within a class in byte order. The claim does not depend on the order of
// tools/list.
func Precedes(a, b string) bool {
	ca, cb := spellingClass(a), spellingClass(b)
	if ca != cb {
		return ca < cb
	}
	return a < b
}

func spellingClass(s string) int {
	snake, kebab := true, true
	for _, r := range s {
		lowerDigit := r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
		snake = snake && (lowerDigit || r == '_')
		kebab = kebab && (lowerDigit || r == '-')
	}
	switch {
	case snake:
		return 0
	case kebab:
		return 1
	}
	return 2
}
