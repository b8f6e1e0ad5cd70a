package check

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
	"iter":          "the interpreter has no iterators: collect values into a slice and range over it",
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
