package fuse

import (
	"context"
	"sync/atomic"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	gofuse "github.com/hanwen/go-fuse/v2/fuse"
)

// writableFile is a file of the writable folders, skills/<name>/ and
// run/. It translates FUSE requests into calls on its fileOps and keeps
// what they share: a handle turns dirty when written or truncated, and
// its close (FLUSH) or fsync commits the file once per change: saving
// the skill, or starting the job. The kernel caches neither its entry
// nor its attributes: the content changes under it.
type writableFile struct {
	fusefs.Inode
	ops fileOps
}

// fileOps is what one kind of writable file does. Each call gets the
// file's inode, from which skill files find their current path (a rename
// moves them).
type fileOps interface {
	// attr fills the file's attributes; ENOENT when it is gone.
	attr(in *fusefs.Inode, a *gofuse.Attr) syscall.Errno
	// open opens the file: state is what the handle reads later (nil to
	// read the current content), truncated reports an O_TRUNC that
	// emptied it.
	open(in *fusefs.Inode, flags uint32) (state any, fuseFlags uint32, truncated bool, errno syscall.Errno)
	read(ctx context.Context, in *fusefs.Inode, state any, off int64, size int) ([]byte, syscall.Errno)
	write(in *fusefs.Inode, data []byte, off int64) syscall.Errno
	truncate(in *fusefs.Inode, size uint64) syscall.Errno
	// commit acts on a change written through a handle, on close and
	// fsync; an error keeps the handle dirty.
	commit(ctx context.Context, in *fusefs.Inode) syscall.Errno
}

// writableHandle is an open writable file.
type writableHandle struct {
	dirty atomic.Bool // written since the last commit
	state any         // from fileOps.open
}

var (
	_ = (fusefs.NodeGetattrer)((*writableFile)(nil))
	_ = (fusefs.NodeSetattrer)((*writableFile)(nil))
	_ = (fusefs.NodeAccesser)((*writableFile)(nil))
	_ = (fusefs.NodeOpener)((*writableFile)(nil))
	_ = (fusefs.NodeReader)((*writableFile)(nil))
	_ = (fusefs.NodeWriter)((*writableFile)(nil))
	_ = (fusefs.NodeFlusher)((*writableFile)(nil))
	_ = (fusefs.NodeFsyncer)((*writableFile)(nil))
)

// newWritable makes the inode of a writable file under parent, with the
// attributes out already holds.
func newWritable(ctx context.Context, parent *fusefs.Inode, ops fileOps, out *gofuse.EntryOut) *fusefs.Inode {
	out.SetEntryTimeout(uncached)
	out.SetAttrTimeout(uncached)
	return parent.NewInode(ctx, &writableFile{ops: ops}, fusefs.StableAttr{Mode: syscall.S_IFREG, Ino: out.Attr.Ino})
}

// newHandle is the handle of a file just created: dirty, so that closing
// it commits even when nothing was written.
func newHandle() *writableHandle {
	h := &writableHandle{}
	h.dirty.Store(true)
	return h
}

func markDirty(fh fusefs.FileHandle) {
	if h, ok := fh.(*writableHandle); ok {
		h.dirty.Store(true)
	}
}

// Getattr reports the file's current attributes.
func (f *writableFile) Getattr(ctx context.Context, fh fusefs.FileHandle, out *gofuse.AttrOut) syscall.Errno {
	if errno := f.ops.attr(&f.Inode, &out.Attr); errno != 0 {
		return errno
	}
	out.SetTimeout(uncached)
	return 0
}

// Setattr truncates; chmod, chown and utimes are accepted and ignored.
// A truncate is no commit: open(O_TRUNC) truncates this way before the
// writes come, and the close that follows commits.
func (f *writableFile) Setattr(ctx context.Context, fh fusefs.FileHandle, in *gofuse.SetAttrIn, out *gofuse.AttrOut) syscall.Errno {
	if size, ok := in.GetSize(); ok {
		if errno := f.ops.truncate(&f.Inode, size); errno != 0 {
			return errno
		}
		markDirty(fh)
	}
	return f.Getattr(ctx, fh, out)
}

// Access answers from the owner's mode bits: the files that may not be
// written are 0444, and nothing is executable.
func (f *writableFile) Access(ctx context.Context, mask uint32) syscall.Errno {
	var a gofuse.Attr
	if errno := f.ops.attr(&f.Inode, &a); errno != 0 {
		return errno
	}
	switch {
	case mask&2 != 0 && a.Mode&0o200 == 0: // W_OK
		return syscall.EACCES
	case mask&1 != 0: // X_OK
		return syscall.EACCES
	}
	return 0
}

// Open opens the file.
func (f *writableFile) Open(ctx context.Context, flags uint32) (fusefs.FileHandle, uint32, syscall.Errno) {
	state, fuseFlags, truncated, errno := f.ops.open(&f.Inode, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	h := &writableHandle{state: state}
	h.dirty.Store(truncated)
	return h, fuseFlags, 0
}

// Read serves the file.
func (f *writableFile) Read(ctx context.Context, fh fusefs.FileHandle, dest []byte, off int64) (gofuse.ReadResult, syscall.Errno) {
	if off < 0 {
		return nil, syscall.EINVAL
	}
	var state any
	if h, ok := fh.(*writableHandle); ok {
		state = h.state
	}
	data, errno := f.ops.read(ctx, &f.Inode, state, off, len(dest))
	if errno != 0 {
		return nil, errno
	}
	return gofuse.ReadResultData(data), 0
}

// Write changes the file; the change is committed on close.
func (f *writableFile) Write(ctx context.Context, fh fusefs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	if errno := f.ops.write(&f.Inode, data, off); errno != 0 {
		return 0, errno
	}
	markDirty(fh)
	return uint32(len(data)), 0
}

// Flush commits the file when it was changed through this handle: a skill
// is saved (close(2) fails with EIO when it is invalid), a job starts.
func (f *writableFile) Flush(ctx context.Context, fh fusefs.FileHandle) syscall.Errno {
	h, ok := fh.(*writableHandle)
	if !ok || !h.dirty.Swap(false) {
		return 0
	}
	if errno := f.ops.commit(ctx, &f.Inode); errno != 0 {
		h.dirty.Store(true)
		return errno
	}
	return 0
}

// Fsync commits as Flush does.
func (f *writableFile) Fsync(ctx context.Context, fh fusefs.FileHandle, flags uint32) syscall.Errno {
	return f.Flush(ctx, fh)
}

// sliceAt returns up to size bytes of data at off.
func sliceAt(data []byte, off int64, size int) []byte {
	if off >= int64(len(data)) {
		return nil
	}
	return data[off:min(off+int64(size), int64(len(data)))]
}
