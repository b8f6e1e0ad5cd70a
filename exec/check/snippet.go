package check

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	iofs "io/fs"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// reservedPrefix starts every name the rewrite adds to a snippet.
const reservedPrefix = "__mcpfs"

// checker holds the state of one Check.
type checker struct {
	filename string
	src      []byte
	fset     *token.FileSet
	file     *ast.File
	cache    *treeCache
	allow    map[string]bool
	allowed  []string // sorted, for messages
	info     *types.Info
	pkg      *types.Package
	errs     ErrorList
	imports  map[string]bool // import path → used by the snippet

	// unmarshalByRewrite: the json.Unmarshal being checked calls
	// UnmarshalJSON methods through the rewrite.
	unmarshalByRewrite bool

	// refusedErrs counts the errors about refused standard imports (and
	// their members' uses); refusedLines holds those imports' lines.
	refusedErrs  int
	refusedLines map[int]bool
}

func (c *checker) errorf(pos token.Pos, hint, format string, args ...any) {
	c.errs = append(c.errs, &Error{Pos: c.position(pos), Msg: fmt.Sprintf(format, args...), Hint: hint})
}

func (c *checker) position(pos token.Pos) token.Position {
	p := c.fset.Position(pos)
	p.Filename = c.filename
	return p
}

func (c *checker) result() error {
	if len(c.errs) == 0 {
		return nil
	}
	c.errs.sort()
	// One message per position: the first is the cause. A missing import
	// is one problem however often the snippet uses the package: its
	// first use carries the message.
	out := c.errs[:0]
	imports := map[string]bool{}
	for i, e := range c.errs {
		if i > 0 && e.Pos == c.errs[i-1].Pos {
			continue
		}
		if strings.HasPrefix(e.Hint, "add import ") {
			if imports[e.Msg] {
				continue
			}
			imports[e.Msg] = true
		}
		out = append(out, e)
	}
	if len(out) > maxErrors {
		out = out[:maxErrors]
	}
	return out
}

func check(filename string, src []byte, tree iofs.FS, opts Options) (prog *Program, err error) {
	if filename == "" {
		filename = "snippet.go"
	}
	c := &checker{filename: filename, src: src, fset: token.NewFileSet(), allow: map[string]bool{}, imports: map[string]bool{}}
	allow := opts.Allow
	if allow == nil {
		allow = DefaultAllow
	}
	for _, p := range allow {
		c.allow[p] = true
	}
	c.allowed = slices.Sorted(mapKeys(c.allow))

	if len(strings.TrimSpace(string(src))) == 0 {
		c.errorf(token.NoPos, "a snippet is a Go file: `package main`, imports, and func main() { ... }", "the snippet is empty")
		c.errs[0].Pos = token.Position{Filename: filename, Line: 1, Column: 1}
		return nil, c.result()
	}
	f, perr := parser.ParseFile(c.fset, filename, src, parser.ParseComments|parser.SkipObjectResolution)
	if perr != nil {
		var list scanner.ErrorList
		if errors.As(perr, &list) {
			for _, e := range list {
				hint := ""
				switch {
				case strings.Contains(e.Msg, "expected 'package'"):
					hint = "a snippet starts with `package main`"
				case strings.Contains(e.Msg, "expected at most 2 expressions"):
					hint = "range gives at most two values: for key, value := range m (for i, v := range s)"
				}
				p := e.Pos
				if at, h, ok := callStmtFix(f, c.fset, src, e); ok {
					p, hint = at, h
				}
				if hint == "" {
					hint = syntaxHint(src, e)
				}
				p.Filename = filename
				c.errs = append(c.errs, &Error{Pos: p, Msg: "syntax error: " + e.Msg, Hint: hint})
			}
			return nil, c.result()
		}
		return nil, fmt.Errorf("parse %s: %w", filename, perr)
	}
	c.file = f
	if f.Name.Name != "main" {
		c.errorf(f.Name.Pos(), "a snippet is a program: write `package main` and put the code in func main()", "package %s: a snippet must be package main", f.Name.Name)
	}

	universe.mu.Lock()
	defer universe.mu.Unlock()
	if _, err := loadStd(); err != nil {
		return nil, err
	}
	c.cache = cacheFor(tree)

	c.checkImports()
	c.checkNames()
	if len(c.errs) > 0 {
		if len(c.errs) == c.refusedErrs {
			c.typeCheckPastRefused()
		}
		return nil, c.result()
	}
	c.typeCheck()
	// The checks below run over what type-checked too, so that one pass
	// reports every problem of the snippet.
	c.checkMain()
	c.checkUses()
	c.checkOSValues()
	c.checkOSAssertions()
	c.checkErrorValues()
	c.checkErrorsAsTargets()
	c.checkShapeTwins()
	c.checkTemplates()
	c.checkFmtGenericBoxed()
	c.checkJSON()
	c.checkVet()
	if len(c.errs) > 0 {
		return nil, c.result()
	}
	out := c.rewrite()
	if len(c.errs) > 0 {
		return nil, c.result()
	}
	prog = &Program{Source: out}
	trees := map[string]bool{}
	for p := range c.imports {
		prog.Imports = append(prog.Imports, p)
		if strings.HasPrefix(p, treePrefix) && p != shimPath {
			c.cache.closure(p, trees)
		}
	}
	sort.Strings(prog.Imports)
	for p := range trees {
		prog.TreePackages = append(prog.TreePackages, p)
	}
	sort.Strings(prog.TreePackages)
	files, errs := c.cache.rewriteSkills(prog.TreePackages)
	if len(errs) > 0 {
		c.errs = append(c.errs, errs...)
		return nil, c.result()
	}
	prog.Files = files
	return prog, nil
}

// checkImports refuses imports outside the tree and the allowlist, and
// reports tree packages that do not exist or do not type-check.
func (c *checker) checkImports() {
	for _, im := range c.file.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			continue // the parser reported it
		}
		c.imports[p] = true
		switch {
		case strings.HasPrefix(p, treePrefix):
			tp := c.cache.load(p, nil)
			if c.checkTreeImports(im, p) || tp.err == nil {
				continue
			}
			if errors.Is(tp.err, errNotFound) {
				c.errorf(im.Path.Pos(), c.packageHint(strings.TrimPrefix(p, treePrefix)), "package %s does not exist in the tree", p)
			} else {
				c.errorf(im.Path.Pos(), "", "%v", tp.err)
			}
		case p == "os":
			// os.Stdout and os.Stderr only (check_os.go).
			n := len(c.errs)
			c.checkOSImport(im)
			c.refusedErrs += len(c.errs) - n
		case p == "C":
			c.errorf(im.Path.Pos(), "", "cgo is not available in snippets")
		case c.allow[p]:
		default:
			first := strings.Split(p, "/")[0]
			if h, ok := insteadOf[p]; ok && strings.Contains(first, ".") {
				c.errorf(im.Path.Pos(), h, "import %q is not allowed in snippets", p)
				continue
			}
			if strings.Contains(first, ".") {
				c.errorf(im.Path.Pos(), "snippets import only the tree's packages (mcpfs/servers/<server>, mcpfs/skills/<skill>, mcpfs/mcp) and the standard packages: "+strings.Join(c.allowed, ", "),
					"import %q is not allowed in snippets", p)
				continue
			}
			n := len(c.errs)
			c.errorf(im.Path.Pos(), c.importHint(p), "import %q is not allowed in snippets", p)
			c.refusedUses(im, p)
			c.refusedErrs += len(c.errs) - n
			if c.refusedLines == nil {
				c.refusedLines = map[int]bool{}
			}
			c.refusedLines[c.position(im.Pos()).Line] = true
		}
	}
}

// checkTreeImports applies the allowlist to the packages that a skill
// (written like a snippet) imports, directly or through other skills. It
// reports whether it found a refused import.
func (c *checker) checkTreeImports(im *ast.ImportSpec, p string) bool {
	refused := false
	need := map[string]bool{}
	c.cache.closure(p, need)
	for _, dep := range slices.Sorted(mapKeys(need)) {
		if !strings.HasPrefix(dep, treePrefix+"skills/") {
			continue
		}
		tp := c.cache.pkgs[dep]
		if tp == nil {
			continue
		}
		for _, s := range tp.std {
			if !c.allow[s] {
				refused = true
				c.errorf(im.Path.Pos(), "allowed: "+strings.Join(c.allowed, ", "),
					"package %s imports %q (at %s), which is not allowed in snippets", dep, s, tp.stdPos[s])
			}
		}
	}
	return refused
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// treePackages returns the import paths of the tree's packages: mcpfs/mcp,
// mcpfs/servers/*, mcpfs/skills/*.
func (c *checker) treePackages() []string {
	var out []string
	if c.cache.tree == nil {
		return nil
	}
	if _, err := iofs.Stat(c.cache.tree, "mcp"); err == nil {
		out = append(out, treePrefix+"mcp")
	}
	for _, top := range []string{"servers", "skills"} {
		entries, _ := iofs.ReadDir(c.cache.tree, top)
		for _, e := range entries {
			if e.IsDir() {
				out = append(out, treePrefix+top+"/"+e.Name())
			}
		}
	}
	return out
}

// packageHint lists the tree packages closest to dir.
func (c *checker) packageHint(dir string) string {
	pkgs := c.treePackages()
	if len(pkgs) == 0 {
		return "the tree has no packages: run `ls servers/` to see the servers"
	}
	pkgs = closest(treePrefix+dir, pkgs)
	return "available: " + strings.Join(pkgs, ", ")
}

// checkNames refuses top-level and local names that could clash with the
// names the rewrite adds.
func (c *checker) checkNames() {
	ast.Inspect(c.file, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && strings.HasPrefix(id.Name, reservedPrefix) {
			c.errorf(id.Pos(), "rename it", "the name %s is reserved (names starting with %s are added by mcpfs)", id.Name, reservedPrefix)
		}
		return true
	})
}

// checkMain requires func main().
func (c *checker) checkMain() {
	obj := c.pkg.Scope().Lookup("main")
	fn, ok := obj.(*types.Func)
	if !ok {
		pos := c.file.Name.End()
		if obj != nil {
			pos = obj.Pos()
		}
		c.errorf(pos, "add func main() { ... }: the snippet runs main and prints what it prints", "function main is undeclared in the main package")
		return
	}
	if sig := fn.Type().(*types.Signature); sig.Params().Len() != 0 || sig.Results().Len() != 0 || sig.TypeParams().Len() != 0 {
		c.errorf(fn.Pos(), "write func main() with no arguments and no results", "func main must have no arguments and no return values")
	}
}

// checkUses refuses functions of allowed packages that read files.
func (c *checker) checkUses() {
	for id, obj := range c.info.Uses {
		fn, ok := obj.(*types.Func)
		if !ok || fn.Pkg() == nil {
			continue
		}
		if hint, bad := refusedFuncs[fn.FullName()]; bad {
			c.errorf(id.Pos(), hint, "%s is not allowed in snippets: they cannot read files", fn.FullName())
		}
	}
}

// closest sorts names by how near they are to want (closest first),
// keeping at most 12: containing or contained in it, sharing its words
// (camel-case; its first word, the verb, counts more; an acronym such as
// PR matches Pull Request), then edit distance.
func closest(want string, names []string) []string {
	return closestBy(want, names, nil)
}

// closestBy is closest with related(name), more words of each name (its
// arguments' fields and constants): sharing one of them also counts.
func closestBy(want string, names []string, related func(string) []string) []string {
	type scored struct {
		name string
		d    int
	}
	lw := strings.ToLower(want)
	ww := camelWords(want)
	s := make([]scored, len(names))
	for i, n := range names {
		ln := strings.ToLower(n)
		d := distance(lw, ln)
		if lw != "" && (strings.Contains(ln, lw) || strings.Contains(lw, ln)) {
			d -= 100
		}
		nw := camelWords(n)
		for j, w := range ww {
			switch {
			case slices.ContainsFunc(nw, func(x string) bool { return sameWord(w, x) }):
				d -= 40
				if j == 0 && len(nw) > 0 && sameWord(w, nw[0]) {
					d -= 20 // the same verb
				}
			case acronymOf(w, nw):
				d -= 40
			case related != nil && slices.ContainsFunc(related(n), func(x string) bool { return sameWord(w, x) }):
				d -= 15
			}
		}
		s[i] = scored{n, d}
	}
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].d != s[j].d {
			return s[i].d < s[j].d
		}
		return s[i].name < s[j].name
	})
	out := make([]string, 0, min(len(s), 12))
	for i := 0; i < len(s) && i < 12; i++ {
		out = append(out, s[i].name)
	}
	if len(s) > 12 {
		out = append(out, fmt.Sprintf("... (%d more)", len(s)-12))
	}
	return out
}

// alike reports whether name is like want: one contains the other, they
// share a word or an acronym, or few letters differ.
func alike(want, name string) bool {
	lw, ln := strings.ToLower(want), strings.ToLower(name)
	if strings.Contains(ln, lw) || strings.Contains(lw, ln) {
		return true
	}
	if distance(strings.ReplaceAll(lw, "_", ""), ln) <= max(2, len(lw)/3) {
		return true
	}
	nw := camelWords(name)
	for _, w := range camelWords(want) {
		if slices.ContainsFunc(nw, func(x string) bool { return sameWord(w, x) }) || acronymOf(w, nw) {
			return true
		}
	}
	return false
}

// camelWords splits an identifier into its lower-case words: ListFiles,
// list_files → list, files; PR stays one word.
func camelWords(s string) []string {
	var words []string
	var cur []rune
	rs := []rune(s)
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = nil
		}
	}
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == ' ' || r == '.':
			flush()
			continue
		case unicode.IsUpper(r) && len(cur) > 0:
			prevLower := unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || nextLower && unicode.IsUpper(rs[i-1]) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// synonyms are words models use for one another in tool names.
var synonyms = [][]string{
	{"info", "stat", "describe", "details", "metadata"},
	{"get", "read", "fetch", "load", "retrieve", "open", "show", "view"},
	{"save", "write", "store", "put"},
	{"remove", "delete", "rm", "destroy", "drop"},
	{"add", "create", "new", "insert", "make"},
	{"find", "search", "query", "lookup", "grep"},
	{"list", "ls", "enumerate"},
	{"update", "edit", "modify", "change", "patch"},
	{"strip", "trim"},
}

// sameWord reports whether a and b are one word: equal, synonyms, or
// sharing their first 4 letters or more (file/files, close/closed,
// status/state).
func sameWord(a, b string) bool {
	if a == b {
		return true
	}
	for _, set := range synonyms {
		if slices.Contains(set, a) && slices.Contains(set, b) {
			return true
		}
	}
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n >= 4
}

// acronymOf reports whether w (pr) is the initials of consecutive words
// of ws (pull, request).
func acronymOf(w string, ws []string) bool {
	if len(w) < 2 || len(w) > len(ws) {
		return false
	}
	for i := 0; i+len(w) <= len(ws); i++ {
		ok := true
		for j := 0; j < len(w); j++ {
			if ws[i+j][0] != w[j] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// distance is the Levenshtein distance of a and b.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// typeCheckPastRefused type-checks a snippet whose only problems are
// refused standard imports, so that one pass also reports its type
// errors; what the refused imports cause (the import itself, an unused
// import once its uses are refused) is said already and left out.
func (c *checker) typeCheckPastRefused() {
	before := len(c.errs)
	c.typeCheck()
	kept := c.errs[:before]
	for _, e := range c.errs[before:] {
		if c.refusedLines[e.Pos.Line] {
			continue
		}
		kept = append(kept, e)
	}
	c.errs = kept
}
