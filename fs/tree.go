package fs

import (
	"errors"
	iofs "io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpfs/mcpfs/discovery/catalog"
	"github.com/mcpfs/mcpfs/discovery/naming"
	"github.com/mcpfs/mcpfs/fs/gen"
)

// Top-level folders of the tree.
const (
	ServersDir = "servers"
	SkillsDir  = "skills"
	RunDir     = "run"
)

// Options configure a Tree. The zero value is ready to use.
type Options struct {
	// ModTime is the modification time reported for every entry.
	// Zero means the time New was called.
	ModTime time.Time
	// Skills are the saved skills shown under skills/<name>/ and listed
	// in README.md (skills.ForTree makes them from a skills.Store). A
	// skill whose name is not a Go package name is left out.
	Skills []Skill
	// Cache holds the generated server packages within its bound; trees
	// given one cache share the bound. Nil: a cache of the tree's own,
	// bounded at DefaultGenerated.
	Cache *GenCache
}

// Skill is a saved skill as the tree shows it: skills/<Name>/<file>.
type Skill struct {
	Name        string
	Description string
	HasRun      bool      // it declares a Run entry point
	Saved       time.Time // the mod time of its files
	Files       map[string][]byte
}

// Tree is the file tree of one catalog snapshot. It implements io/fs.FS,
// ReadDirFS, ReadFileFS and StatFS, and is safe for concurrent use. Server
// packages are generated the first time something looks inside them, and
// kept within the bound of the tree's GenCache (dropped and generated
// again when memory is short).
type Tree struct {
	cat     *catalog.Catalog
	modTime time.Time

	rootOnce sync.Once
	root     *dir // everything but the contents of servers/<s>/

	servers map[string]*lazyServer
	cache   *GenCache
	skills  []Skill // sorted by name

	made  atomic.Int32 // server packages made on a look inside
	ahead sync.Once    // starts readAhead
}

var (
	_ iofs.FS         = (*Tree)(nil)
	_ iofs.ReadDirFS  = (*Tree)(nil)
	_ iofs.ReadFileFS = (*Tree)(nil)
	_ iofs.StatFS     = (*Tree)(nil)
)

// New returns the tree of a catalog snapshot.
func New(cat *catalog.Catalog, opts Options) *Tree {
	if cat == nil {
		cat = &catalog.Catalog{}
	}
	t := &Tree{cat: cat, modTime: opts.ModTime, servers: make(map[string]*lazyServer, len(cat.Servers)), cache: opts.Cache}
	if t.modTime.IsZero() {
		t.modTime = time.Now()
	}
	if t.cache == nil {
		t.cache = NewGenCache(0)
	}
	for _, s := range cat.Servers {
		t.servers[s.Name] = &lazyServer{snap: s, cache: t.cache}
	}
	t.skills = sortedSkills(opts.Skills)
	return t
}

// WithSkills returns a tree of the same catalog and modification time
// with the given skills in place of t's. Server packages already
// generated are shared, not generated again.
func (t *Tree) WithSkills(list []Skill) *Tree {
	return &Tree{cat: t.cat, modTime: t.modTime, servers: t.servers, cache: t.cache, skills: sortedSkills(list)}
}

// Skills returns the skills in the tree, sorted by name.
func (t *Tree) Skills() []Skill { return slices.Clone(t.skills) }

// Skill returns the skill behind skills/<name>/.
func (t *Tree) Skill(name string) (Skill, bool) {
	i, ok := slices.BinarySearchFunc(t.skills, name, func(s Skill, n string) int { return strings.Compare(s.Name, n) })
	if !ok {
		return Skill{}, false
	}
	return t.skills[i], true
}

func sortedSkills(list []Skill) []Skill {
	out := make([]Skill, 0, len(list))
	seen := map[string]bool{}
	for _, s := range list {
		if s.Name == "" || naming.Package(s.Name) != s.Name || seen[s.Name] {
			continue
		}
		seen[s.Name] = true
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Catalog returns the snapshot the tree was built from.
func (t *Tree) Catalog() *catalog.Catalog { return t.cat }

// Open opens the named file or directory.
func (t *Tree) Open(name string) (iofs.File, error) {
	n, err := t.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if n.isDir {
		return &openDir{node: n, entries: n.entries()}, nil
	}
	return &openFile{node: n, r: strings.NewReader(string(n.data))}, nil
}

// ReadFile returns the contents of the named file.
func (t *Tree) ReadFile(name string) ([]byte, error) {
	n, err := t.lookup("readfile", name)
	if err != nil {
		return nil, err
	}
	if n.isDir {
		return nil, &iofs.PathError{Op: "readfile", Path: name, Err: ErrIsDir}
	}
	return slices.Clone(n.data), nil
}

// Bytes returns the contents of the named file without copying them:
// the caller must not modify them. A server package dropped from the
// tree's cache since is generated again, with the same bytes.
func (t *Tree) Bytes(name string) ([]byte, error) {
	n, err := t.lookup("read", name)
	if err != nil {
		return nil, err
	}
	if n.isDir {
		return nil, &iofs.PathError{Op: "read", Path: name, Err: ErrIsDir}
	}
	return n.data, nil
}

// ReadDir lists the named directory, sorted by name.
func (t *Tree) ReadDir(name string) ([]iofs.DirEntry, error) {
	n, err := t.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if !n.isDir {
		return nil, &iofs.PathError{Op: "readdir", Path: name, Err: ErrNotDir}
	}
	return n.entries(), nil
}

// Stat describes the named file or directory.
func (t *Tree) Stat(name string) (iofs.FileInfo, error) {
	n, err := t.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return n.info(), nil
}

// Errors beyond io/fs's own.
var (
	ErrIsDir  = errors.New("is a directory")
	ErrNotDir = errors.New("not a directory")
)

// Server returns the snapshot behind servers/<name>/.
func (t *Tree) Server(name string) (catalog.ServerSnapshot, bool) {
	ls, ok := t.servers[name]
	if !ok {
		return catalog.ServerSnapshot{}, false
	}
	return ls.snap, true
}

func (t *Tree) lookup(op, name string) (*node, error) {
	if !iofs.ValidPath(name) {
		return nil, &iofs.PathError{Op: op, Path: name, Err: iofs.ErrInvalid}
	}
	t.rootOnce.Do(t.buildRoot)
	n := t.root.node
	if name == "." {
		return n, nil
	}
	parts := strings.Split(name, "/")
	for i, p := range parts {
		if !n.isDir {
			return nil, &iofs.PathError{Op: op, Path: name, Err: ErrNotDir}
		}
		child, ok := n.dir.children[p]
		if !ok {
			return nil, &iofs.PathError{Op: op, Path: name, Err: iofs.ErrNotExist}
		}
		if child.lazy != nil && !(op == "stat" && i == len(parts)-1) {
			// servers/<s>: generated on the first look inside. A stat of
			// the folder itself (the kernel's lookup of each entry when
			// servers/ is listed) needs only the placeholder, which
			// reports what the generated folder would.
			child = t.serverNode(child.lazy)
		}
		n = child
	}
	return n, nil
}

// serverNode returns the generated directory of one server.
func (t *Tree) serverNode(ls *lazyServer) *node {
	d, made := ls.get(t.modTime)
	if made && t.made.Add(1) == 2 {
		// Looks inside two servers: a scan (grep -r, find, a walk) is
		// likely to go on to the others.
		t.ahead.Do(func() { go t.readAhead() })
	}
	return d.node
}

// readAhead makes, in the order servers/ lists them, the server packages
// whose tool files the cache's store has, while the cache has room for
// them (GenCache.roomAhead). It never generates: reading a package costs
// a fraction of generating it, and it runs beside the reader, so a scan
// of every server does not wait for each package in turn.
func (t *Tree) readAhead() {
	names := make([]string, 0, len(t.servers))
	for name := range t.servers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !t.cache.roomAhead() {
			return
		}
		t.servers[name].readAhead(t.modTime)
	}
}

// GenCache returns the cache that holds the tree's generated packages.
func (t *Tree) GenCache() *GenCache { return t.cache }

func (t *Tree) buildRoot() {
	root := newDir(".", t.modTime)
	index := make([]gen.SkillEntry, len(t.skills))
	for i, sk := range t.skills {
		index[i] = gen.SkillEntry{Name: sk.Name, Description: sk.Description, HasRun: sk.HasRun}
	}
	for _, f := range gen.Root(t.cat, index...) {
		root.add(f.Path, f.Data, t.modTime)
	}
	servers := root.mkdirAll(ServersDir, t.modTime)
	for _, s := range t.cat.Servers {
		// A placeholder: lookup swaps in the generated directory. The
		// placeholder is what ReadDir of servers/ reports.
		servers.children[s.Name] = &node{name: s.Name, isDir: true, modTime: t.modTime, lazy: t.servers[s.Name]}
	}
	skillsDir := root.mkdirAll(SkillsDir, t.modTime)
	for _, sk := range t.skills {
		mod := sk.Saved
		if mod.IsZero() {
			mod = t.modTime
		}
		d := newDir(sk.Name, mod)
		for name, data := range sk.Files {
			if name != "" && !strings.ContainsAny(name, "/\x00") && name != "." && name != ".." {
				d.children[name] = &node{name: name, data: data, modTime: mod}
			}
		}
		skillsDir.children[sk.Name] = d.node
	}
	root.mkdirAll(RunDir, t.modTime)
	t.root = root
}

// dir is a directory under construction and, once built, read only.
type dir struct {
	node     *node
	children map[string]*node
}

func newDir(name string, mod time.Time) *dir {
	d := &dir{children: map[string]*node{}}
	d.node = &node{name: name, isDir: true, modTime: mod, dir: d}
	return d
}

func (d *dir) mkdirAll(p string, mod time.Time) *dir {
	cur := d
	for _, part := range strings.Split(p, "/") {
		c, ok := cur.children[part]
		if !ok {
			nd := newDir(part, mod)
			cur.children[part] = nd.node
			c = nd.node
		}
		cur = c.dir
	}
	return cur
}

func (d *dir) add(p string, data []byte, mod time.Time) {
	parent := d
	if dirName := path.Dir(p); dirName != "." {
		parent = d.mkdirAll(dirName, mod)
	}
	base := path.Base(p)
	parent.children[base] = &node{name: base, data: data, modTime: mod}
}
