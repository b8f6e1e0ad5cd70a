package discovery

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpfs/mcpfs/discovery/naming"
)

// ErrConfig matches every error about a config file (errors.Is): the file is
// missing, unreadable or invalid.
var ErrConfig = errors.New("invalid config")

// ConfigError is a problem with a config file, located as precisely as is
// known. Error renders it as FILE:LINE:COL: JSONPATH: MSG, leaving out the
// parts that are unknown.
type ConfigError struct {
	File     string // the config file; empty when not known
	JSONPath string // e.g. mcpServers["my.server"].args[2]; empty for the whole file
	Line     int    // 1-based; 0 when not known
	Col      int    // 1-based, in characters; 0 when not known
	Msg      string
	// Err is the underlying error, if any (from the file system, say).
	Err error
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
			if e.Col > 0 {
				fmt.Fprintf(&b, ":%d", e.Col)
			}
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "%d:%d: ", e.Line, e.Col)
	}
	if e.JSONPath != "" {
		b.WriteString(e.JSONPath)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Is reports whether target is ErrConfig.
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }

// Unwrap returns the underlying error, if any.
func (e *ConfigError) Unwrap() error { return e.Err }

// maxConfigSize bounds a config file; real ones are a few kilobytes.
const maxConfigSize = 4 << 20

// Parse parses one config file's contents. path is the file's name, used in
// messages and to resolve a relative cwd, or a relative command containing a
// slash, against the file's directory (Load passes an absolute path).
// lookupEnv expands ${VAR} references; nil means os.LookupEnv.
//
// It accepts the dialects users already have: a top-level "mcpServers" object
// (Claude Desktop, Claude Code, Cursor) or "servers" (VS Code). Every error is
// a *ConfigError matching ErrConfig. A ${VAR} that is not set does not fail
// the config: the server that uses it gets ServerConfig.Err instead.
func Parse(path string, data []byte, lookupEnv func(string) (string, bool)) (*Config, error) {
	if lookupEnv == nil {
		lookupEnv = os.LookupEnv
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	p := &configParser{file: path, data: data, lookupEnv: lookupEnv, dir: filepath.Dir(path)}
	if err := p.checkBytes(); err != nil {
		return nil, err
	}
	root, err := parseJSON(data)
	if err != nil {
		var se *jsonSyntaxError
		if errors.As(err, &se) {
			return nil, p.errAt(se.Off, se.Path, "%s", se.Msg)
		}
		return nil, p.errAt(0, "", "%s", err.Error()) // not reached: parseJSON returns only syntax errors
	}
	cfg, err := p.config(root)
	if err != nil {
		return nil, err
	}
	cfg.Path = path
	cfg.Warnings = p.warnings
	if n := p.warningCount - maxWarnings; n > 0 {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: %d more warnings not shown", path, n))
	}
	return cfg, nil
}

// configParser validates one file's JSON tree and builds its Config.
type configParser struct {
	file      string
	data      []byte
	dir       string
	lookupEnv func(string) (string, bool)
	format    string

	warnings     []string
	warningCount int
}

// errAt returns a ConfigError at byte offset off.
func (p *configParser) errAt(off int, path, format string, args ...any) *ConfigError {
	line, col := lineCol(p.data, off)
	return &ConfigError{File: p.file, JSONPath: path, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// maxWarnings bounds the warnings kept for one file; the rest are counted.
const maxWarnings = 50

// warnAt records a warning at byte offset off.
func (p *configParser) warnAt(off int, path, format string, args ...any) {
	p.warningCount++
	if p.warningCount <= maxWarnings {
		p.warnings = append(p.warnings, p.errAt(off, path, format, args...).Error())
	}
}

// checkBytes rejects files that are not JSON text at all.
func (p *configParser) checkBytes() error {
	d := p.data
	switch {
	case len(d) > maxConfigSize:
		return &ConfigError{File: p.file, Msg: fmt.Sprintf("file is %d bytes; a config file may be at most %d bytes (4 MiB)", len(d), maxConfigSize)}
	case len(d) == 0:
		return &ConfigError{File: p.file, Msg: `file is empty; write {"mcpServers": {}} in it, or give another file`}
	case len(bytes.TrimLeft(d, " \t\r\n")) == 0:
		return &ConfigError{File: p.file, Msg: `file holds only whitespace; write {"mcpServers": {}} in it, or give another file`}
	case bytes.HasPrefix(d, []byte{0xfe, 0xff}), bytes.HasPrefix(d, []byte{0xff, 0xfe}):
		return &ConfigError{File: p.file, Msg: "file is UTF-16 encoded; save it as UTF-8"}
	}
	if !utf8.Valid(d) {
		off := 0
		for off < len(d) {
			r, n := utf8.DecodeRune(d[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return p.errAt(off, "", "invalid UTF-8 (byte 0x%02x); save the file as UTF-8", d[off])
	}
	return nil
}

// Top-level keys with a meaning; others are ignored (Claude's own files hold
// many).
const (
	keyMCPServers = "mcpServers"
	keyServers    = "servers"
	keyMCPFS      = "mcpfs"
)

func (p *configParser) config(root *jsonValue) (*Config, error) {
	if root.Kind != jsonObject {
		return nil, p.errAt(root.Off, "", `the top level must be an object like {"mcpServers": {...}}, got %s`, root.Describe())
	}
	if err := p.noDuplicateKeys(root, ""); err != nil {
		return nil, err
	}
	var servers, mcpfs *jsonValue
	var serversKey jsonMember
	for _, m := range root.Members {
		switch m.Key {
		case keyMCPServers, keyServers:
			if servers != nil {
				return nil, p.errAt(m.KeyOff, "", "both %q and %q are present; keep one (%q for Claude Desktop, Claude Code and Cursor; %q for VS Code)",
					keyMCPServers, keyServers, keyMCPServers, keyServers)
			}
			servers, serversKey = m.Value, m
		case keyMCPFS:
			mcpfs = m.Value
		}
	}
	if mcpfs != nil && mcpfs.Kind != jsonObject {
		return nil, p.errAt(mcpfs.Off, keyMCPFS, "want an object (mcpfs's own settings), got %s", mcpfs.Describe())
	}
	if servers == nil {
		return nil, p.errAt(root.Off, "", `no %q object: write {"mcpServers": {"name": {"command": ...}}} (Claude Desktop, Claude Code, Cursor) or {"servers": {...}} (VS Code)`, keyMCPServers)
	}
	p.format = serversKey.Key
	if servers.Kind != jsonObject {
		return nil, p.errAt(servers.Off, p.format, `want an object mapping server names to servers, like {"github": {"command": ...}}, got %s`, servers.Describe())
	}
	if err := p.noDuplicateKeys(servers, p.format); err != nil {
		return nil, err
	}
	cfg := &Config{Format: p.format, Servers: []ServerConfig{}}
	keyOf := map[string]string{} // Name -> Key, to report clashes
	for _, m := range servers.Members {
		path := jsonPathKey(p.format, m.Key)
		if strings.TrimSpace(m.Key) == "" {
			return nil, p.errAt(m.KeyOff, path, "empty server name; give the server a name")
		}
		name := naming.Package(m.Key)
		if other, ok := keyOf[name]; ok {
			return nil, p.errAt(m.KeyOff, path, "server names %q and %q both become %q; rename one", other, m.Key, name)
		}
		keyOf[name] = m.Key
		sc, err := p.server(m, path)
		if err != nil {
			return nil, err
		}
		sc.Name = name
		cfg.Servers = append(cfg.Servers, *sc)
	}
	if len(servers.Members) == 0 {
		p.warnAt(servers.Off, p.format, "no servers configured")
	}
	slices.SortFunc(cfg.Servers, func(a, b ServerConfig) int { return strings.Compare(a.Name, b.Name) })
	if mcpfs != nil {
		if err := p.settings(cfg, mcpfs); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// noDuplicateKeys rejects an object that has a key twice: JSON allows it,
// but readers disagree on which one wins.
func (p *configParser) noDuplicateKeys(obj *jsonValue, path string) error {
	seen := make(map[string]int, len(obj.Members))
	for _, m := range obj.Members {
		if first, ok := seen[m.Key]; ok {
			line, col := lineCol(p.data, first)
			return p.errAt(m.KeyOff, jsonPathKey(path, m.Key), "duplicate key (first at %d:%d); JSON readers disagree on which one wins, so remove one", line, col)
		}
		seen[m.Key] = m.KeyOff
	}
	return nil
}

// server validates one entry of mcpServers/servers.
func (p *configParser) server(m jsonMember, path string) (*ServerConfig, error) {
	obj := m.Value
	if obj.Kind != jsonObject {
		return nil, p.errAt(obj.Off, path, `want an object like {"command": "..."} or {"url": "..."}, got %s`, obj.Describe())
	}
	if err := p.noDuplicateKeys(obj, path); err != nil {
		return nil, err
	}
	sc := &ServerConfig{Key: m.Key}
	// The values as written, before ${VAR} expansion, and where they are.
	var command, cwd, urlv, typ *jsonValue
	var args []*jsonValue
	var env, headers []jsonMember
	fields := map[string]*jsonValue{}
	for _, f := range obj.Members {
		fpath := jsonPathKey(path, f.Key)
		v := f.Value
		fields[f.Key] = v
		var err error
		switch f.Key {
		case "command":
			if v.Kind == jsonArray {
				err = p.errAt(v.Off, fpath, `want a string, got an array; put the program in "command" and the rest in "args"`)
				break
			}
			command, err = p.nonEmptyString(v, fpath)
		case "cwd":
			err = p.wantKind(v, fpath, jsonString, "a string")
			if err == nil && v.Str != "" {
				cwd = v
			}
		case "url":
			urlv, err = p.nonEmptyString(v, fpath)
		case "type":
			typ = v
			sc.Transport, err = p.transport(v, fpath)
		case "args":
			args, err = p.stringArray(v, fpath)
		case "env":
			env, err = p.stringMap(v, fpath, true)
			if err == nil {
				err = p.checkEnvNames(env, fpath)
			}
		case "headers":
			headers, err = p.stringMap(v, fpath, false)
			if err == nil {
				err = p.checkHeaderNames(headers, fpath)
			}
		case "disabled":
			err = p.wantKind(v, fpath, jsonBool, "true or false")
			sc.Disabled = v.Bool
		case "timeout":
			sc.Timeout, err = p.timeout(v, fpath)
		case "mcpfs":
			err = p.mcpfsOptions(sc, v, fpath)
		case "envFile":
			p.warnAt(f.KeyOff, fpath, "envFile is not supported, ignored; put the variables in env, or export them and write ${VAR}")
		default:
			p.warnAt(f.KeyOff, fpath, "unknown key, ignored")
		}
		if err != nil {
			return nil, err
		}
	}

	// Which transport: as declared, or inferred as Cursor does.
	switch {
	case command != nil && urlv != nil:
		return nil, p.errAt(urlv.Off, jsonPathKey(path, "url"), "a server has either a command (stdio) or a url (http, sse), not both; remove one")
	case command == nil && urlv == nil:
		return nil, p.errAt(obj.Off, path, `no "command" or "url": give a command to start (stdio) or the url of a running server (http, sse)`)
	case sc.Transport == "stdio" && command == nil:
		return nil, p.errAt(typ.Off, jsonPathKey(path, "type"), `type "stdio" needs a "command", but the server has a "url"; write "type": "http" (or "sse")`)
	case sc.Transport != "" && sc.Transport != "stdio" && urlv == nil:
		return nil, p.errAt(typ.Off, jsonPathKey(path, "type"), `type %q needs a "url", but the server has a "command"; write "type": "stdio" or give a url`, typ.Str)
	case sc.Transport == "" && command != nil:
		sc.Transport = "stdio"
	case sc.Transport == "":
		sc.Transport = "http"
		if strings.HasSuffix(strings.TrimRight(urlPath(urlv.Str), "/"), "/sse") {
			sc.Transport = "sse"
		}
	}
	if sc.Transport == "stdio" {
		if headers != nil {
			p.warnAt(fields["headers"].Off, jsonPathKey(path, "headers"), "headers are for http and sse servers; ignored for a stdio server")
		}
	} else {
		for _, k := range []string{"args", "env", "cwd"} {
			if v := fields[k]; v != nil {
				p.warnAt(v.Off, jsonPathKey(path, k), "%s is for stdio servers; ignored for an %s server", k, sc.Transport)
			}
		}
	}

	// Expand ${VAR}s. An unset variable fails only this server: sc.Err
	// keeps the first one.
	x := &expander{lookupEnv: p.lookupEnv, sc: sc, vsCode: p.format == keyServers, dir: p.dir}
	if sc.Transport == "stdio" {
		sc.Command = x.expand(command, jsonPathKey(path, "command"))
		for i, a := range args {
			sc.Args = append(sc.Args, x.expand(a, jsonPathIndex(jsonPathKey(path, "args"), i)))
		}
		if env != nil {
			sc.Env = make(map[string]string, len(env))
			for _, e := range env {
				sc.Env[e.Key] = x.expand(e.Value, jsonPathKey(jsonPathKey(path, "env"), e.Key))
			}
		}
		if cwd != nil {
			sc.Cwd = x.expand(cwd, jsonPathKey(path, "cwd"))
		}
	} else {
		sc.URL = x.expand(urlv, jsonPathKey(path, "url"))
		if headers != nil {
			sc.Headers = make(map[string]string, len(headers))
			for _, h := range headers {
				sc.Headers[h.Key] = x.expand(h.Value, jsonPathKey(jsonPathKey(path, "headers"), h.Key))
			}
		}
	}

	if sc.Transport == "stdio" {
		sc.Command = p.resolvePath(sc, sc.Command, command, jsonPathKey(path, "command"), true)
		if cwd != nil {
			sc.Cwd = p.resolvePath(sc, sc.Cwd, cwd, jsonPathKey(path, "cwd"), false)
		}
	} else if err := p.checkURL(sc, urlv, jsonPathKey(path, "url")); err != nil {
		return nil, err
	}
	if sc.Disabled {
		sc.Err = "" // never started, so nothing to report
	}
	return sc, nil
}

// transport maps a "type" value to Transport.
func (p *configParser) transport(v *jsonValue, path string) (string, error) {
	if err := p.wantKind(v, path, jsonString, "a string"); err != nil {
		return "", err
	}
	switch v.Str {
	case "stdio":
		return "stdio", nil
	case "http", "streamable-http", "streamableHttp":
		return "http", nil
	case "sse":
		return "sse", nil
	}
	return "", p.errAt(v.Off, path, `unknown type %q; want "stdio", "http" (or "streamable-http") or "sse"`, v.Str)
}

func (p *configParser) wantKind(v *jsonValue, path string, kind jsonKind, want string) error {
	if v.Kind != kind {
		return p.errAt(v.Off, path, "want %s, got %s", want, v.Describe())
	}
	return nil
}

func (p *configParser) nonEmptyString(v *jsonValue, path string) (*jsonValue, error) {
	if err := p.wantKind(v, path, jsonString, "a string"); err != nil {
		return nil, err
	}
	if strings.TrimSpace(v.Str) == "" {
		return nil, p.errAt(v.Off, path, "is empty; give a value or remove the key")
	}
	if strings.ContainsRune(v.Str, 0) {
		return nil, p.errAt(v.Off, path, "contains a NUL character")
	}
	return v, nil
}

func (p *configParser) stringArray(v *jsonValue, path string) ([]*jsonValue, error) {
	if v.Kind != jsonArray {
		return nil, p.errAt(v.Off, path, "want an array of strings, got %s", v.Describe())
	}
	for i, e := range v.Elems {
		if e.Kind != jsonString {
			hint := ""
			if e.Kind == jsonNumber || e.Kind == jsonBool {
				hint = "; put it in double quotes"
			}
			return nil, p.errAt(e.Off, jsonPathIndex(path, i), "want a string, got %s%s", e.Describe(), hint)
		}
		if strings.ContainsRune(e.Str, 0) {
			return nil, p.errAt(e.Off, jsonPathIndex(path, i), "contains a NUL character")
		}
	}
	return v.Elems, nil
}

// stringMap checks an object of strings (env, headers). With scalars set,
// numbers and booleans are accepted too and become their JSON text: Claude
// Desktop users write "PORT": 8080.
func (p *configParser) stringMap(v *jsonValue, path string, scalars bool) ([]jsonMember, error) {
	if v.Kind != jsonObject {
		return nil, p.errAt(v.Off, path, "want an object of strings, got %s", v.Describe())
	}
	if err := p.noDuplicateKeys(v, path); err != nil {
		return nil, err
	}
	out := make([]jsonMember, 0, len(v.Members))
	for _, m := range v.Members {
		e := m.Value
		switch {
		case e.Kind == jsonString:
		case scalars && e.Kind == jsonNumber:
			e = &jsonValue{Kind: jsonString, Off: e.Off, Str: e.Str}
		case scalars && e.Kind == jsonBool:
			e = &jsonValue{Kind: jsonString, Off: e.Off, Str: strconv.FormatBool(e.Bool)}
		default:
			return nil, p.errAt(e.Off, jsonPathKey(path, m.Key), "want a string, got %s", e.Describe())
		}
		if strings.ContainsRune(e.Str, 0) {
			return nil, p.errAt(e.Off, jsonPathKey(path, m.Key), "contains a NUL character")
		}
		out = append(out, jsonMember{Key: m.Key, KeyOff: m.KeyOff, Value: e})
	}
	return out, nil
}

func (p *configParser) checkEnvNames(env []jsonMember, path string) error {
	for _, e := range env {
		if e.Key == "" || strings.ContainsAny(e.Key, "=\x00") {
			return p.errAt(e.KeyOff, jsonPathKey(path, e.Key), "invalid environment variable name %q: it must be non-empty and hold no = or NUL", e.Key)
		}
	}
	return nil
}

func (p *configParser) checkHeaderNames(headers []jsonMember, path string) error {
	for _, h := range headers {
		if !isHTTPToken(h.Key) {
			return p.errAt(h.KeyOff, jsonPathKey(path, h.Key), "invalid HTTP header name %q", h.Key)
		}
		if strings.ContainsAny(h.Value.Str, "\r\n") {
			return p.errAt(h.Value.Off, jsonPathKey(path, h.Key), "header value holds a line break")
		}
	}
	return nil
}

// isHTTPToken reports whether s is a valid header field name (RFC 9110 token).
func isHTTPToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// maxTimeout bounds "timeout"; anything longer is surely a mistake.
const maxTimeout = 24 * time.Hour

func (p *configParser) timeout(v *jsonValue, path string) (time.Duration, error) {
	if err := p.wantKind(v, path, jsonNumber, "a number of milliseconds"); err != nil {
		return 0, err
	}
	ms, err := strconv.ParseFloat(v.Str, 64)
	if err != nil || math.IsInf(ms, 0) || ms <= 0 {
		return 0, p.errAt(v.Off, path, "want a positive number of milliseconds, got %s", v.Str)
	}
	if ms > float64(maxTimeout.Milliseconds()) {
		return 0, p.errAt(v.Off, path, "timeout %s ms is over %v; give milliseconds (30000 is 30 s)", v.Str, maxTimeout)
	}
	d := time.Duration(ms * float64(time.Millisecond))
	if d <= 0 {
		return 0, p.errAt(v.Off, path, "want a positive number of milliseconds, got %s", v.Str)
	}
	return d, nil
}

// mcpfsOptions reads a server entry's "mcpfs" object: settings only mcpfs
// reads, kept apart so that other MCP clients sharing the config ignore
// them. Durations are Go durations ("90s", "10m") or milliseconds.
func (p *configParser) mcpfsOptions(sc *ServerConfig, v *jsonValue, path string) error {
	if err := p.wantKind(v, path, jsonObject, `an object like {"cacheResults": "10m", "callTimeout": "2m"}`); err != nil {
		return err
	}
	if err := p.noDuplicateKeys(v, path); err != nil {
		return err
	}
	for _, f := range v.Members {
		fpath := jsonPathKey(path, f.Key)
		var err error
		switch f.Key {
		case "callTimeout":
			sc.CallTimeout, err = p.duration(f.Value, fpath)
		case "cacheResults":
			sc.CacheResults, err = p.duration(f.Value, fpath)
		case "maxListBytes":
			sc.MaxListBytes, err = p.byteSize(f.Value, fpath, minListBytes, maxListBytes)
		case "oauth":
			err = p.oauth(sc, f.Value, fpath)
		default:
			p.warnAt(f.KeyOff, fpath, "unknown key, ignored (known: cacheResults, callTimeout, maxListBytes, oauth)")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Bounds of "maxListBytes".
const (
	minListBytes = 64 << 10
	maxListBytes = 1 << 30
)

// duration reads a positive duration: a Go duration string or a number of
// milliseconds, at most maxTimeout.
func (p *configParser) duration(v *jsonValue, path string) (time.Duration, error) {
	if v.Kind == jsonNumber {
		return p.timeout(v, path)
	}
	if err := p.wantKind(v, path, jsonString, `a duration like "30s" or "10m", or a number of milliseconds`); err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(v.Str)
	if err != nil || d <= 0 {
		return 0, p.errAt(v.Off, path, `want a positive duration like "30s" or "10m", got %q`, v.Str)
	}
	if d > maxTimeout {
		return 0, p.errAt(v.Off, path, "duration %s is over %v", v.Str, maxTimeout)
	}
	return d, nil
}

// resolvePath makes a relative cwd, or a relative command holding a slash,
// relative to the config file's directory. A leading ~ is not expanded (the
// programs that start servers do not expand it either), so it sets sc.Err.
func (p *configParser) resolvePath(sc *ServerConfig, s string, v *jsonValue, path string, isCommand bool) string {
	if s == "~" || strings.HasPrefix(s, "~/") || strings.HasPrefix(s, `~\`) {
		if sc.Err == "" {
			sc.Err = fmt.Sprintf(`%s: %q starts with ~, which is not expanded; write ${HOME}%s instead`, path, s, s[1:])
		}
		return s
	}
	if filepath.IsAbs(s) {
		return s
	}
	if isCommand && !strings.ContainsRune(s, '/') && !(filepath.Separator == '\\' && strings.ContainsRune(s, '\\')) {
		return s // looked up in PATH
	}
	return filepath.Join(p.dir, s)
}

// checkURL checks that a url is an absolute http(s) URL. A bad literal fails
// the config; a bad URL that came out of ${VAR} expansion only this server.
func (p *configParser) checkURL(sc *ServerConfig, v *jsonValue, path string) error {
	if sc.Err != "" {
		return nil // unset variable: the expanded text means nothing
	}
	msg := urlProblem(sc.URL)
	if msg == "" {
		return nil
	}
	if strings.Contains(v.Str, "${") {
		sc.Err = fmt.Sprintf("%s: after expanding variables, %s", path, msg)
		return nil
	}
	return p.errAt(v.Off, path, "%s", msg)
}

// urlProblem says what is wrong with a server url, or "" if nothing.
func urlProblem(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Sprintf("not a valid URL (%v); want http://host/path or https://host/path", err)
	}
	switch {
	case u.Opaque != "":
		return "not an absolute URL (is http:// or https:// missing?)"
	case u.Scheme == "":
		return "not an absolute URL; want http://host/path or https://host/path"
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("unsupported scheme %q; want http or https", u.Scheme)
	case u.Host == "":
		return "URL has no host; want http://host/path or https://host/path"
	}
	return ""
}

// urlPath returns the path of s, or s if it does not parse.
func urlPath(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Path
	}
	return s
}
