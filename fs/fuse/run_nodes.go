package fuse

import (
	"context"
	"errors"
	"sync/atomic"
	"syscall"
	"time"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// Nodes of the live run/ folder (see run.go). Like the nodes of the
// writable skills/, they read the state on every request and tell the
// kernel not to cache their entries or attributes. Results and status
// are opened with direct I/O: their size changes while a job runs, and a
// read of run/<job>.out must reach the handler to wait for the job.

// runDirNode is run/.
type runDirNode struct {
	fusefs.Inode
	m *Mounted
}

// runFileNode is a file of run/: a job's program, result or status,
// README.md or ERRORS.txt.
type runFileNode struct {
	fusefs.Inode
	m    *Mounted
	job  string // "" for README.md and ERRORS.txt
	kind runKind
}

// runSourceHandle is an open run/<job>.go; dirty once written.
type runSourceHandle struct{ dirty atomic.Bool }

// runOutHandle is an open run/<job>.out: the run it was opened on, even
// when the job is written again meanwhile.
type runOutHandle struct{ run *jobRun }

// runSnapshotHandle is an open status or ERRORS.txt: what it said at
// open, so that reads at growing offsets agree.
type runSnapshotHandle struct{ data []byte }

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

	_ = (fusefs.NodeGetattrer)((*runFileNode)(nil))
	_ = (fusefs.NodeSetattrer)((*runFileNode)(nil))
	_ = (fusefs.NodeAccesser)((*runFileNode)(nil))
	_ = (fusefs.NodeOpener)((*runFileNode)(nil))
	_ = (fusefs.NodeReader)((*runFileNode)(nil))
	_ = (fusefs.NodeWriter)((*runFileNode)(nil))
	_ = (fusefs.NodeFlusher)((*runFileNode)(nil))
	_ = (fusefs.NodeFsyncer)((*runFileNode)(nil))
)

// lookupRunDir answers the lookup of run/ in the root when run/ is live.
func (m *Mounted) lookupRunDir(ctx context.Context, parent *fusefs.Inode, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	ino := m.runDirAttr(&out.Attr)
	out.SetAttrTimeout(uncached)
	return parent.NewInode(ctx, &runDirNode{m: m}, fusefs.StableAttr{Mode: syscall.S_IFDIR, Ino: ino}), 0
}

func (m *Mounted) runDirAttr(a *gofuse.Attr) uint64 {
	ino, _ := m.ids.dir(mcpfs.RunDir, m.run.born)
	m.run.mu.Lock()
	mtime := m.run.mtime
	m.run.mu.Unlock()
	a.Ino = ino
	a.Mode = syscall.S_IFDIR | 0o755
	a.Nlink = 1
	setTimes(a, mtime)
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
func (m *Mounted) runFileAttr(name string, a *gofuse.Attr) (job string, kind runKind, ok bool) {
	job, kind, ok = parseRunName(name)
	if !ok {
		return "", 0, false
	}
	r := m.run
	mode := uint32(0o444)
	var (
		size  int
		mtime time.Time
	)
	r.mu.Lock()
	switch kind {
	case kindReadme:
		size, mtime = len(runReadme), r.born
	case kindErrors:
		size, mtime, ok = len(r.errorsText()), r.refused, len(r.refusals) > 0
	default:
		j := r.jobs[job]
		switch {
		case j == nil:
			ok = false
		case kind == kindSource:
			mode, size, mtime = 0o644, len(j.src), j.mtime
		case j.run == nil:
			ok = false
		case kind == kindOut:
			size, mtime = len(j.run.out), j.run.queued // out is empty until the end
			if !j.run.ended.IsZero() {
				mtime = j.run.ended
			}
		case kind == kindStatus:
			size, mtime = len(r.statusText(job, j.run)), j.run.queued
			if !j.run.ended.IsZero() {
				mtime = j.run.ended
			}
		}
	}
	r.mu.Unlock()
	if !ok {
		return "", 0, false
	}
	a.Ino = runIno(m, name)
	a.Mode = syscall.S_IFREG | mode
	a.Nlink = 1
	a.Size = uint64(size)
	setTimes(a, mtime)
	setOwner(a)
	a.Blksize = 4096
	a.Blocks = (a.Size + 4095) / 4096 * 8
	return job, kind, true
}

func (m *Mounted) newRunFile(ctx context.Context, parent *fusefs.Inode, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	out.SetEntryTimeout(uncached) // new files and removals show at once
	job, kind, ok := m.runFileAttr(name, &out.Attr)
	if !ok {
		return nil, syscall.ENOENT
	}
	out.SetAttrTimeout(uncached)
	n := &runFileNode{m: m, job: job, kind: kind}
	return parent.NewInode(ctx, n, fusefs.StableAttr{Mode: syscall.S_IFREG, Ino: out.Attr.Ino}), 0
}

// Lookup finds a file of run/.
func (d *runDirNode) Lookup(ctx context.Context, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	return d.m.newRunFile(ctx, &d.Inode, name, out)
}

// Readdir lists run/.
func (d *runDirNode) Readdir(ctx context.Context) (fusefs.DirStream, syscall.Errno) {
	r := d.m.run
	r.mu.Lock()
	names := r.names()
	r.mu.Unlock()
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
	r := d.m.run
	job, kind, ok := parseRunName(name)
	if !ok || kind != kindSource {
		r.refuse("create", name, errors.New("only run/<job>.go files can be created; <job>.out and <job>.status appear when the job starts"))
		return nil, nil, 0, syscall.EPERM
	}
	if err := checkJobName(job); err != nil {
		r.refuse("create", name, err)
		return nil, nil, 0, syscall.EINVAL
	}
	if err := r.create(job); err != nil {
		r.refuse("create", name, err)
		return nil, nil, 0, syscall.ENOSPC
	}
	in, errno := d.m.newRunFile(ctx, &d.Inode, name, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	h := &runSourceHandle{}
	h.dirty.Store(true)
	return in, h, 0, 0
}

// Unlink removes a job (any of its files names it) and cancels it if it
// runs; unlinking ERRORS.txt clears it.
func (d *runDirNode) Unlink(ctx context.Context, name string) syscall.Errno {
	r := d.m.run
	job, kind, ok := parseRunName(name)
	switch {
	case !ok:
		return syscall.ENOENT
	case kind == kindReadme:
		r.refuse("remove", name, errors.New("README.md is part of the mount"))
		return syscall.EPERM
	case kind == kindErrors:
		if !r.clearRefusals() {
			return syscall.ENOENT
		}
		return 0
	case kind != kindSource && r.currentRun(job) == nil:
		return syscall.ENOENT // no such result (yet)
	case !r.remove(job):
		return syscall.ENOENT
	}
	return 0
}

// Rename is refused: write run/<job>.go directly.
func (d *runDirNode) Rename(ctx context.Context, name string, newParent fusefs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	d.m.run.refuse("rename", name, errors.New("renaming is not supported in run/: write run/<job>.go directly"))
	return syscall.EPERM
}

// Mkdir is refused: run/ holds files only.
func (d *runDirNode) Mkdir(ctx context.Context, name string, mode uint32, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	d.m.run.refuse("mkdir", name, errors.New("run/ holds files only: write run/<job>.go"))
	return nil, syscall.EPERM
}

// Rmdir finds no folder to remove.
func (d *runDirNode) Rmdir(ctx context.Context, name string) syscall.Errno {
	if _, _, ok := d.m.runFileAttr(name, &gofuse.Attr{}); ok {
		return syscall.ENOTDIR
	}
	return syscall.ENOENT
}

// Mknod is refused.
func (d *runDirNode) Mknod(ctx context.Context, name string, mode, dev uint32, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	d.m.run.refuse("mknod", name, errors.New("run/ holds regular files only: write run/<job>.go"))
	return nil, syscall.EPERM
}

// Link is refused.
func (d *runDirNode) Link(ctx context.Context, target fusefs.InodeEmbedder, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	d.m.run.refuse("link", name, errors.New("links are not supported in run/: write run/<job>.go"))
	return nil, syscall.EPERM
}

// Symlink is refused.
func (d *runDirNode) Symlink(ctx context.Context, target, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	d.m.run.refuse("symlink", name, errors.New("links are not supported in run/: write run/<job>.go"))
	return nil, syscall.EPERM
}

// Getattr reports the file's current attributes.
func (f *runFileNode) Getattr(ctx context.Context, fh fusefs.FileHandle, out *gofuse.AttrOut) syscall.Errno {
	if _, _, ok := f.m.runFileAttr(f.name(), &out.Attr); !ok {
		return syscall.ENOENT
	}
	out.SetTimeout(uncached)
	return 0
}

func (f *runFileNode) name() string {
	switch f.kind {
	case kindReadme:
		return runReadmeFile
	case kindErrors:
		return runErrorsFile
	}
	return f.job + jobSuffixes[f.kind]
}

// Setattr truncates a program; chmod, chown and utimes are accepted and
// ignored. Results cannot be truncated.
func (f *runFileNode) Setattr(ctx context.Context, fh fusefs.FileHandle, in *gofuse.SetAttrIn, out *gofuse.AttrOut) syscall.Errno {
	if size, ok := in.GetSize(); ok {
		if f.kind != kindSource {
			return syscall.EACCES
		}
		if size > maxJobSource {
			return syscall.EFBIG
		}
		if !f.m.run.setSource(f.job, func(old []byte) []byte { return resize(old, int(size)) }) {
			return syscall.ENOENT
		}
		// open(O_TRUNC) truncates this way before the writes come; the
		// close that follows starts the job.
		if h, ok := fh.(*runSourceHandle); ok {
			h.dirty.Store(true)
		}
	}
	return f.Getattr(ctx, fh, out)
}

// Access refuses execution, and writing anything but a program.
func (f *runFileNode) Access(ctx context.Context, mask uint32) syscall.Errno {
	switch {
	case mask&2 != 0 && f.kind != kindSource: // W_OK
		return syscall.EACCES
	case mask&1 != 0: // X_OK
		return syscall.EACCES
	}
	return 0
}

// Open opens a file of run/. Only a program opens for writing; O_TRUNC
// empties it.
func (f *runFileNode) Open(ctx context.Context, flags uint32) (fusefs.FileHandle, uint32, syscall.Errno) {
	r := f.m.run
	writing := flags&syscall.O_ACCMODE != syscall.O_RDONLY || flags&(syscall.O_TRUNC|syscall.O_APPEND) != 0
	if writing && f.kind != kindSource {
		return nil, 0, syscall.EACCES
	}
	const live = gofuse.FOPEN_DIRECT_IO | gofuse.FOPEN_NOFLUSH
	switch f.kind {
	case kindSource:
		h := &runSourceHandle{}
		if flags&syscall.O_TRUNC != 0 {
			if !r.setSource(f.job, func([]byte) []byte { return []byte{} }) {
				return nil, 0, syscall.ENOENT
			}
			h.dirty.Store(true)
		} else if _, ok := r.source(f.job); !ok {
			return nil, 0, syscall.ENOENT
		}
		return h, 0, 0
	case kindReadme:
		return nil, gofuse.FOPEN_KEEP_CACHE | gofuse.FOPEN_NOFLUSH, 0
	case kindOut:
		run := r.currentRun(f.job)
		if run == nil {
			return nil, 0, syscall.ENOENT
		}
		return &runOutHandle{run: run}, live, 0
	case kindStatus:
		r.mu.Lock()
		defer r.mu.Unlock()
		j := r.jobs[f.job]
		if j == nil || j.run == nil {
			return nil, 0, syscall.ENOENT
		}
		return &runSnapshotHandle{data: r.statusText(f.job, j.run)}, live, 0
	case kindErrors:
		r.mu.Lock()
		defer r.mu.Unlock()
		data := r.errorsText()
		if data == nil {
			return nil, 0, syscall.ENOENT
		}
		return &runSnapshotHandle{data: data}, live, 0
	}
	return nil, 0, syscall.ENOENT
}

// Read serves the file. A read of run/<job>.out waits until the run it
// was opened on ends; an interrupt ends the wait with EINTR.
func (f *runFileNode) Read(ctx context.Context, fh fusefs.FileHandle, dest []byte, off int64) (gofuse.ReadResult, syscall.Errno) {
	if off < 0 {
		return nil, syscall.EINVAL
	}
	var data []byte
	switch h := fh.(type) {
	case *runOutHandle:
		select {
		case <-h.run.done:
		default:
			r := f.m.run
			r.waiting.Add(1)
			select {
			case <-h.run.done:
				r.waiting.Add(-1)
			case <-ctx.Done():
				r.waiting.Add(-1)
				return nil, syscall.EINTR
			}
		}
		data = h.run.out
	case *runSnapshotHandle:
		data = h.data
	default:
		switch f.kind {
		case kindReadme:
			data = []byte(runReadme)
		case kindSource:
			src, ok := f.m.run.source(f.job)
			if !ok {
				return nil, syscall.ENOENT
			}
			data = src
		default:
			return nil, syscall.EBADF
		}
	}
	if off >= int64(len(data)) {
		return gofuse.ReadResultData(nil), 0
	}
	end := min(off+int64(len(dest)), int64(len(data)))
	return gofuse.ReadResultData(data[off:end]), 0
}

// Write changes a program; the job starts when the file is closed.
func (f *runFileNode) Write(ctx context.Context, fh fusefs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	if f.kind != kindSource {
		return 0, syscall.EACCES
	}
	if off < 0 || off+int64(len(data)) > maxJobSource {
		return 0, syscall.EFBIG
	}
	ok := f.m.run.setSource(f.job, func(cur []byte) []byte {
		buf := make([]byte, max(len(cur), int(off)+len(data)))
		copy(buf, cur)
		copy(buf[off:], data)
		return buf
	})
	if !ok {
		return 0, syscall.ENOENT
	}
	if h, ok := fh.(*runSourceHandle); ok {
		h.dirty.Store(true)
	}
	return uint32(len(data)), 0
}

// Flush starts the job when its program was written through this handle.
// It returns at once: the job runs in the background.
func (f *runFileNode) Flush(ctx context.Context, fh fusefs.FileHandle) syscall.Errno {
	if h, ok := fh.(*runSourceHandle); ok && h.dirty.Swap(false) {
		f.m.run.start(f.job)
	}
	return 0
}

// Fsync starts the job as Flush does.
func (f *runFileNode) Fsync(ctx context.Context, fh fusefs.FileHandle, flags uint32) syscall.Errno {
	return f.Flush(ctx, fh)
}
