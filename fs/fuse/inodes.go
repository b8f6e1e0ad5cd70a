package fuse

import (
	"hash/maphash"
	"sync"
	"time"

	gofuse "github.com/hanwen/go-fuse/v2/fuse"
)

// inodeTable hands out inode numbers: one per directory path for the life
// of the mount, and one per (file path, content) so that a file inode never
// changes content.
type inodeTable struct {
	seed maphash.Seed

	mu    sync.Mutex
	next  uint64
	dirs  map[string]*dirID
	files map[string]fileID // the latest content seen at each path
}

type dirID struct {
	ino   uint64
	mtime time.Time
}

type fileID struct {
	ino   uint64
	sum   uint64
	mtime time.Time
}

func newInodeTable() *inodeTable {
	return &inodeTable{
		seed:  maphash.MakeSeed(),
		next:  gofuse.FUSE_ROOT_ID + 1,
		dirs:  map[string]*dirID{".": {ino: gofuse.FUSE_ROOT_ID}},
		files: map[string]fileID{},
	}
}

func (t *inodeTable) sum(data []byte) uint64 { return maphash.Bytes(t.seed, data) }

// dir returns the inode number and modification time of the directory at
// p; mtime is recorded the first time p is seen.
func (t *inodeTable) dir(p string, mtime time.Time) (uint64, time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d, ok := t.dirs[p]
	if !ok {
		d = &dirID{ino: t.next, mtime: mtime}
		t.next++
		t.dirs[p] = d
	}
	if d.mtime.IsZero() {
		d.mtime = mtime
	}
	return d.ino, d.mtime
}

// touchDir records that the listing of the directory at p changed.
func (t *inodeTable) touchDir(p string, mtime time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if d, ok := t.dirs[p]; ok {
		d.mtime = mtime
	}
}

// file returns the inode number and modification time of the file at p
// with content sum. The same content keeps its number; new content gets
// a new one.
func (t *inodeTable) file(p string, sum uint64, mtime time.Time) (uint64, time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, ok := t.files[p]
	if !ok || f.sum != sum {
		f = fileID{ino: t.next, sum: sum, mtime: mtime}
		t.next++
		t.files[p] = f
	}
	return f.ino, f.mtime
}
