package fuse

import (
	"context"
	"strings"
	"syscall"
	"time"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	gofuse "github.com/hanwen/go-fuse/v2/fuse"
)

// SearchDir is the folder of the mount where reading search/<words>
// returns the tools and skills that best match the words: the search of
// agents that only read files.
const SearchDir = "search"

// Searcher ranks the tools and skills of the current tree for a query
// and returns what search/<query> shows. It must not wait on a server.
type Searcher func(query string) []byte

// searchReadme is search/README.md.
const searchReadme = `# search/

Read search/<what you need> to find tools and skills for it, best first,
one line each: the Go function, its summary and its file. Words may be
joined by spaces, "-", "_" or "+":

    cat "search/save text to a file"
    cat search/list-open-pull-requests

Nothing here can be written.
`

// searchDirNode is search/: any name in it is a query.
type searchDirNode struct {
	fusefs.Inode
	m *Mounted
}

var (
	_ = (fusefs.NodeLookuper)((*searchDirNode)(nil))
	_ = (fusefs.NodeReaddirer)((*searchDirNode)(nil))
	_ = (fusefs.NodeGetattrer)((*searchDirNode)(nil))
	_ = (fusefs.NodeAccesser)((*searchDirNode)(nil))
)

func (m *Mounted) lookupSearchDir(ctx context.Context, parent *fusefs.Inode, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	d := &searchDirNode{m: m}
	ino := d.fillAttr(&out.Attr)
	return parent.NewInode(ctx, d, fusefs.StableAttr{Mode: syscall.S_IFDIR, Ino: ino}), 0
}

func (d *searchDirNode) fillAttr(a *gofuse.Attr) uint64 {
	ino, mtime := d.m.ids.dir(SearchDir, time.Time{})
	a.Ino = ino
	a.Mode = syscall.S_IFDIR | 0o555
	a.Nlink = 1
	setTimes(a, mtime)
	setOwner(a)
	a.Blksize = 4096
	return ino
}

func (d *searchDirNode) Getattr(ctx context.Context, f fusefs.FileHandle, out *gofuse.AttrOut) syscall.Errno {
	d.fillAttr(&out.Attr)
	return 0
}

// Readdir lists only README.md: every other name is a query.
func (d *searchDirNode) Readdir(ctx context.Context) (fusefs.DirStream, syscall.Errno) {
	return fusefs.NewListDirStream([]gofuse.DirEntry{{Name: "README.md", Mode: syscall.S_IFREG}}), 0
}

// Lookup answers the query name with a file of the ranked hits, made now
// from the current tree. The kernel may not cache the entry, nor a
// failed lookup: every read of a name asks again.
func (d *searchDirNode) Lookup(ctx context.Context, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	var data []byte
	if name == "README.md" {
		data = []byte(searchReadme)
	} else {
		query := strings.NewReplacer("-", " ", "_", " ", "+", " ").Replace(name)
		data = d.m.search(query)
	}
	p := SearchDir + "/" + name
	f := &fileNode{m: d.m, path: p, data: data, size: len(data), sum: d.m.ids.sum(data)}
	_, f.mtime = d.m.ids.file(p, f.sum, time.Time{})
	ino := f.fillAttr(&out.Attr)
	out.SetEntryTimeout(uncached)
	out.SetAttrTimeout(uncached)
	return d.NewInode(ctx, f, fusefs.StableAttr{Mode: syscall.S_IFREG, Ino: ino}), 0
}

func (d *searchDirNode) Access(ctx context.Context, mask uint32) syscall.Errno {
	if mask&2 != 0 {
		return syscall.EROFS
	}
	return 0
}
