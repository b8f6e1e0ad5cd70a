package fuse

import (
	"context"
	"syscall"
	"time"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/fs/internal/jobs"
)

// Nodes of the live run/ folder: the folder, and its files as writable
// files (writable.go) over the job table. Results and status are opened
// with direct I/O: their size changes while a job runs, and a read of
// run/<job>.out must reach the handler to wait for output.

// runDirNode is run/.
type runDirNode struct {
	fusefs.Inode
	m *Mounted
}

// runFile is a file of run/: a job's program, result or status,
// README.md or ERRORS.txt. A name in run/ always means the same file, so
// it is fixed at lookup.
type runFile struct {
	m    *Mounted
	name string
	job  string // "" for README.md and ERRORS.txt
	kind jobs.Kind
}

var (
	_ = (fusefs.NodeLookuper)((*runDirNode)(nil))
	_ = (fusefs.NodeReaddirer)((*runDirNode)(nil))
	_ = (fusefs.NodeGetattrer)((*runDirNode)(nil))
	_ = (fusefs.NodeSetattrer)((*runDirNode)(nil))
	_ = (fusefs.NodeAccesser)((*runDirNode)(nil))
	_ = (fusefs.NodeStatfser)((*runDirNode)(nil))
	_ = (fusefs.NodeCreater)((*runDirNode)(nil))
	_ = (fusefs.NodeUnlinker)((*runDirNode)(nil))
	_ = (fusefs.NodeRenamer)((*runDirNode)(nil))
	_ = (fusefs.NodeMkdirer)((*runDirNode)(nil))
	_ = (fusefs.NodeRmdirer)((*runDirNode)(nil))
	_ = (fusefs.NodeMknoder)((*runDirNode)(nil))
	_ = (fusefs.NodeLinker)((*runDirNode)(nil))
	_ = (fusefs.NodeSymlinker)((*runDirNode)(nil))

	_ fileOps = (*runFile)(nil)
)

// lookupRunDir answers the lookup of run/ in the root when run/ is live.
func (m *Mounted) lookupRunDir(ctx context.Context, parent *fusefs.Inode, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	ino := m.runDirAttr(&out.Attr)
	out.SetAttrTimeout(uncached)
	return parent.NewInode(ctx, &runDirNode{m: m}, fusefs.StableAttr{Mode: syscall.S_IFDIR, Ino: ino}), 0
}

func (m *Mounted) runDirAttr(a *gofuse.Attr) uint64 {
	ino, _ := m.ids.dir(mcpfs.RunDir, m.run.Born())
	a.Ino = ino
	a.Mode = syscall.S_IFDIR | 0o755
	a.Nlink = 1
	setTimes(a, m.run.ModTime())
	setOwner(a)
	a.Blksize = 4096
	return ino
}

func runIno(m *Mounted, name string) uint64 {
	ino, _ := m.ids.dir("\x00run/"+name, time.Time{})
	return ino
}

// runFileAttr fills the attributes of run/<name>; ok is false when there
// is no such file.
func (m *Mounted) runFileAttr(name string, a *gofuse.Attr) (jobs.Info, bool) {
	info, ok := m.run.Stat(name)
	if !ok {
		return jobs.Info{}, false
	}
	mode := uint32(0o444)
	if info.Writable {
		mode = 0o644
	}
	a.Ino = runIno(m, name)
	a.Mode = syscall.S_IFREG | mode
	a.Nlink = 1
	a.Size = uint64(info.Size)
	setTimes(a, info.ModTime)
	setOwner(a)
	a.Blksize = 4096
	a.Blocks = (a.Size + 4095) / 4096 * 8
	return info, true
}

func (m *Mounted) newRunFile(ctx context.Context, parent *fusefs.Inode, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	info, ok := m.runFileAttr(name, &out.Attr)
	if !ok {
		out.SetEntryTimeout(uncached) // new files and removals show at once
		return nil, syscall.ENOENT
	}
	return newWritable(ctx, parent, &runFile{m: m, name: name, job: info.Job, kind: info.Kind}, out), 0
}

// Lookup finds a file of run/.
func (d *runDirNode) Lookup(ctx context.Context, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	return d.m.newRunFile(ctx, &d.Inode, name, out)
}

// Readdir lists run/.
func (d *runDirNode) Readdir(ctx context.Context) (fusefs.DirStream, syscall.Errno) {
	names := d.m.run.Names()
	list := make([]gofuse.DirEntry, 0, len(names))
	for _, n := range names {
		list = append(list, gofuse.DirEntry{Name: n, Mode: syscall.S_IFREG, Ino: runIno(d.m, n)})
	}
	return fusefs.NewListDirStream(list), 0
}

// Getattr reports run/'s attributes.
func (d *runDirNode) Getattr(ctx context.Context, f fusefs.FileHandle, out *gofuse.AttrOut) syscall.Errno {
	d.m.runDirAttr(&out.Attr)
	out.SetTimeout(uncached)
	return 0
}

// Setattr accepts chmod, chown and utimes and changes nothing.
func (d *runDirNode) Setattr(ctx context.Context, f fusefs.FileHandle, in *gofuse.SetAttrIn, out *gofuse.AttrOut) syscall.Errno {
	return d.Getattr(ctx, f, out)
}

// Access allows everything: what may not be written is refused by the
// operation itself, with a reason in ERRORS.txt.
func (d *runDirNode) Access(ctx context.Context, mask uint32) syscall.Errno { return 0 }

// Statfs answers as the root does.
func (d *runDirNode) Statfs(ctx context.Context, out *gofuse.StatfsOut) syscall.Errno {
	return d.m.root.Statfs(ctx, out)
}

// Create makes run/<job>.go. Other names are refused: EINVAL for a bad
// job name, EPERM for anything but a .go file, ENOSPC when run/ is full
// of unfinished jobs.
func (d *runDirNode) Create(ctx context.Context, name string, flags, mode uint32, out *gofuse.EntryOut) (*fusefs.Inode, fusefs.FileHandle, uint32, syscall.Errno) {
	if err := d.m.run.Create(name); err != nil {
		return nil, nil, 0, d.m.errno("create", "run/"+name, err)
	}
	in, errno := d.m.newRunFile(ctx, &d.Inode, name, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	return in, newHandle(), 0, 0
}

// Unlink removes a job (any of its files names it) and cancels it if it
// runs; unlinking ERRORS.txt clears it.
func (d *runDirNode) Unlink(ctx context.Context, name string) syscall.Errno {
	return d.m.errno("unlink", "run/"+name, d.m.run.Remove(name))
}

// Rename is refused: write run/<job>.go directly.
func (d *runDirNode) Rename(ctx context.Context, name string, newParent fusefs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	return d.m.errno("rename", "run/"+name, d.m.run.Refuse("rename", name))
}

// Mkdir is refused: run/ holds files only.
func (d *runDirNode) Mkdir(ctx context.Context, name string, mode uint32, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	return nil, d.m.errno("mkdir", "run/"+name, d.m.run.Refuse("mkdir", name))
}

// Rmdir finds no folder to remove.
func (d *runDirNode) Rmdir(ctx context.Context, name string) syscall.Errno {
	if _, ok := d.m.run.Stat(name); ok {
		return syscall.ENOTDIR
	}
	return syscall.ENOENT
}

// Mknod is refused.
func (d *runDirNode) Mknod(ctx context.Context, name string, mode, dev uint32, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	return nil, d.m.errno("mknod", "run/"+name, d.m.run.Refuse("mknod", name))
}

// Link is refused.
func (d *runDirNode) Link(ctx context.Context, target fusefs.InodeEmbedder, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	return nil, d.m.errno("link", "run/"+name, d.m.run.Refuse("link", name))
}

// Symlink is refused.
func (d *runDirNode) Symlink(ctx context.Context, target, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	return nil, d.m.errno("symlink", "run/"+name, d.m.run.Refuse("symlink", name))
}

func (f *runFile) attr(_ *fusefs.Inode, a *gofuse.Attr) syscall.Errno {
	if _, ok := f.m.runFileAttr(f.name, a); !ok {
		return syscall.ENOENT
	}
	return 0
}

// truncate cuts a program; results cannot be truncated.
func (f *runFile) truncate(_ *fusefs.Inode, size uint64) syscall.Errno {
	if f.kind != jobs.KindSource {
		return syscall.EACCES
	}
	return f.m.errno("truncate", "run/"+f.name, f.m.run.Truncate(f.job, int64(min(size, 1<<62))))
}

// open opens a file of run/. Only a program opens for writing; O_TRUNC
// empties it. A result opens on the job's current run; a status or
// ERRORS.txt on what it says now, so that reads at growing offsets agree.
func (f *runFile) open(_ *fusefs.Inode, flags uint32) (any, uint32, bool, syscall.Errno) {
	r := f.m.run
	writing := flags&syscall.O_ACCMODE != syscall.O_RDONLY || flags&(syscall.O_TRUNC|syscall.O_APPEND) != 0
	if writing && f.kind != jobs.KindSource {
		return nil, 0, false, syscall.EACCES
	}
	const live = gofuse.FOPEN_DIRECT_IO | gofuse.FOPEN_NOFLUSH
	switch f.kind {
	case jobs.KindSource:
		if flags&syscall.O_TRUNC != 0 {
			if err := r.Truncate(f.job, 0); err != nil {
				return nil, 0, false, syscall.ENOENT
			}
			return nil, 0, true, 0
		}
		if _, ok := r.Source(f.job); !ok {
			return nil, 0, false, syscall.ENOENT
		}
		return nil, 0, false, 0
	case jobs.KindReadme:
		return nil, gofuse.FOPEN_KEEP_CACHE | gofuse.FOPEN_NOFLUSH, false, 0
	case jobs.KindOut:
		o, ok := r.OpenOutput(f.job)
		if !ok {
			return nil, 0, false, syscall.ENOENT
		}
		return o, live, false, 0
	}
	data, ok := r.Snapshot(f.name)
	if !ok {
		return nil, 0, false, syscall.ENOENT
	}
	return data, live, false, 0
}

// read serves the file. A read of run/<job>.out past what the run has
// printed waits for more or for the end; an interrupt ends the wait with
// EINTR.
func (f *runFile) read(ctx context.Context, _ *fusefs.Inode, state any, off int64, size int) ([]byte, syscall.Errno) {
	switch s := state.(type) {
	case *jobs.Output:
		data, err := s.Read(ctx, off, size)
		if err != nil {
			return nil, f.m.errno("read", "run/"+f.name, err)
		}
		return data, 0
	case []byte:
		return sliceAt(s, off, size), 0
	}
	switch f.kind {
	case jobs.KindReadme:
		return sliceAt([]byte(jobs.ReadmeText), off, size), 0
	case jobs.KindSource:
		src, ok := f.m.run.Source(f.job)
		if !ok {
			return nil, syscall.ENOENT
		}
		return sliceAt(src, off, size), 0
	}
	return nil, syscall.EBADF
}

// write changes a program; the job starts when the file is closed.
func (f *runFile) write(_ *fusefs.Inode, data []byte, off int64) syscall.Errno {
	if f.kind != jobs.KindSource {
		return syscall.EACCES
	}
	return f.m.errno("write", "run/"+f.name, f.m.run.WriteAt(f.job, data, off))
}

// commit starts the job. It returns at once: the job runs in the
// background.
func (f *runFile) commit(context.Context, *fusefs.Inode) syscall.Errno {
	if f.kind == jobs.KindSource {
		f.m.run.Start(f.job)
	}
	return 0
}
