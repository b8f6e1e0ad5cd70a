package fuse

import (
	"context"
	"sync/atomic"
	"syscall"
	"time"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/skills"
)

// Nodes of the writable skills/ folder. They find their path from the
// inode tree on every request (a rename moves them), read the working
// copy live, and tell the kernel not to cache their entries or
// attributes: the working copy changes under them.

// skillDirNode is skills/<folder>.
type skillDirNode struct {
	fusefs.Inode
	m *Mounted
}

// skillFileNode is skills/<folder>/<file>.
type skillFileNode struct {
	fusefs.Inode
	m *Mounted
}

// skillHandle is an open skill file; dirty once written.
type skillHandle struct{ dirty atomic.Bool }

var (
	_ = (fusefs.NodeLookuper)((*skillDirNode)(nil))
	_ = (fusefs.NodeReaddirer)((*skillDirNode)(nil))
	_ = (fusefs.NodeGetattrer)((*skillDirNode)(nil))
	_ = (fusefs.NodeSetattrer)((*skillDirNode)(nil))
	_ = (fusefs.NodeCreater)((*skillDirNode)(nil))
	_ = (fusefs.NodeMkdirer)((*skillDirNode)(nil))
	_ = (fusefs.NodeUnlinker)((*skillDirNode)(nil))
	_ = (fusefs.NodeRenamer)((*skillDirNode)(nil))

	_ = (fusefs.NodeGetattrer)((*skillFileNode)(nil))
	_ = (fusefs.NodeSetattrer)((*skillFileNode)(nil))
	_ = (fusefs.NodeOpener)((*skillFileNode)(nil))
	_ = (fusefs.NodeReader)((*skillFileNode)(nil))
	_ = (fusefs.NodeWriter)((*skillFileNode)(nil))
	_ = (fusefs.NodeFlusher)((*skillFileNode)(nil))
	_ = (fusefs.NodeFsyncer)((*skillFileNode)(nil))
)

// uncached is the entry and attribute timeout of skill nodes: the
// smallest the kernel accepts without falling back to the mount's.
const uncached = time.Nanosecond

func (m *Mounted) skillPath(in *fusefs.Inode) (folder, file string, ok bool) {
	return skillFolder(in.Path(&m.root.Inode))
}

// lookupFolder answers a lookup of skills/<name>.
func (m *Mounted) lookupFolder(ctx context.Context, parent *fusefs.Inode, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	m.stage.mu.Lock()
	_, _, ok := m.working(name)
	m.stage.mu.Unlock()
	if !ok {
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
	for _, f := range m.folders() {
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
	m.stage.mu.Lock()
	data, ok := m.content(folder, name)
	m.stage.mu.Unlock()
	if !ok {
		out.SetEntryTimeout(uncached) // ERRORS.txt and new files appear at once
		return nil, syscall.ENOENT
	}
	ino := m.fileAttr(folder, name, data, &out.Attr)
	out.SetEntryTimeout(uncached)
	out.SetAttrTimeout(uncached)
	return parent.NewInode(ctx, &skillFileNode{m: m}, fusefs.StableAttr{Mode: syscall.S_IFREG, Ino: ino}), 0
}

func (m *Mounted) fileAttr(folder, name string, data []byte, a *gofuse.Attr) uint64 {
	ino, _ := m.ids.dir("\x00file/"+folder+"/"+name, time.Now())
	a.Ino = ino
	a.Mode = syscall.S_IFREG | 0o644
	if name == skills.ErrorsFile {
		a.Mode = syscall.S_IFREG | 0o444
	}
	a.Nlink = 1
	a.Size = uint64(len(data))
	m.stage.mu.Lock()
	mtime := time.Time{}
	if d := m.stage.drafts[folder]; d != nil {
		mtime = d.mtime
	} else if sk, ok := m.saved(folder); ok {
		mtime = sk.Saved
	}
	m.stage.mu.Unlock()
	setTimes(a, mtime)
	setOwner(a)
	a.Blksize = 4096
	a.Blocks = (a.Size + 4095) / 4096 * 8
	return ino
}

// Readdir lists the working copy.
func (d *skillDirNode) Readdir(ctx context.Context) (fusefs.DirStream, syscall.Errno) {
	folder, _, ok := d.m.skillPath(&d.Inode)
	if !ok {
		return nil, syscall.ENOENT
	}
	d.m.stage.mu.Lock()
	names := d.m.names(folder)
	d.m.stage.mu.Unlock()
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
	if name == skills.ErrorsFile {
		return nil, nil, 0, syscall.EACCES
	}
	d.m.stage.mu.Lock()
	if _, _, ok := d.m.working(folder); !ok {
		d.m.stage.mu.Unlock()
		return nil, nil, 0, syscall.ENOENT
	}
	d.m.put(folder, name, []byte{})
	d.m.stage.mu.Unlock()
	in, errno := d.m.newSkillFile(ctx, &d.Inode, folder, name, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	h := &skillHandle{}
	h.dirty.Store(true)
	return in, h, 0, 0
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
	d.m.stage.mu.Lock()
	defer d.m.stage.mu.Unlock()
	if !d.m.remove(folder, name) {
		return syscall.ENOENT
	}
	if files, _, _ := d.m.working(folder); len(files) > 0 && skills.IsSkillFile(name) {
		_ = d.m.save(ctx, folder, "mount")
	}
	return 0
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
	if name == skills.ErrorsFile || newName == skills.ErrorsFile {
		return syscall.EACCES
	}
	m := d.m
	m.stage.mu.Lock()
	defer m.stage.mu.Unlock()
	data, ok := m.content(folder, name)
	if !ok {
		return syscall.ENOENT
	}
	dr := m.draftFor(folder)
	before := struct{ changed, scratch map[string][]byte }{cloneMap(dr.changed), cloneMap(dr.scratch)}
	m.remove(folder, name)
	m.put(folder, newName, data)
	if !skills.IsSkillFile(name) && !skills.IsSkillFile(newName) {
		return 0
	}
	err := m.save(ctx, folder, "mount")
	if errno := saveErrno(err); errno != 0 {
		dr = m.draftFor(folder)
		dr.changed, dr.scratch = before.changed, before.scratch
		return errno
	}
	return 0
}

func cloneMap(in map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// Getattr reports the file's current size.
func (f *skillFileNode) Getattr(ctx context.Context, fh fusefs.FileHandle, out *gofuse.AttrOut) syscall.Errno {
	folder, file, ok := f.m.skillPath(&f.Inode)
	if !ok {
		return syscall.ENOENT
	}
	f.m.stage.mu.Lock()
	data, ok := f.m.content(folder, file)
	f.m.stage.mu.Unlock()
	if !ok {
		return syscall.ENOENT
	}
	f.m.fileAttr(folder, file, data, &out.Attr)
	out.SetTimeout(uncached)
	return 0
}

// Setattr truncates; chmod, chown and utimes are accepted and ignored.
func (f *skillFileNode) Setattr(ctx context.Context, fh fusefs.FileHandle, in *gofuse.SetAttrIn, out *gofuse.AttrOut) syscall.Errno {
	if size, ok := in.GetSize(); ok {
		folder, file, ok := f.m.skillPath(&f.Inode)
		if !ok {
			return syscall.ENOENT
		}
		if file == skills.ErrorsFile {
			return syscall.EACCES
		}
		f.m.stage.mu.Lock()
		data, found := f.m.content(folder, file)
		if found {
			f.m.put(folder, file, resize(data, int(size)))
		}
		f.m.stage.mu.Unlock()
		if !found {
			return syscall.ENOENT
		}
		// Not a save point: open(O_TRUNC) truncates this way before the
		// writes come. The next close, fsync or rename saves.
		if h, ok := fh.(*skillHandle); ok {
			h.dirty.Store(true)
		}
	}
	return f.Getattr(ctx, fh, out)
}

func resize(data []byte, size int) []byte {
	out := make([]byte, size)
	copy(out, data)
	return out
}

// Open opens the file; O_TRUNC empties it.
func (f *skillFileNode) Open(ctx context.Context, flags uint32) (fusefs.FileHandle, uint32, syscall.Errno) {
	folder, file, ok := f.m.skillPath(&f.Inode)
	if !ok {
		return nil, 0, syscall.ENOENT
	}
	h := &skillHandle{}
	if flags&syscall.O_ACCMODE != syscall.O_RDONLY || flags&syscall.O_TRUNC != 0 {
		if file == skills.ErrorsFile {
			return nil, 0, syscall.EACCES
		}
		if flags&syscall.O_TRUNC != 0 {
			f.m.stage.mu.Lock()
			f.m.put(folder, file, []byte{})
			f.m.stage.mu.Unlock()
			h.dirty.Store(true)
		}
	}
	return h, 0, 0
}

// Read serves the working copy.
func (f *skillFileNode) Read(ctx context.Context, fh fusefs.FileHandle, dest []byte, off int64) (gofuse.ReadResult, syscall.Errno) {
	folder, file, ok := f.m.skillPath(&f.Inode)
	if !ok {
		return nil, syscall.ENOENT
	}
	f.m.stage.mu.Lock()
	data, ok := f.m.content(folder, file)
	f.m.stage.mu.Unlock()
	if !ok {
		return nil, syscall.ENOENT
	}
	if off < 0 {
		return nil, syscall.EINVAL
	}
	if off >= int64(len(data)) {
		return gofuse.ReadResultData(nil), 0
	}
	end := min(off+int64(len(dest)), int64(len(data)))
	return gofuse.ReadResultData(append([]byte(nil), data[off:end]...)), 0
}

// Write changes the working copy; the folder is saved on close.
func (f *skillFileNode) Write(ctx context.Context, fh fusefs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	folder, file, ok := f.m.skillPath(&f.Inode)
	if !ok {
		return 0, syscall.ENOENT
	}
	if file == skills.ErrorsFile {
		return 0, syscall.EACCES
	}
	if off < 0 || off+int64(len(data)) > skills.MaxFileSize {
		return 0, syscall.EFBIG
	}
	f.m.stage.mu.Lock()
	cur, found := f.m.content(folder, file)
	if found {
		end := int(off) + len(data)
		buf := make([]byte, max(len(cur), end))
		copy(buf, cur)
		copy(buf[off:], data)
		f.m.put(folder, file, buf)
	}
	f.m.stage.mu.Unlock()
	if !found {
		return 0, syscall.ENOENT
	}
	if h, ok := fh.(*skillHandle); ok {
		h.dirty.Store(true)
	}
	return uint32(len(data)), 0
}

// Flush saves the folder when the file was written through this handle:
// close(2) fails with EIO when the skill is invalid.
func (f *skillFileNode) Flush(ctx context.Context, fh fusefs.FileHandle) syscall.Errno {
	h, ok := fh.(*skillHandle)
	if !ok || !h.dirty.Load() {
		return 0
	}
	errno := f.commit(ctx)
	if errno == 0 {
		h.dirty.Store(false)
	}
	return errno
}

// Fsync saves the folder as Flush does.
func (f *skillFileNode) Fsync(ctx context.Context, fh fusefs.FileHandle, flags uint32) syscall.Errno {
	return f.Flush(ctx, fh)
}

func (f *skillFileNode) commit(ctx context.Context) syscall.Errno {
	folder, file, ok := f.m.skillPath(&f.Inode)
	if !ok {
		return 0 // unlinked while open: nothing left to save
	}
	if !skills.IsSkillFile(file) {
		return 0
	}
	f.m.stage.mu.Lock()
	defer f.m.stage.mu.Unlock()
	return saveErrno(f.m.save(ctx, folder, "mount"))
}

// Operations on skills/ itself (a dirNode), when it is writable.

// mkdirSkill starts a new folder: a skill to be, or a hidden scratch
// folder.
func (m *Mounted) mkdirSkill(ctx context.Context, parent *fusefs.Inode, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	if !hidden(name) && skills.CheckName(name) != nil {
		return nil, syscall.EINVAL
	}
	m.stage.mu.Lock()
	if _, _, ok := m.working(name); ok {
		m.stage.mu.Unlock()
		return nil, syscall.EEXIST
	}
	m.draftFor(name)
	m.stage.mu.Unlock()
	return m.lookupFolder(ctx, parent, name, out)
}

// rmdirSkill removes an empty folder; for a saved skill that is the
// removal of the skill (a new version marks it removed).
func (m *Mounted) rmdirSkill(ctx context.Context, name string) syscall.Errno {
	m.stage.mu.Lock()
	defer m.stage.mu.Unlock()
	files, d, ok := m.working(name)
	if !ok {
		return syscall.ENOENT
	}
	if len(files) > 0 || (d != nil && len(d.scratch) > 0) {
		return syscall.ENOTEMPTY
	}
	if _, isSaved := m.saved(name); isSaved {
		if _, err := m.skills.Remove(ctx, name, "removed through the mount"); err != nil {
			m.draftFor(name).errors = "skills/" + name + " was not removed: " + err.Error() + "\n"
			m.log.Warn("removing a skill failed", "skill", name, "error", err)
			return syscall.EBUSY
		}
		m.skillsChanged()
	}
	delete(m.stage.drafts, name)
	return 0
}

// renameSkill moves a whole folder onto skills/<newName>, saving it as
// that skill in one step. An invalid folder is refused with EIO, its
// problems in ERRORS.txt of the folder that was moved.
func (m *Mounted) renameSkill(ctx context.Context, name, newName string) syscall.Errno {
	if hidden(newName) {
		m.stage.mu.Lock()
		defer m.stage.mu.Unlock()
		if _, _, ok := m.working(newName); ok {
			return syscall.EEXIST
		}
		if _, isSaved := m.saved(name); isSaved {
			return syscall.EPERM // a saved skill is removed with rmdir, not renamed away
		}
		if d := m.stage.drafts[name]; d != nil {
			delete(m.stage.drafts, name)
			m.stage.drafts[newName] = d
		}
		return 0
	}
	if skills.CheckName(newName) != nil {
		return syscall.EINVAL
	}
	m.stage.mu.Lock()
	defer m.stage.mu.Unlock()
	files, _, ok := m.working(name)
	if !ok {
		return syscall.ENOENT
	}
	_, srcSaved := m.saved(name)
	if srcSaved {
		return syscall.EPERM // renaming a saved skill would change its package
	}
	saved, err := m.skills.Save(ctx, m.tree.Load(), newName, files, "mount")
	if err != nil {
		d := m.draftFor(name)
		d.errors = "skills/" + name + " was not saved as skills/" + newName + ": " + err.Error() + "\n\nNothing changed; fix the files here and rename again.\n"
		if errorsIsInvalid(err) {
			return syscall.EIO
		}
		m.log.Error("saving a skill failed", "skill", newName, "error", err)
		return syscall.EIO
	}
	m.log.Info("skill saved", "skill", newName, "version", saved.Version)
	delete(m.stage.drafts, name)
	if d := m.stage.drafts[newName]; d != nil {
		d.changed = map[string][]byte{}
		d.errors = ""
		m.tidy(newName)
	}
	m.skillsChanged()
	return 0
}

func errorsIsInvalid(err error) bool {
	_, ok := err.(*skills.ValidationError)
	return ok
}
