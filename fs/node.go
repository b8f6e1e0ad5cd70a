package fs

import (
	"io"
	iofs "io/fs"
	"slices"
	"strings"
	"time"
)

// node is one file or directory of a Tree. Nodes are immutable once the
// tree (or the server directory they belong to) is built.
type node struct {
	name    string
	isDir   bool
	data    []byte
	modTime time.Time
	dir     *dir        // for directories
	lazy    *lazyServer // for servers/<s> placeholders
}

func (n *node) info() iofs.FileInfo { return fileInfo{n} }

// entries lists a directory, sorted by name.
func (n *node) entries() []iofs.DirEntry {
	if n.dir == nil {
		return nil
	}
	out := make([]iofs.DirEntry, 0, len(n.dir.children))
	for _, c := range n.dir.children {
		out = append(out, iofs.FileInfoToDirEntry(c.info()))
	}
	slices.SortFunc(out, func(a, b iofs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

type fileInfo struct{ n *node }

func (fi fileInfo) Name() string       { return fi.n.name }
func (fi fileInfo) Size() int64        { return int64(len(fi.n.data)) }
func (fi fileInfo) ModTime() time.Time { return fi.n.modTime }
func (fi fileInfo) IsDir() bool        { return fi.n.isDir }
func (fi fileInfo) Sys() any           { return nil }
func (fi fileInfo) Mode() iofs.FileMode {
	if fi.n.isDir {
		return iofs.ModeDir | 0o555
	}
	return 0o444
}

type openFile struct {
	node *node
	r    *strings.Reader
}

func (f *openFile) Stat() (iofs.FileInfo, error) { return f.node.info(), nil }
func (f *openFile) Read(p []byte) (int, error)   { return f.r.Read(p) }
func (f *openFile) ReadAt(p []byte, off int64) (int, error) {
	return f.r.ReadAt(p, off)
}
func (f *openFile) Seek(off int64, whence int) (int64, error) { return f.r.Seek(off, whence) }
func (f *openFile) Close() error                              { return nil }

type openDir struct {
	node    *node
	entries []iofs.DirEntry
	off     int
}

func (d *openDir) Stat() (iofs.FileInfo, error) { return d.node.info(), nil }
func (d *openDir) Read([]byte) (int, error) {
	return 0, &iofs.PathError{Op: "read", Path: d.node.name, Err: ErrIsDir}
}
func (d *openDir) Close() error { return nil }

// ReadDir implements iofs.ReadDirFile.
func (d *openDir) ReadDir(count int) ([]iofs.DirEntry, error) {
	rest := d.entries[d.off:]
	if count <= 0 {
		d.off = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	if count > len(rest) {
		count = len(rest)
	}
	d.off += count
	return rest[:count], nil
}
