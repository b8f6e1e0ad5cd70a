package fuse

import (
	"context"
	"os"

	mcpfs "github.com/mcpfs/mcpfs/fs"
	"syscall"
	"time"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	gofuse "github.com/hanwen/go-fuse/v2/fuse"
)

// dirNode is a directory. It holds only its path: every request reads the
// mount's current Tree.
type dirNode struct {
	fusefs.Inode
	m    *Mounted
	path string // io/fs path: "." for the root
	ro   bool   // served by the read-only connection of servers/
}

// fileNode is a file with the bytes it was looked up with. Its content
// never changes; a changed file is a new fileNode with a new inode. A
// file of the tree keeps the tree it was looked up in, not its bytes: the
// tree bounds what it keeps of them (fs.GenCache) and makes the same bytes
// again when asked, so a mount holds no copy of every file it served.
type fileNode struct {
	fusefs.Inode
	m     *Mounted
	path  string
	tree  *mcpfs.Tree // the tree the bytes come from; nil: data
	data  []byte      // the bytes of a file made by the mount (search/)
	size  int
	sum   uint64
	mtime time.Time
	ro    bool // served by the read-only connection of servers/
}

// bytes returns the file's contents.
func (f *fileNode) bytes() ([]byte, syscall.Errno) {
	if f.tree == nil {
		return f.data, 0
	}
	b, err := f.tree.Bytes(f.path)
	if err != nil {
		return nil, f.m.errno("read", f.path, err)
	}
	if len(b) != f.size {
		// The generator is pure: this is a bug, not a race.
		f.m.log.Error("a tree file changed size while served", "path", f.path, "size", f.size, "now", len(b))
		return nil, syscall.EIO
	}
	return b, 0
}

var (
	_ = (fusefs.NodeLookuper)((*dirNode)(nil))
	_ = (fusefs.NodeReaddirer)((*dirNode)(nil))
	_ = (fusefs.NodeGetattrer)((*dirNode)(nil))
	_ = (fusefs.NodeAccesser)((*dirNode)(nil))
	_ = (fusefs.NodeStatfser)((*dirNode)(nil))

	_ = (fusefs.NodeGetattrer)((*fileNode)(nil))
	_ = (fusefs.NodeOpener)((*fileNode)(nil))
	_ = (fusefs.NodeReader)((*fileNode)(nil))
	_ = (fusefs.NodeAccesser)((*fileNode)(nil))
)

func childPath(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// Lookup finds name in the current tree.
func (d *dirNode) Lookup(ctx context.Context, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	if d.writableSkills() {
		return d.m.lookupFolder(ctx, &d.Inode, name, out)
	}
	if d.path == "." && name == mcpfs.RunDir && d.m.run != nil {
		return d.m.lookupRunDir(ctx, &d.Inode, out) // run/ is live: run_nodes.go
	}
	if d.path == "." && name == SearchDir && d.m.search != nil {
		return d.m.lookupSearchDir(ctx, &d.Inode, out) // search_nodes.go
	}
	if d.path == "." && name == AuditDir && d.m.auditFile != "" {
		return d.m.lookupAuditDir(ctx, &d.Inode, out) // audit_nodes.go
	}
	p := childPath(d.path, name)
	child, errno := d.m.newNode(p)
	if errno != 0 {
		return nil, errno
	}
	switch c := child.(type) {
	case *dirNode:
		c.ro = d.ro
		ino := c.fillAttr(&out.Attr)
		return d.NewInode(ctx, c, fusefs.StableAttr{Mode: syscall.S_IFDIR, Ino: ino}), 0
	case *fileNode:
		c.ro = d.ro
		ino := c.fillAttr(&out.Attr)
		return d.NewInode(ctx, c, fusefs.StableAttr{Mode: syscall.S_IFREG, Ino: ino}), 0
	}
	return nil, syscall.EIO
}

// newNode makes the node for the path p of the current tree.
func (m *Mounted) newNode(p string) (fusefs.InodeEmbedder, syscall.Errno) {
	t := m.tree.Load()
	info, err := t.Stat(p)
	if err != nil {
		return nil, m.errno("lookup", p, err)
	}
	if info.IsDir() {
		m.ids.dir(p, info.ModTime())
		return &dirNode{m: m, path: p}, 0
	}
	data, err := t.Bytes(p)
	if err != nil {
		return nil, m.errno("lookup", p, err)
	}
	sum := m.ids.sum(data)
	_, mtime := m.ids.file(p, sum, info.ModTime())
	return &fileNode{m: m, path: p, tree: t, size: len(data), sum: sum, mtime: mtime}, 0
}

// Readdir lists the directory in the current tree.
func (d *dirNode) Readdir(ctx context.Context) (fusefs.DirStream, syscall.Errno) {
	if d.writableSkills() {
		return fusefs.NewListDirStream(d.m.readdirSkills()), 0
	}
	t := d.m.tree.Load()
	entries, err := t.ReadDir(d.path)
	if err != nil {
		return nil, d.m.errno("readdir", d.path, err)
	}
	list := make([]gofuse.DirEntry, 0, len(entries))
	for _, e := range entries {
		p := childPath(d.path, e.Name())
		var mtime time.Time
		if info, err := e.Info(); err == nil {
			mtime = info.ModTime()
		}
		de := gofuse.DirEntry{Name: e.Name(), Mode: syscall.S_IFREG}
		if e.IsDir() {
			de.Mode = syscall.S_IFDIR
			de.Ino, _ = d.m.ids.dir(p, mtime)
		} else if data, err := t.Bytes(p); err == nil {
			// The number Lookup will give it, so that readdir's d_ino
			// matches stat's st_ino.
			de.Ino, _ = d.m.ids.file(p, d.m.ids.sum(data), mtime)
		}
		list = append(list, de)
	}
	if d.path == "." && d.m.search != nil {
		ino, _ := d.m.ids.dir(SearchDir, time.Time{})
		list = append(list, gofuse.DirEntry{Name: SearchDir, Mode: syscall.S_IFDIR, Ino: ino})
	}
	if d.path == "." && d.m.auditFile != "" {
		list = append(list, d.m.auditEntry())
	}
	return fusefs.NewListDirStream(list), 0
}

// Getattr reports the directory's attributes.
func (d *dirNode) Getattr(ctx context.Context, f fusefs.FileHandle, out *gofuse.AttrOut) syscall.Errno {
	d.fillAttr(&out.Attr)
	return 0
}

// fillAttr fills a directory's attributes; Lookup and Getattr share it so
// that they always agree.
func (d *dirNode) fillAttr(a *gofuse.Attr) uint64 {
	ino, mtime := d.m.ids.dir(d.path, time.Time{})
	a.Ino = ino
	a.Mode = syscall.S_IFDIR | 0o555
	if d.writableSkills() {
		a.Mode = syscall.S_IFDIR | 0o755
	}
	// 1 tells find(1) and friends that the link count says nothing about
	// subdirectories, as btrfs does.
	a.Nlink = 1
	a.Size = 0
	setTimes(a, mtime)
	setOwner(a)
	a.Blksize = 4096
	a.Blocks = 0
	return ino
}

// writableSkills reports whether d is skills/ of a mount with a skill
// store.
func (d *dirNode) writableSkills() bool {
	return d.m.skills != nil && d.path == mcpfs.SkillsDir
}

// Access refuses write access: the tree is read only, even for root,
// except skills/ when skills are writable.
func (d *dirNode) Access(ctx context.Context, mask uint32) syscall.Errno {
	if mask&2 != 0 && !d.writableSkills() { // W_OK
		return syscall.EROFS
	}
	return 0
}

// Statfs describes the file system to df(1) and statfs(2).
func (d *dirNode) Statfs(ctx context.Context, out *gofuse.StatfsOut) syscall.Errno {
	out.Bsize = 4096
	out.Frsize = 4096
	out.NameLen = 255
	return 0
}

// Getattr reports the file's attributes.
func (f *fileNode) Getattr(ctx context.Context, fh fusefs.FileHandle, out *gofuse.AttrOut) syscall.Errno {
	f.fillAttr(&out.Attr)
	return 0
}

func (f *fileNode) fillAttr(a *gofuse.Attr) uint64 {
	ino := f.StableAttr().Ino // the node is live: keep its own number
	if ino == 0 {
		ino, _ = f.m.ids.file(f.path, f.sum, f.mtime)
	}
	a.Ino = ino
	a.Mode = syscall.S_IFREG | 0o444
	a.Nlink = 1
	a.Size = uint64(f.size)
	setTimes(a, f.mtime)
	setOwner(a)
	a.Blksize = 4096
	a.Blocks = (a.Size + 4095) / 4096 * 8
	return ino
}

// Open opens the file for reading. Opening for writing or truncating fails
// with EROFS, for root too. The kernel keeps cached pages across opens:
// a file inode never changes content. On the read-only connection of
// servers/, ENOSYS tells the kernel to stop sending OPEN (and RELEASE)
// for that connection: its files then open with no request at all.
func (f *fileNode) Open(ctx context.Context, flags uint32) (fusefs.FileHandle, uint32, syscall.Errno) {
	if flags&syscall.O_ACCMODE != syscall.O_RDONLY || flags&(syscall.O_TRUNC|syscall.O_APPEND|syscall.O_CREAT) != 0 {
		return nil, 0, syscall.EROFS
	}
	if f.ro {
		return nil, 0, syscall.ENOSYS
	}
	return nil, gofuse.FOPEN_KEEP_CACHE | gofuse.FOPEN_NOFLUSH, 0
}

// Read serves the bytes the file was looked up with.
func (f *fileNode) Read(ctx context.Context, fh fusefs.FileHandle, dest []byte, off int64) (gofuse.ReadResult, syscall.Errno) {
	if off < 0 {
		return nil, syscall.EINVAL
	}
	if off >= int64(f.size) {
		return gofuse.ReadResultData(nil), 0
	}
	data, errno := f.bytes()
	if errno != 0 {
		return nil, errno
	}
	end := min(off+int64(len(dest)), int64(len(data)))
	return gofuse.ReadResultData(data[off:end]), 0
}

// Access refuses write and execute access.
func (f *fileNode) Access(ctx context.Context, mask uint32) syscall.Errno {
	switch {
	case mask&2 != 0: // W_OK
		return syscall.EROFS
	case mask&1 != 0: // X_OK
		return syscall.EACCES
	}
	return 0
}

func setTimes(a *gofuse.Attr, t time.Time) {
	a.SetTimes(&t, &t, &t)
}

var uid, gid = uint32(os.Geteuid()), uint32(os.Getegid())

func setOwner(a *gofuse.Attr) {
	a.Owner = gofuse.Owner{Uid: uid, Gid: gid}
}

var _ = (fusefs.NodeFlusher)((*fileNode)(nil))

// Flush has nothing to do for a read-only file. Open sets FOPEN_NOFLUSH
// so that the kernel does not send FLUSH for these files at all; on the
// main connection it must not answer ENOSYS, which would stop FLUSH for
// the whole connection, and with it the save on close of skill files.
// The read-only connection of servers/ skips OPEN, so no open flags reach
// the kernel there: ENOSYS stops FLUSH for that connection.
func (f *fileNode) Flush(ctx context.Context, fh fusefs.FileHandle) syscall.Errno {
	if f.ro {
		return syscall.ENOSYS
	}
	return 0
}
