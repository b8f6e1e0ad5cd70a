package check

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
)

// DefaultAllow is the standard library a snippet may import when
// Options.Allow is nil. Each package is pure computation over values the
// snippet already has: none opens files, sockets or processes, and each is
// provided by the interpreter's standard symbols. The type information for
// every package here is embedded (stdexport.zip).
var DefaultAllow = []string{
	"bufio",           // buffered reading of strings and byte slices
	"bytes",           // byte slice helpers
	"cmp",             // Compare/Less on ordered values (rewritten: the interpreter lacks them)
	"context",         // deadlines for tool calls (the Context variants of calls)
	"encoding/base64", // decoding binary tool results (images, blobs)
	"encoding/csv",    // parsing and writing CSV text from tools
	"encoding/hex",    // hex encoding of hashes and ids
	"encoding/json",   // decoding tool results; marshalling snippet structs
	"errors",          // errors.New/Is/Join (errors.As: see mcp.AsToolError)
	"fmt",             // printing the summary the snippet returns
	"html",            // escaping/unescaping HTML entities in text
	"io",              // Reader/Writer interfaces; no file access without os
	"iter",            // iter.Seq/Seq2 (rewritten: function types; range over functions is rewritten)
	"maps",            // map helpers (rewritten where the interpreter lacks them)
	"math",            // floating point functions and limits
	"math/bits",       // bit counting and rotation
	"math/rand",       // pseudo-random numbers (sampling results)
	"net/url",         // building and parsing URLs passed to tools (no network I/O)
	"path",            // slash-separated path manipulation (no file access)
	"regexp",          // matching and extracting from tool output
	"slices",          // slice helpers (rewritten where the interpreter lacks them)
	"sort",            // sort.Slice, sort.Strings, ...
	"strconv",         // number parsing and formatting
	"strings",         // string helpers
	"sync",            // WaitGroup and Mutex for concurrent tool calls
	"sync/atomic",     // counters shared by goroutines
	"text/tabwriter",  // aligned tables in the printed summary
	"text/template",   // formatting reports (ParseFiles/ParseGlob/ParseFS are refused)
	"time",            // durations, timestamps, time.Sleep between calls
	"unicode",         // character classes
	"unicode/utf16",   // UTF-16 conversions
	"unicode/utf8",    // UTF-8 decoding
}

// insteadOf says what to use in place of a refused standard package.
var insteadOf = map[string]string{
	"os":            "for files use the tools of a filesystem server (mcpfs/servers/...); print results with fmt",
	"io/ioutil":     "for files use the tools of a filesystem server (mcpfs/servers/...)",
	"io/fs":         "for files use the tools of a filesystem server (mcpfs/servers/...)",
	"path/filepath": `use "path" for slash-separated paths, and a filesystem server's tools for files`,
	"os/exec":       "snippets cannot run programs; call a server's tools instead",
	"net":           "snippets have no network; call a server's tools instead",
	"net/http":      "snippets have no network; call a fetch server's tools instead",
	"syscall":       "snippets cannot make system calls",
	"unsafe":        "snippets cannot use unsafe",
	"reflect":       `use fmt's %T and %v, or encoding/json, to inspect values`,
	"runtime":       "snippets cannot use the runtime package",
	"log":           `print with fmt (log.Fatal would end the run without output)`,
	"net/mail":      `split an address "Name <a@b>" with strings.Cut(s, " <") or a regexp, and a header line with strings.Cut(line, ":"); dates with time.Parse(time.RFC1123Z, v)`,
	"net/textproto": `split a header line with strings.Cut(line, ":") and read lines with bufio.Scanner`,
	"mime":          `split a header value's parameters with strings.Split(v, ";") and strings.Cut(p, "=")`,
	// Modules outside the standard library that models reach for.
	"golang.org/x/sync/errgroup": "use sync.WaitGroup, with a mutex or a buffered channel to keep the first error",
	"golang.org/x/exp/slices":    `use the standard "slices"`,
	"golang.org/x/exp/maps":      `use the standard "maps" (maps.Keys is an iterator: slices.Sorted(maps.Keys(m)))`,
	"github.com/pkg/errors":      `use the standard "errors", and fmt.Errorf("...: %w", err) to wrap`,
}

// refusedFuncs are functions of allowed packages that read files.
var refusedFuncs = map[string]string{
	"text/template.ParseFiles":             "parse the template text with template.New(name).Parse(text)",
	"text/template.ParseGlob":              "parse the template text with template.New(name).Parse(text)",
	"text/template.ParseFS":                "parse the template text with template.New(name).Parse(text)",
	"(*text/template.Template).ParseFiles": "parse the template text with t.Parse(text)",
	"(*text/template.Template).ParseGlob":  "parse the template text with t.Parse(text)",
	"(*text/template.Template).ParseFS":    "parse the template text with t.Parse(text)",
}

// Optional are standard packages that are as safe in snippets as
// DefaultAllow but are left out of it to keep the default list short; a
// config adds them ("mcpfs": {"imports": {"allow": [...]}}). Their type
// information is embedded too.
var Optional = []string{
	"compress/gzip",        // decompressing blobs that tools return
	"compress/zlib",        // decompressing blobs that tools return
	"container/heap",       // priority queues (top-N over big results)
	"container/list",       // doubly linked lists
	"container/ring",       // circular lists
	"crypto/hmac",          // checking signatures of webhook payloads
	"crypto/md5",           // checksums that tools report
	"crypto/sha1",          // checksums and git object ids
	"crypto/sha256",        // checksums and content hashes
	"crypto/sha512",        // checksums
	"crypto/subtle",        // constant-time comparison
	"encoding/ascii85",     // ascii85 text
	"encoding/base32",      // base32 ids
	"encoding/binary",      // fixed-size numbers in binary tool results
	"encoding/pem",         // PEM blocks in text
	"encoding/xml",         // XML tool results (feeds, SOAP, sitemaps)
	"hash",                 // the Hash interfaces
	"hash/adler32",         // checksums
	"hash/crc32",           // checksums
	"hash/crc64",           // checksums
	"hash/fnv",             // fast non-cryptographic hashes
	"math/cmplx",           // complex numbers
	"mime/quotedprintable", // quoted-printable mail bodies
}

// ConfigAllowKey and ConfigDenyKey name, in hints, where a user changes the
// allowlist: the JSON paths of the config's "mcpfs" section.
const (
	ConfigAllowKey = "mcpfs.imports.allow"
	ConfigDenyKey  = "mcpfs.imports.deny"
)

// neverAllow says why standard packages can never be allowed in snippets:
// each key covers the package and every package below it, unless that one
// is in DefaultAllow or Optional (net/url is, net is not).
var neverAllow = map[string]string{
	"os":                       "it reads and writes files, runs programs and ends the worker",
	"os/exec":                  "it runs programs",
	"io/ioutil":                "it reads and writes files",
	"io/fs":                    "it walks file systems (a snippet reads files through a filesystem server's tools)",
	"path/filepath":            "it walks and globs the real file system (use path for slash-separated paths)",
	"archive/zip":              "zip.OpenReader reads files",
	"debug":                    "it opens executable files",
	"go/build":                 "it reads files and runs the go command",
	"go/importer":              "it reads export data files and runs the go command",
	"go/parser":                "ParseFile and ParseDir read files",
	"html/template":            "ParseFiles, ParseGlob and ParseFS read files",
	"mime/multipart":           "ReadForm spills large forms into temporary files",
	"crypto/x509":              "it reads the system's certificate files",
	"crypto/tls":               "it opens network connections",
	"net":                      "it opens network connections (snippets reach the network through a server's tools)",
	"log":                      "it writes to the worker's standard error and log.Fatal ends the run without output (print with fmt)",
	"flag":                     "it reads the process's arguments and exits on errors",
	"expvar":                   "it publishes the process's state over HTTP and reads its arguments",
	"syscall":                  "it makes system calls directly",
	"unsafe":                   "it reads and writes arbitrary memory of the worker",
	"reflect":                  "it reaches values and methods the interpreter keeps from snippets, including its own symbol table",
	"runtime":                  "it controls the Go runtime of the worker (stacks, memory, tracing, profiling)",
	"plugin":                   "it loads compiled code into the worker",
	"testing":                  "it is for go test, reads flags and files and exits the process",
	"database/sql":             "it opens database connections through drivers (use a database server's tools)",
	"embed":                    "it embeds files at build time, which snippets do not have",
	"C":                        "cgo is not available in snippets",
	"github.com/traefik/yaegi": "it is the interpreter itself",
}

// Allowable returns every standard package a snippet may be given:
// DefaultAllow and Optional, sorted. The worker must provide all of them;
// the allowlist of a run picks among them.
func Allowable() []string {
	return slices.Sorted(slices.Values(slices.Concat(DefaultAllow, Optional)))
}

// CanAllow reports whether the standard package p may be added to the
// allowlist of snippets (Options.Allow): nil when it is in DefaultAllow or
// Optional; otherwise an error that says why not.
func CanAllow(p string) error {
	if slices.Contains(DefaultAllow, p) || slices.Contains(Optional, p) {
		return nil
	}
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.Contains(p, "//") || strings.ContainsAny(p, " \t\\\"`") {
		return fmt.Errorf("%q is not an import path", p)
	}
	if strings.HasPrefix(p, treePrefix) {
		return fmt.Errorf("%q is a package of the tree: snippets import the tree's packages without an allowlist", p)
	}
	if p == "internal" || strings.HasPrefix(p, "internal/") || strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal") || strings.HasPrefix(p, "vendor/") {
		return fmt.Errorf("%q is internal to the standard library and cannot be imported", p)
	}
	for q := p; ; q = path.Dir(q) {
		if why, ok := neverAllow[q]; ok {
			return fmt.Errorf("%q can never be allowed in snippets: %s", p, why)
		}
		if !strings.Contains(q, "/") {
			break
		}
	}
	if strings.Contains(strings.Split(p, "/")[0], ".") {
		return fmt.Errorf("%q is not a standard package; snippets import only standard packages and the tree's (mcpfs/...)", p)
	}
	return fmt.Errorf("%q is not one that snippets can be given (their interpreter and checker carry only these besides the defaults: %s)", p, strings.Join(Optional, ", "))
}

// Allowlist returns the standard packages snippets may import: DefaultAllow
// with add added and deny taken away, sorted. Every package of add must
// pass CanAllow; deny may name any package (one that is not allowed stays
// not allowed). A package in both is an error.
func Allowlist(add, deny []string) ([]string, error) {
	set := map[string]bool{}
	for _, p := range DefaultAllow {
		set[p] = true
	}
	for _, p := range add {
		if err := CanAllow(p); err != nil {
			return nil, err
		}
		if slices.Contains(deny, p) {
			return nil, fmt.Errorf("%q is both allowed and denied; keep one", p)
		}
		set[p] = true
	}
	for _, p := range deny {
		delete(set, p)
	}
	return slices.Sorted(maps.Keys(set)), nil
}

// importHint says what to do about an import of the standard package p
// that the allowlist refuses.
func (c *checker) importHint(p string) string {
	allowed := "allowed: " + strings.Join(c.allowed, ", ")
	// A tree package written without its mcpfs/ prefix, or by the last
	// part of its path.
	var tree []string
	for _, tp := range c.treePackages() {
		if tp == treePrefix+p || path.Base(tp) == path.Base(p) {
			tree = append(tree, strconv.Quote(tp))
		}
	}
	if len(tree) > 0 {
		return "the tree's packages start with mcpfs/: write import " + strings.Join(tree, " or ")
	}
	switch {
	case slices.Contains(DefaultAllow, p):
		return fmt.Sprintf("%q is allowed by default but this mcpfs's config denies it (%s); remove it there to use it\n%s", p, ConfigDenyKey, allowed)
	case slices.Contains(Optional, p):
		return fmt.Sprintf(`to use it, allow it in the config: "mcpfs": {"imports": {"allow": [%q]}} (%s)`+"\n%s", p, ConfigAllowKey, allowed)
	}
	if s, ok := insteadOf[p]; ok {
		return s + "\n" + allowed
	}
	return allowed
}
