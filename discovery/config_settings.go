package discovery

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Bounds of the "mcpfs" settings.
const (
	// MinMemory is the least limits.memory. A worker with 128 MiB
	// sometimes died starting threads for concurrent tool calls; 160 MiB
	// ran them, so the floor leaves room above that.
	MinMemory = 256 << 20
	// maxMemory bounds limits.memory; more is surely a unit mistake.
	maxMemory = 1 << 40
	// minOutput and maxOutput bound limits.output, which each result holds
	// in memory and sends to the agent.
	minOutput = 1 << 10
	maxOutput = 256 << 20
	// maxOutputFile bounds limits.outputFile, a file on disk per stream.
	maxOutputFile = 64 << 30
	// maxConcurrentCalls bounds limits.concurrentCalls.
	maxConcurrentCalls = 1024
	// maxPool bounds pool: each waiting worker holds its memory.
	maxPool = 16
)

// Keys of the "mcpfs" object and its parts.
var (
	settingsKeys = []string{"imports", "limits", "sandbox", "pool", "engine", "tools", "audit"}
	engineKeys   = []string{"idle", "treeMemory"}
	importsKeys  = []string{"allow", "deny"}
	limitsKeys   = []string{"timeout", "maxTimeout", "memory", "output", "outputFile", "concurrentCalls"}
)

// notLimits explains keys users reach for in limits that are not settings.
var notLimits = map[string]string{
	"cpu":       "the CPU time of a run follows from its time limit (a worker may use at most 2×maxTimeout+10s of CPU); set timeout or maxTimeout",
	"openFiles": "snippets cannot open files or sockets, so the worker's descriptor limit (32) is fixed",
	"processes": "snippets cannot start processes at all, so there is no count to set",
	"files":     "snippets cannot open files or sockets, so the worker's descriptor limit (32) is fixed",
}

// settings reads the top-level "mcpfs" object. Unlike a server entry's
// keys, which other MCP clients define too, every key here is mcpfs's: an
// unknown one is an error, so that a misspelt setting never leaves a
// default in force unnoticed.
func (p *configParser) settings(cfg *Config, v *jsonValue) error {
	if err := p.noDuplicateKeys(v, keyMCPFS); err != nil {
		return err
	}
	s := &cfg.Settings
	for _, f := range v.Members {
		fpath := jsonPathKey(keyMCPFS, f.Key)
		var err error
		switch f.Key {
		case "imports":
			err = p.imports(cfg, f.Value, fpath)
		case "limits":
			err = p.limits(s, f.Value, fpath)
		case "sandbox":
			s.Sandbox, err = p.sandboxMode(f.Value, fpath)
		case "pool":
			var n int
			n, err = p.integer(f.Value, fpath, 0, maxPool, "workers")
			s.Pool = &n
		case "engine":
			err = p.engine(s, f.Value, fpath)
		case "tools":
			err = p.tools(cfg, f.Value, fpath)
		case "audit":
			err = p.audit(s, f.Value, fpath)
		default:
			err = p.unknownKey(f, fpath, settingsKeys)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Bounds of engine.treeMemory.
const (
	minTreeMemory = 1 << 20
	maxTreeMemory = 64 << 30
)

// engine reads "engine": {"idle": "10m", "treeMemory": "48MiB"}.
func (p *configParser) engine(s *Settings, v *jsonValue, path string) error {
	if err := p.wantKind(v, path, jsonObject, `an object like {"idle": "10m"}`); err != nil {
		return err
	}
	if err := p.noDuplicateKeys(v, path); err != nil {
		return err
	}
	for _, f := range v.Members {
		fpath := jsonPathKey(path, f.Key)
		switch f.Key {
		case "idle":
			d, err := p.duration(f.Value, fpath)
			if err != nil {
				return err
			}
			s.EngineIdle = d
		case "treeMemory":
			n, err := p.byteSize(f.Value, fpath, minTreeMemory, maxTreeMemory)
			if err != nil {
				return err
			}
			s.TreeMemory = n
		default:
			return p.unknownKey(f, fpath, engineKeys)
		}
	}
	return nil
}

// unknownKey is the error of a key of the "mcpfs" object that means
// nothing, with the key meant when it looks like a misspelling.
func (p *configParser) unknownKey(f jsonMember, path string, known []string) error {
	if s := suggest(f.Key, known); s != "" {
		return p.errAt(f.KeyOff, path, "unknown key; did you mean %q? (known: %s)", s, strings.Join(known, ", "))
	}
	return p.errAt(f.KeyOff, path, "unknown key (known: %s)", strings.Join(known, ", "))
}

// suggest returns the key of known closest to key, if it is close enough
// to be a misspelling of it: the same but for case, "-" and "_", or at
// most two edits away.
func suggest(key string, known []string) string {
	fold := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '-' || r == '_' {
				return -1
			}
			return unicode.ToLower(r)
		}, s)
	}
	best, bestD := "", 3
	for _, k := range known {
		if fold(k) == fold(key) {
			return k
		}
		if d := editDistance(strings.ToLower(key), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// imports reads "imports": {"allow": [...], "deny": [...]}.
func (p *configParser) imports(cfg *Config, v *jsonValue, path string) error {
	if err := p.wantKind(v, path, jsonObject, `an object like {"allow": ["crypto/sha256"], "deny": ["text/template"]}`); err != nil {
		return err
	}
	if err := p.noDuplicateKeys(v, path); err != nil {
		return err
	}
	var allow, deny []*jsonValue
	for _, f := range v.Members {
		fpath := jsonPathKey(path, f.Key)
		var err error
		switch f.Key {
		case "allow":
			allow, err = p.importPaths(cfg, f.Value, fpath)
		case "deny":
			deny, err = p.importPaths(cfg, f.Value, fpath)
		default:
			err = p.unknownKey(f, fpath, importsKeys)
		}
		if err != nil {
			return err
		}
	}
	for i, d := range deny {
		for _, a := range allow {
			if a.Str == d.Str {
				line, col := lineCol(p.data, a.Off)
				return p.errAt(d.Off, jsonPathIndex(jsonPathKey(path, "deny"), i), "%q is also in allow (at %d:%d); keep it in one of them", d.Str, line, col)
			}
		}
	}
	for _, a := range allow {
		cfg.Settings.Allow = append(cfg.Settings.Allow, a.Str)
	}
	for _, d := range deny {
		cfg.Settings.Deny = append(cfg.Settings.Deny, d.Str)
	}
	return nil
}

// importPaths reads an array of standard import paths and records where
// each one is.
func (p *configParser) importPaths(cfg *Config, v *jsonValue, path string) ([]*jsonValue, error) {
	if v.Kind != jsonArray {
		return nil, p.errAt(v.Off, path, `want an array of import paths like ["crypto/sha256"], got %s`, v.Describe())
	}
	seen := map[string]int{}
	for i, e := range v.Elems {
		epath := jsonPathIndex(path, i)
		if e.Kind != jsonString {
			return nil, p.errAt(e.Off, epath, `want an import path in double quotes like "crypto/sha256", got %s`, e.Describe())
		}
		if msg := importPathProblem(e.Str); msg != "" {
			return nil, p.errAt(e.Off, epath, "%s", msg)
		}
		if first, ok := seen[e.Str]; ok {
			line, col := lineCol(p.data, first)
			return nil, p.errAt(e.Off, epath, "%q is listed twice (first at %d:%d); remove one", e.Str, line, col)
		}
		seen[e.Str] = e.Off
		if cfg.settingAt == nil {
			cfg.settingAt = map[string]position{}
		}
		line, col := lineCol(p.data, e.Off)
		cfg.settingAt[epath] = position{line, col}
	}
	return v.Elems, nil
}

// importPathProblem says what is wrong with s as an import path, or "".
func importPathProblem(s string) string {
	switch {
	case strings.TrimSpace(s) == "":
		return "is empty; give an import path like \"crypto/sha256\" or remove it"
	case strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") || strings.Contains(s, "//"):
		return fmt.Sprintf("%q is not an import path: it has an empty element", s)
	case strings.HasPrefix(s, "mcpfs/"):
		return fmt.Sprintf("%q is a package of the tree: snippets import the tree's packages (mcpfs/...) without being allowed; list only standard packages", s)
	}
	for _, elem := range strings.Split(s, "/") {
		if elem == "." || elem == ".." {
			return fmt.Sprintf("%q is not an import path: it has a %q element", s, elem)
		}
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-~+", r)) {
			return fmt.Sprintf("%q is not an import path: it holds %q", s, r)
		}
	}
	return ""
}

// limits reads "limits": {"timeout": ..., ...}.
func (p *configParser) limits(s *Settings, v *jsonValue, path string) error {
	if err := p.wantKind(v, path, jsonObject, `an object like {"timeout": "30s", "memory": "1GiB"}`); err != nil {
		return err
	}
	if err := p.noDuplicateKeys(v, path); err != nil {
		return err
	}
	var timeoutAt, maxTimeoutAt, outputAt, outputFileAt *jsonValue
	for _, f := range v.Members {
		fpath := jsonPathKey(path, f.Key)
		var err error
		switch f.Key {
		case "timeout":
			s.Timeout, err = p.duration(f.Value, fpath)
			timeoutAt = f.Value
		case "maxTimeout":
			s.MaxTimeout, err = p.duration(f.Value, fpath)
			maxTimeoutAt = f.Value
		case "memory":
			s.Memory, err = p.byteSize(f.Value, fpath, MinMemory, maxMemory)
		case "output":
			s.Output, err = p.byteSize(f.Value, fpath, minOutput, maxOutput)
			outputAt = f.Value
		case "outputFile":
			s.OutputFile, err = p.byteSize(f.Value, fpath, minOutput, maxOutputFile)
			outputFileAt = f.Value
		case "concurrentCalls":
			s.ConcurrentCalls, err = p.integer(f.Value, fpath, 1, maxConcurrentCalls, "tool calls")
		default:
			if why, ok := notLimits[f.Key]; ok {
				err = p.errAt(f.KeyOff, fpath, "not a setting: %s (known: %s)", why, strings.Join(limitsKeys, ", "))
			} else {
				err = p.unknownKey(f, fpath, limitsKeys)
			}
		}
		if err != nil {
			return err
		}
	}
	if timeoutAt != nil && maxTimeoutAt != nil && s.Timeout > s.MaxTimeout {
		line, col := lineCol(p.data, maxTimeoutAt.Off)
		return p.errAt(timeoutAt.Off, jsonPathKey(path, "timeout"), "timeout %v is over maxTimeout %v (at %d:%d); lower timeout or raise maxTimeout", s.Timeout, s.MaxTimeout, line, col)
	}
	if outputAt != nil && outputFileAt != nil && s.Output > s.OutputFile {
		line, col := lineCol(p.data, outputFileAt.Off)
		return p.errAt(outputAt.Off, jsonPathKey(path, "output"), "output %s is over outputFile %s (at %d:%d); the file holds the whole output, so it must be at least as large", FormatBytes(s.Output), FormatBytes(s.OutputFile), line, col)
	}
	return nil
}

// sandboxMode reads "sandbox": "auto" or "strict".
func (p *configParser) sandboxMode(v *jsonValue, path string) (string, error) {
	if err := p.wantKind(v, path, jsonString, `"auto" or "strict"`); err != nil {
		return "", err
	}
	switch v.Str {
	case "auto", "strict":
		return v.Str, nil
	}
	return "", p.errAt(v.Off, path, `unknown sandbox mode %q; want "strict" (refuse to run snippets unless every sandbox layer is in force) or "auto" (run with the layers the system offers)`, v.Str)
}

// integer reads a whole number in [lo, hi]; unit names it in messages.
func (p *configParser) integer(v *jsonValue, path string, lo, hi int, unit string) (int, error) {
	if err := p.wantKind(v, path, jsonNumber, "a whole number"); err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(v.Str, 10, 64)
	if err != nil {
		return 0, p.errAt(v.Off, path, "want a whole number from %d to %d, got %s", lo, hi, v.Str)
	}
	if n < int64(lo) || n > int64(hi) {
		return 0, p.errAt(v.Off, path, "%d %s is out of range; want %d to %d", n, unit, lo, hi)
	}
	return int(n), nil
}

// byteUnits are the units a size may have. KB, MB, ... are powers of
// 1000 and KiB, MiB, ... of 1024, as everywhere else.
var byteUnits = []struct {
	name string
	size int64
}{
	{"B", 1},
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
}

// byteSize reads a size in [lo, hi] bytes: a whole number of bytes, or a
// string like "512MiB", "1.5GiB" or "100 MB".
func (p *configParser) byteSize(v *jsonValue, path string, lo, hi int64) (int64, error) {
	const want = `a size like "512MiB" or "1GiB", or a number of bytes`
	var n int64
	switch v.Kind {
	case jsonNumber:
		i, err := strconv.ParseInt(v.Str, 10, 64)
		if err != nil {
			return 0, p.errAt(v.Off, path, "want a whole number of bytes, or a size like \"512MiB\", got %s", v.Str)
		}
		n = i
	case jsonString:
		var ok bool
		n, ok = parseByteSize(v.Str)
		if !ok {
			return 0, p.errAt(v.Off, path, "want %s, got %q (units: B, KiB, MiB, GiB, TiB, kB, MB, GB, TB)", want, v.Str)
		}
	default:
		return 0, p.errAt(v.Off, path, "want %s, got %s", want, v.Describe())
	}
	if n < lo {
		return 0, p.errAt(v.Off, path, "%s is below the minimum of %s", FormatBytes(n), FormatBytes(lo))
	}
	if n > hi {
		return 0, p.errAt(v.Off, path, "%s is over the maximum of %s", FormatBytes(n), FormatBytes(hi))
	}
	return n, nil
}

// parseByteSize parses "<number>[ ]<unit>" or a bare number of bytes.
func parseByteSize(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	num, unit := s, "B"
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	if num == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false
	}
	for _, u := range byteUnits {
		if u.name == unit {
			b := f * float64(u.size)
			if b > math.MaxInt64/2 || b != math.Trunc(b) && u.size == 1 {
				return 0, false
			}
			return int64(b), true
		}
	}
	return 0, false
}

// FormatBytes renders n bytes the way sizes are written in the config:
// "1GiB", "512MiB", "1536KiB", or "1000B".
func FormatBytes(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// CheckImports checks every package of imports.allow with canAllow (the
// snippet checker's CanAllow fits), which says why a package cannot be
// allowed, and returns the first refusal as a *ConfigError at its entry:
// file:line:col, JSON path and the reason.
func (c *Config) CheckImports(canAllow func(pkg string) error) error {
	for i, pkg := range c.Settings.Allow {
		err := canAllow(pkg)
		if err == nil {
			continue
		}
		path := jsonPathIndex(keyMCPFS+".imports.allow", i)
		at := c.settingAt[path]
		return &ConfigError{File: c.Path, JSONPath: path, Line: at.line, Col: at.col, Msg: err.Error() + "; remove it from allow", Err: err}
	}
	return nil
}

// Equal reports whether s and t are the same settings.
func (s Settings) Equal(t Settings) bool {
	a, b := s, t
	pool := func(p *int) int {
		if p == nil {
			return -1
		}
		return *p
	}
	return strings.Join(a.Allow, ",") == strings.Join(b.Allow, ",") &&
		strings.Join(a.Deny, ",") == strings.Join(b.Deny, ",") &&
		a.Timeout == b.Timeout && a.MaxTimeout == b.MaxTimeout &&
		a.Memory == b.Memory && a.Output == b.Output && a.OutputFile == b.OutputFile &&
		a.ConcurrentCalls == b.ConcurrentCalls && a.Sandbox == b.Sandbox &&
		pool(a.Pool) == pool(b.Pool) && a.EngineIdle == b.EngineIdle && a.TreeMemory == b.TreeMemory &&
		a.Tools.Equal(&b.Tools) && a.Audit == b.Audit
}
