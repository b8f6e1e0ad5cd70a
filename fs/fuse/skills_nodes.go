package fuse

import (
	"context"
	"syscall"
	"time"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/skills"
)

// Nodes of the writable skills/ folder: skills/<folder> and its files as
// writable files (writable.go) over the working copy. They find their
// path from the inode tree on every request (a rename moves them), read
// the working copy live, and tell the kernel not to cache their entries
// or attributes: the working copy changes under them.

// skillDirNode is skills/<folder>.
type skillDirNode struct {
	fusefs.Inode
	m *Mounted
}

// skillFile is skills/<folder>/<file>.
type skillFile struct{ m *Mounted }

var (
	_ = (fusefs.NodeLookuper)((*skillDirNode)(nil))
	_ = (fusefs.NodeReaddirer)((*skillDirNode)(nil))
	_ = (fusefs.NodeGetattrer)((*skillDirNode)(nil))
	_ = (fusefs.NodeSetattrer)((*skillDirNode)(nil))
	_ = (fusefs.NodeCreater)((*skillDirNode)(nil))
	_ = (fusefs.NodeMkdirer)((*skillDirNode)(nil))
	_ = (fusefs.NodeUnlinker)((*skillDirNode)(nil))
	_ = (fusefs.NodeRenamer)((*skillDirNode)(nil))

	_ fileOps = skillFile{}
)

// uncached is the entry and attribute timeout of the live folders' nodes:
// the smallest the kernel accepts without falling back to the mount's.
const uncached = time.Nanosecond

func (m *Mounted) skillPath(in *fusefs.Inode) (folder, file string, ok bool) {
	return skillFolder(in.Path(&m.root.Inode))
}

// lookupFolder answers a lookup of skills/<name>.
func (m *Mounted) lookupFolder(ctx context.Context, parent *fusefs.Inode, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	if !m.work.Exists(name) {
		out.SetEntryTimeout(uncached) // the kernel keeps no negative entry
		return nil, syscall.ENOENT
	}
	n := &skillDirNode{m: m}
	ino := m.folderAttr(mcpfs.SkillsDir+"/"+name, &out.Attr)
	out.SetEntryTimeout(uncached)
	out.SetAttrTimeout(uncached)
	return parent.NewInode(ctx, n, fusefs.StableAttr{Mode: syscall.S_IFDIR, Ino: ino}), 0
}

func (m *Mounted) folderAttr(p string, a *gofuse.Attr) uint64 {
	ino, mtime := m.ids.dir(p, time.Now())
	a.Ino = ino
	a.Mode = syscall.S_IFDIR | 0o755
	a.Nlink = 1
	setTimes(a, mtime)
	setOwner(a)
	a.Blksize = 4096
	return ino
}

// readdirSkills lists skills/.
func (m *Mounted) readdirSkills() []gofuse.DirEntry {
	var list []gofuse.DirEntry
	for _, f := range m.work.Folders() {
		ino, _ := m.ids.dir(mcpfs.SkillsDir+"/"+f, time.Now())
		list = append(list, gofuse.DirEntry{Name: f, Mode: syscall.S_IFDIR, Ino: ino})
	}
	return list
}

// Lookup finds a file of the working copy.
func (d *skillDirNode) Lookup(ctx context.Context, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	folder, _, ok := d.m.skillPath(&d.Inode)
	if !ok {
		return nil, syscall.ENOENT
	}
	return d.m.newSkillFile(ctx, &d.Inode, folder, name, out)
}

func (m *Mounted) newSkillFile(ctx context.Context, parent *fusefs.Inode, folder, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	if !m.fileAttr(folder, name, &out.Attr) {
		out.SetEntryTimeout(uncached) // ERRORS.txt and new files appear at once
		return nil, syscall.ENOENT
	}
	return newWritable(ctx, parent, skillFile{m}, out), 0
}

// fileAttr fills the attributes of skills/<folder>/<name>; false when
// there is no such file.
func (m *Mounted) fileAttr(folder, name string, a *gofuse.Attr) bool {
	info, ok := m.work.Stat(folder, name)
	if !ok {
		return false
	}
	ino, _ := m.ids.dir("\x00file/"+folder+"/"+name, time.Now())
	a.Ino = ino
	a.Mode = syscall.S_IFREG | 0o644
	if !info.Writable {
		a.Mode = syscall.S_IFREG | 0o444
	}
	a.Nlink = 1
	a.Size = uint64(info.Size)
	setTimes(a, info.ModTime)
	setOwner(a)
	a.Blksize = 4096
	a.Blocks = (a.Size + 4095) / 4096 * 8
	return true
}

// Readdir lists the working copy.
func (d *skillDirNode) Readdir(ctx context.Context) (fusefs.DirStream, syscall.Errno) {
	folder, _, ok := d.m.skillPath(&d.Inode)
	if !ok {
		return nil, syscall.ENOENT
	}
	names := d.m.work.Names(folder)
	list := make([]gofuse.DirEntry, 0, len(names))
	for _, n := range names {
		ino, _ := d.m.ids.dir("\x00file/"+folder+"/"+n, time.Now())
		list = append(list, gofuse.DirEntry{Name: n, Mode: syscall.S_IFREG, Ino: ino})
	}
	return fusefs.NewListDirStream(list), 0
}

// Getattr reports the folder's attributes.
func (d *skillDirNode) Getattr(ctx context.Context, f fusefs.FileHandle, out *gofuse.AttrOut) syscall.Errno {
	folder, _, ok := d.m.skillPath(&d.Inode)
	if !ok {
		return syscall.ENOENT
	}
	d.m.folderAttr(mcpfs.SkillsDir+"/"+folder, &out.Attr)
	out.SetTimeout(uncached)
	return 0
}

// Setattr accepts chmod, chown and utimes and changes nothing.
func (d *skillDirNode) Setattr(ctx context.Context, f fusefs.FileHandle, in *gofuse.SetAttrIn, out *gofuse.AttrOut) syscall.Errno {
	return d.Getattr(ctx, f, out)
}

// Create makes a new file in the working copy.
func (d *skillDirNode) Create(ctx context.Context, name string, flags, mode uint32, out *gofuse.EntryOut) (*fusefs.Inode, fusefs.FileHandle, uint32, syscall.Errno) {
	folder, _, ok := d.m.skillPath(&d.Inode)
	if !ok {
		return nil, nil, 0, syscall.ENOENT
	}
	if err := d.m.work.Create(folder, name); err != nil {
		return nil, nil, 0, d.m.errno("create", mcpfs.SkillsDir+"/"+folder+"/"+name, err)
	}
	in, errno := d.m.newSkillFile(ctx, &d.Inode, folder, name, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	return in, newHandle(), 0, 0
}

// Mkdir refuses folders inside a skill: skills are flat.
func (d *skillDirNode) Mkdir(context.Context, string, uint32, *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	return nil, syscall.EPERM
}

// Unlink removes a file from the working copy and saves the rest when it
// is valid; an invalid rest stays pending without failing the unlink.
func (d *skillDirNode) Unlink(ctx context.Context, name string) syscall.Errno {
	folder, _, ok := d.m.skillPath(&d.Inode)
	if !ok {
		return syscall.ENOENT
	}
	return d.m.errno("unlink", mcpfs.SkillsDir+"/"+folder+"/"+name, d.m.work.Unlink(ctx, folder, name))
}

// Rename moves a file within the folder. A rename that makes or replaces
// a skill file saves the folder; an invalid result is refused with EIO
// and nothing moves. Files cannot move between folders (EXDEV: mv copies
// them instead).
func (d *skillDirNode) Rename(ctx context.Context, name string, newParent fusefs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if flags != 0 {
		return syscall.EINVAL
	}
	if newParent.EmbeddedInode() != &d.Inode {
		return syscall.EXDEV
	}
	folder, _, ok := d.m.skillPath(&d.Inode)
	if !ok {
		return syscall.ENOENT
	}
	return d.m.errno("rename", mcpfs.SkillsDir+"/"+folder+"/"+name, d.m.work.Rename(ctx, folder, name, newName))
}

// path is the file's current place in skills/, ENOENT when it has none.
func (f skillFile) path(in *fusefs.Inode) (folder, file string, errno syscall.Errno) {
	folder, file, ok := f.m.skillPath(in)
	if !ok {
		return "", "", syscall.ENOENT
	}
	return folder, file, 0
}

func (f skillFile) attr(in *fusefs.Inode, a *gofuse.Attr) syscall.Errno {
	folder, file, errno := f.path(in)
	if errno != 0 {
		return errno
	}
	if !f.m.fileAttr(folder, file, a) {
		return syscall.ENOENT
	}
	return 0
}

func (f skillFile) truncate(in *fusefs.Inode, size uint64) syscall.Errno {
	folder, file, errno := f.path(in)
	if errno != 0 {
		return errno
	}
	return f.m.errno("truncate", mcpfs.SkillsDir+"/"+folder+"/"+file, f.m.work.Truncate(folder, file, int64(min(size, 1<<62))))
}

// open opens the file; O_TRUNC empties it. ERRORS.txt opens for reading
// only.
func (f skillFile) open(in *fusefs.Inode, flags uint32) (any, uint32, bool, syscall.Errno) {
	folder, file, errno := f.path(in)
	if errno != 0 {
		return nil, 0, false, errno
	}
	if flags&syscall.O_ACCMODE == syscall.O_RDONLY && flags&syscall.O_TRUNC == 0 {
		return nil, 0, false, 0
	}
	if file == skills.ErrorsFile {
		return nil, 0, false, syscall.EACCES
	}
	if flags&syscall.O_TRUNC == 0 {
		return nil, 0, false, 0
	}
	if err := f.m.work.Empty(folder, file); err != nil {
		return nil, 0, false, f.m.errno("open", mcpfs.SkillsDir+"/"+folder+"/"+file, err)
	}
	return nil, 0, true, 0
}

// read serves the working copy.
func (f skillFile) read(_ context.Context, in *fusefs.Inode, _ any, off int64, size int) ([]byte, syscall.Errno) {
	folder, file, errno := f.path(in)
	if errno != 0 {
		return nil, errno
	}
	data, ok := f.m.work.File(folder, file)
	if !ok {
		return nil, syscall.ENOENT
	}
	return append([]byte(nil), sliceAt(data, off, size)...), 0
}

// write changes the working copy; the folder is saved on close.
func (f skillFile) write(in *fusefs.Inode, data []byte, off int64) syscall.Errno {
	folder, file, errno := f.path(in)
	if errno != 0 {
		return errno
	}
	return f.m.errno("write", mcpfs.SkillsDir+"/"+folder+"/"+file, f.m.work.WriteAt(folder, file, data, off))
}

// commit saves the folder: close(2) fails with EIO when the skill is
// invalid. A file unlinked while open has nothing left to save.
func (f skillFile) commit(ctx context.Context, in *fusefs.Inode) syscall.Errno {
	folder, file, ok := f.m.skillPath(in)
	if !ok {
		return 0
	}
	return f.m.errno("save", mcpfs.SkillsDir+"/"+folder, f.m.work.Commit(ctx, folder, file))
}
