package fuse

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"
	"time"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	gofuse "github.com/hanwen/go-fuse/v2/fuse"
)

// Nodes of audit/, shown when Options.AuditFile is set: audit/calls.jsonl
// is that file, read only, read from disk on every request (direct I/O,
// no cached attributes), so that `tail -f` sees each call as it is
// appended.

// Names of the audit folder and its file.
const (
	AuditDir  = "audit"
	auditName = "calls.jsonl"
)

// auditDirNode is audit/.
type auditDirNode struct {
	fusefs.Inode
	m *Mounted
}

// auditFileNode is audit/calls.jsonl.
type auditFileNode struct {
	fusefs.Inode
	m *Mounted
}

var (
	_ = (fusefs.NodeLookuper)((*auditDirNode)(nil))
	_ = (fusefs.NodeReaddirer)((*auditDirNode)(nil))
	_ = (fusefs.NodeGetattrer)((*auditDirNode)(nil))

	_ = (fusefs.NodeGetattrer)((*auditFileNode)(nil))
	_ = (fusefs.NodeSetattrer)((*auditFileNode)(nil))
	_ = (fusefs.NodeOpener)((*auditFileNode)(nil))
	_ = (fusefs.NodeReader)((*auditFileNode)(nil))
)

func auditIno(m *Mounted, name string) uint64 {
	ino, _ := m.ids.dir("\x00audit/"+name, time.Time{})
	return ino
}

// lookupAuditDir answers the lookup of audit/ in the root.
func (m *Mounted) lookupAuditDir(ctx context.Context, parent *fusefs.Inode, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	ino := m.auditDirAttr(&out.Attr)
	out.SetAttrTimeout(uncached)
	return parent.NewInode(ctx, &auditDirNode{m: m}, fusefs.StableAttr{Mode: syscall.S_IFDIR, Ino: ino}), 0
}

// auditEntry is audit/ as the root lists it.
func (m *Mounted) auditEntry() gofuse.DirEntry {
	return gofuse.DirEntry{Name: AuditDir, Mode: syscall.S_IFDIR, Ino: auditIno(m, "")}
}

func (m *Mounted) auditDirAttr(a *gofuse.Attr) uint64 {
	a.Ino = auditIno(m, "")
	a.Mode = syscall.S_IFDIR | 0o555
	a.Nlink = 2
	var mtime time.Time
	if st, err := os.Stat(m.auditFile); err == nil {
		mtime = st.ModTime()
	}
	setTimes(a, mtime)
	setOwner(a)
	a.Blksize = 4096
	return a.Ino
}

// auditFileAttr fills the attributes of calls.jsonl from the file on
// disk: empty until the first call.
func (m *Mounted) auditFileAttr(a *gofuse.Attr) {
	a.Ino = auditIno(m, auditName)
	a.Mode = syscall.S_IFREG | 0o444
	a.Nlink = 1
	var mtime time.Time
	a.Size = 0
	if st, err := os.Stat(m.auditFile); err == nil {
		a.Size, mtime = uint64(st.Size()), st.ModTime()
	}
	setTimes(a, mtime)
	setOwner(a)
	a.Blksize = 4096
	a.Blocks = (a.Size + 4095) / 4096 * 8
}

// Lookup finds calls.jsonl.
func (d *auditDirNode) Lookup(ctx context.Context, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	if name != auditName {
		return nil, syscall.ENOENT
	}
	d.m.auditFileAttr(&out.Attr)
	out.SetAttrTimeout(uncached)
	return d.NewInode(ctx, &auditFileNode{m: d.m}, fusefs.StableAttr{Mode: syscall.S_IFREG, Ino: out.Attr.Ino}), 0
}

// Readdir lists audit/.
func (d *auditDirNode) Readdir(ctx context.Context) (fusefs.DirStream, syscall.Errno) {
	return fusefs.NewListDirStream([]gofuse.DirEntry{{Name: auditName, Mode: syscall.S_IFREG, Ino: auditIno(d.m, auditName)}}), 0
}

// Getattr reports audit/'s attributes.
func (d *auditDirNode) Getattr(ctx context.Context, f fusefs.FileHandle, out *gofuse.AttrOut) syscall.Errno {
	d.m.auditDirAttr(&out.Attr)
	out.SetTimeout(uncached)
	return 0
}

// Getattr reports the log's attributes as they are now.
func (f *auditFileNode) Getattr(ctx context.Context, fh fusefs.FileHandle, out *gofuse.AttrOut) syscall.Errno {
	f.m.auditFileAttr(&out.Attr)
	out.SetTimeout(uncached)
	return 0
}

// Setattr refuses every change: the log is written by the engine only.
func (f *auditFileNode) Setattr(ctx context.Context, fh fusefs.FileHandle, in *gofuse.SetAttrIn, out *gofuse.AttrOut) syscall.Errno {
	return syscall.EROFS
}

// Open allows reading only; reads go to the handler every time.
func (f *auditFileNode) Open(ctx context.Context, flags uint32) (fusefs.FileHandle, uint32, syscall.Errno) {
	if flags&syscall.O_ACCMODE != syscall.O_RDONLY || flags&(syscall.O_TRUNC|syscall.O_APPEND|syscall.O_CREAT) != 0 {
		return nil, 0, syscall.EROFS
	}
	return nil, gofuse.FOPEN_DIRECT_IO | gofuse.FOPEN_NOFLUSH, 0
}

// Read reads the log file as it is now; after a rotation, that is the
// new file (like tail -F, a reader past its end sees it shrink).
func (f *auditFileNode) Read(ctx context.Context, fh fusefs.FileHandle, dest []byte, off int64) (gofuse.ReadResult, syscall.Errno) {
	if off < 0 {
		return nil, syscall.EINVAL
	}
	file, err := os.Open(f.m.auditFile)
	if errors.Is(err, os.ErrNotExist) {
		return gofuse.ReadResultData(nil), 0
	}
	if err != nil {
		return nil, f.m.errno("read", AuditDir+"/"+auditName, err)
	}
	defer file.Close()
	n, err := file.ReadAt(dest, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, f.m.errno("read", AuditDir+"/"+auditName, err)
	}
	return gofuse.ReadResultData(dest[:n]), 0
}
