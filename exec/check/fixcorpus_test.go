package check

import (
	"context"
	"encoding/json"
	"errors"
	iofs "io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/builtin"
	"github.com/mcpfs/mcpfs/discovery/naming"
	"github.com/mcpfs/mcpfs/fs"
)

// fixTree is the tree the fix corpus is checked against: the built-in
// docstore, live, and the captured tools/list of three real servers
// (testdata/fixes/servers/*.json: filesystem, memory, github, everything).
func fixTree(tb testing.TB) iofs.FS {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sup := discovery.Start(ctx, &discovery.Config{Servers: []discovery.ServerConfig{
		{Name: "docstore", Key: "docstore", Transport: "builtin", Builtin: "docstore"},
	}}, discovery.Options{Builtins: map[string]func() *server.MCPServer{"docstore": builtin.NewDocstore}})
	defer sup.Close()
	if err := sup.Settle(ctx); err != nil {
		tb.Fatalf("start the docstore: %v", err)
	}
	cat := *sup.Catalog()
	cat.Servers = append([]discovery.ServerSnapshot(nil), cat.Servers...)
	files, err := filepath.Glob("testdata/fixes/servers/*.json")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no listings under testdata/fixes/servers: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var l struct {
			ServerInfo struct{ Name, Title, Version string } `json:"serverInfo"`
			Tools      []json.RawMessage                     `json:"tools"`
		}
		if err := json.Unmarshal(data, &l); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		key := strings.TrimSuffix(filepath.Base(f), ".json")
		s := discovery.ServerSnapshot{
			Name: naming.Package(key), Key: key, Transport: "stdio", State: discovery.StateReady,
			ServerName: l.ServerInfo.Name, ServerTitle: l.ServerInfo.Title, ServerVersion: l.ServerInfo.Version,
		}
		for _, raw := range l.Tools {
			var t struct{ Name string }
			if err := json.Unmarshal(raw, &t); err != nil {
				tb.Fatalf("%s: %v", f, err)
			}
			s.Tools = append(s.Tools, discovery.Tool{Name: t.Name, Raw: raw})
		}
		cat.Servers = append(cat.Servers, s)
	}
	sort.Slice(cat.Servers, func(i, j int) bool { return cat.Servers[i].Name < cat.Servers[j].Name })
	return fs.New(&cat, fs.Options{})
}

// fixCase is one program of the fix corpus (testdata/fixes/*.txtar): a
// broken snippet as a model writes it, and for each of its problems the
// line an error must point at and the fixes one of which it must name.
type fixCase struct {
	file, name, desc string
	src              []byte
	wants            []fixWant
}

type fixWant struct {
	line int
	alts []string
}

func loadFixCorpus(tb testing.TB) []fixCase { return loadFixSets(tb, "testdata/fixes") }

// loadFixSets loads the fix cases of every dir/*.txtar.
func loadFixSets(tb testing.TB, dir string) []fixCase {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no fix cases under %s: %v", dir, err)
	}
	var cases []fixCase
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		fixes := map[string][]byte{}
		for _, f := range ar.Files {
			if name, ok := strings.CutSuffix(f.Name, ".fix"); ok {
				fixes[name] = f.Data
			}
		}
		for _, f := range ar.Files {
			name, ok := strings.CutSuffix(f.Name, ".go")
			if !ok {
				continue
			}
			c := fixCase{file: filepath.Base(file), name: name, src: f.Data}
			for _, l := range strings.Split(string(fixes[name]), "\n") {
				l = strings.TrimSpace(l)
				if d, ok := strings.CutPrefix(l, "#"); ok {
					c.desc = strings.TrimSpace(d)
					continue
				}
				if l == "" {
					continue
				}
				at, alts, ok := strings.Cut(l, ":")
				line, err := strconv.Atoi(at)
				if !ok || err != nil {
					tb.Fatalf("%s: %s.fix: bad line %q, want \"LINE: FIX | FIX\"", file, name, l)
				}
				w := fixWant{line: line}
				for _, a := range strings.Split(alts, " | ") {
					w.alts = append(w.alts, strings.TrimSpace(a))
				}
				c.wants = append(c.wants, w)
			}
			if len(c.wants) == 0 {
				tb.Fatalf("%s: %s has no .fix", file, name)
			}
			cases = append(cases, c)
		}
	}
	return cases
}

// fixPointed reports whether one of errs is at w's line and names one of
// its fixes where a reader sees it (see namesFix).
func fixPointed(errs ErrorList, w fixWant) bool {
	for _, e := range errs {
		if e.Pos.Line == w.line && namesFix(e.Msg+"\n"+e.Hint, w.alts) {
			return true
		}
	}
	return false
}

// listLine is a hint line that lists candidates: "functions of X: a, b, c".
var listLine = regexp.MustCompile(`^[^:]{1,80}: (.*)$`)

// namesFix reports whether text names one of alts: in a sentence, in a
// short list (8 entries at most, read whole), or among the first three
// entries of a longer list of candidates (a list of 30 names that holds
// the fix somewhere does not lead to it).
func namesFix(text string, alts []string) bool {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if m := listLine.FindStringSubmatch(line); m != nil {
			if items := splitList(m[1]); len(items) > 8 {
				for _, it := range items[:3] {
					if containsFix(it, alts) {
						return true
					}
				}
				line = line[:len(line)-len(m[1])]
			}
		}
		if containsFix(line, alts) {
			return true
		}
	}
	return false
}

// splitList splits a list at the commas outside brackets.
func splitList(s string) []string {
	var items []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '{', '(', '[':
			depth++
		case '}', ')', ']':
			depth--
		case ',':
			if depth == 0 {
				items = append(items, s[start:i])
				start = i + 1
			}
		}
	}
	return append(items, s[start:])
}

// containsFix reports whether s contains one of alts, as a whole word
// where the alternative starts or ends with a letter, digit or _.
func containsFix(s string, alts []string) bool {
	for _, a := range alts {
		pat := regexp.QuoteMeta(a)
		if isWord(a[0]) {
			pat = `(^|[^A-Za-z0-9_])` + pat
		}
		if isWord(a[len(a)-1]) {
			pat += `($|[^A-Za-z0-9_])`
		}
		if regexp.MustCompile(pat).MatchString(s) {
			return true
		}
	}
	return false
}

func isWord(b byte) bool {
	return b == '_' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

// fixShareMin is the share of expected problems whose message points at
// the line and names the fix that the corpus must keep (issue #13: at
// least 95%).
const fixShareMin = 95.0

// TestFixCorpus checks every snippet of testdata/fixes: the check must
// refuse it, and for each problem listed an error must point at its line
// and name the fix (the identifier, import or expression to write), in
// the message or its hint, not deep in a list of candidates. It logs the
// share (docs/BENCHMARKS.md reports it) and fails on any miss.
// MCPFS_FIX_SHOW=1 logs every program's messages, to read them.
func TestFixCorpus(t *testing.T) {
	cases := loadFixCorpus(t)
	tree := fixTree(t)
	sc := scoreFixCorpus(cases, tree, func(c fixCase, err error, missed []fixWant) {
		var el ErrorList
		switch {
		case err == nil:
			t.Errorf("%s/%s (%s): the check passed it, want it refused", c.file, c.name, c.desc)
		case !errors.As(err, &el):
			t.Errorf("%s/%s: check failed itself: %v", c.file, c.name, err)
		}
		if os.Getenv("MCPFS_FIX_SHOW") != "" {
			t.Logf("%s/%s:\n%v", c.file, c.name, err)
		}
		for _, w := range missed {
			t.Errorf("%s/%s (%s): no error at line %d naming %s; got:\n%v", c.file, c.name, c.desc, w.line, strings.Join(w.alts, " or "), err)
		}
	})
	t.Logf("fix corpus: %d programs, %d problems: %d point at the line and name the fix (%.1f%%); %d programs fully (%.1f%%)",
		sc.programs, sc.wants, sc.met, sc.share(), sc.programsMet, 100*float64(sc.programsMet)/float64(sc.programs))
	if sc.programs < 60 {
		t.Errorf("the fix corpus has %d programs, want at least 60", sc.programs)
	}
	if sc.share() < fixShareMin {
		t.Errorf("share %.1f%%, want at least %.1f%%", sc.share(), fixShareMin)
	}
}

// TestHeldOutFixes scores the held-out sets (testdata/heldout/*.txtar):
// snippets written before reading the messages, never used to improve
// them. Each set's share is logged, for docs/BENCHMARKS.md, and not
// asserted: the sets measure how the messages do on mistakes they were
// not tuned for. It fails only when a snippet does not load.
// MCPFS_FIX_SHOW=1 logs every message and every miss.
func TestHeldOutFixes(t *testing.T) {
	cases := loadFixSets(t, "testdata/heldout")
	tree := fixTree(t)
	bySet := map[string]*fixScore{}
	var sets []string
	show := os.Getenv("MCPFS_FIX_SHOW") != ""
	for _, c := range cases {
		if bySet[c.file] == nil {
			bySet[c.file] = &fixScore{}
			sets = append(sets, c.file)
		}
		sc := scoreFixCorpus([]fixCase{c}, tree, func(c fixCase, err error, missed []fixWant) {
			if show {
				t.Logf("%s/%s:\n%v", c.file, c.name, err)
				for _, w := range missed {
					t.Logf("MISS %s/%s (%s): line %d, %s", c.file, c.name, c.desc, w.line, strings.Join(w.alts, " or "))
				}
			}
		})
		s := bySet[c.file]
		s.programs += sc.programs
		s.programsMet += sc.programsMet
		s.wants += sc.wants
		s.met += sc.met
	}
	for _, name := range sets {
		sc := bySet[name]
		t.Logf("held-out %s: %d programs, %d problems: %d point at the line and name the fix (%.1f%%)",
			name, sc.programs, sc.wants, sc.met, sc.share())
	}
}

// TestHeldOutNowValid: the held-out snippets that are no longer mistakes
// (testdata/nowvalid/*.txtar, moved out of the held-out sets when what
// they were refused for became allowed) pass the check, and their
// rewrite is valid Go.
func TestHeldOutNowValid(t *testing.T) {
	cases := loadFixSets(t, "testdata/nowvalid")
	tree := fixTree(t)
	for _, c := range cases {
		prog, err := Check("snippet.go", c.src, tree, Options{})
		if err != nil {
			t.Errorf("%s/%s (%s): refused:\n%v", c.file, c.name, c.desc, err)
			continue
		}
		if err := typeCheckRewrite(prog.Source, tree); err != nil {
			t.Errorf("%s/%s: the rewrite is not valid Go: %v\n%s", c.file, c.name, err, numbered(prog.Source))
		}
	}
	t.Logf("%d snippets that are no longer mistakes pass the check", len(cases))
}

// fixScore counts a run of the fix corpus.
type fixScore struct {
	programs, programsMet, wants, met int
}

func (s fixScore) share() float64 { return 100 * float64(s.met) / float64(s.wants) }

// scoreFixCorpus checks every case and reports each to seen with the
// check's error and the problems its messages missed.
func scoreFixCorpus(cases []fixCase, tree iofs.FS, seen func(c fixCase, err error, missed []fixWant)) fixScore {
	var sc fixScore
	for _, c := range cases {
		_, err := Check("snippet.go", c.src, tree, Options{})
		var el ErrorList
		errors.As(err, &el)
		var missed []fixWant
		for _, w := range c.wants {
			sc.wants++
			if fixPointed(el, w) {
				sc.met++
			} else {
				missed = append(missed, w)
			}
		}
		sc.programs++
		if len(missed) == 0 && err != nil {
			sc.programsMet++
		}
		if seen != nil {
			seen(c, err, missed)
		}
	}
	return sc
}

// BenchmarkFixCorpus reports the fix corpus's share (problems whose
// message points at the line and names the fix) as a metric, for the
// benchmark report (cmd/mcpfs-bench), with the time to check a program.
func BenchmarkFixCorpus(b *testing.B) {
	cases := loadFixCorpus(b)
	tree := fixTree(b)
	var sc fixScore
	b.ResetTimer()
	for range b.N {
		sc = scoreFixCorpus(cases, tree, nil)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(cases)), "ns/program")
	b.ReportMetric(sc.share(), "fix-%")
	b.ReportMetric(float64(sc.wants), "problems")
	b.ReportMetric(0, "ns/op")
}
