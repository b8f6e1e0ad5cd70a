package skills

import (
	"bytes"
	"io"
	iofs "io/fs"
	"path"
	"sort"
	"strings"
	"time"
)

// overlay is a tree whose skills/ folder is replaced by a set of skills
// held in memory; everything else comes from base. It is a struct with a
// map, so not comparable: exec/check does not keep its packages after
// the check, as it does for the trees it sees again.
type overlay struct {
	base   iofs.FS
	skills map[string]map[string][]byte
}

const skillsDir = "skills"

var (
	_ iofs.ReadDirFS  = overlay{}
	_ iofs.ReadFileFS = overlay{}
	_ iofs.StatFS     = overlay{}
)

// split reports whether p is skills/ or inside it, and the skill and file.
func (o overlay) split(p string) (inside bool, skill, file string) {
	if p == skillsDir {
		return true, "", ""
	}
	rest, ok := strings.CutPrefix(p, skillsDir+"/")
	if !ok {
		return false, "", ""
	}
	skill, file, _ = strings.Cut(rest, "/")
	return true, skill, file
}

func (o overlay) Open(name string) (iofs.File, error) {
	inside, skill, file := o.split(name)
	if !inside {
		if o.base == nil {
			return nil, &iofs.PathError{Op: "open", Path: name, Err: iofs.ErrNotExist}
		}
		return o.base.Open(name)
	}
	info, err := o.Stat(name)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		entries, _ := o.ReadDir(name)
		return &memDir{info: info, entries: entries}, nil
	}
	return &memFile{info: info, Reader: bytes.NewReader(o.skills[skill][file])}, nil
}

func (o overlay) ReadFile(name string) ([]byte, error) {
	inside, skill, file := o.split(name)
	if !inside {
		if o.base == nil {
			return nil, &iofs.PathError{Op: "read", Path: name, Err: iofs.ErrNotExist}
		}
		return iofs.ReadFile(o.base, name)
	}
	data, ok := o.skills[skill][file]
	if !ok || file == "" || strings.Contains(file, "/") {
		return nil, &iofs.PathError{Op: "read", Path: name, Err: iofs.ErrNotExist}
	}
	return bytes.Clone(data), nil
}

func (o overlay) Stat(name string) (iofs.FileInfo, error) {
	inside, skill, file := o.split(name)
	if !inside {
		if o.base == nil {
			return nil, &iofs.PathError{Op: "stat", Path: name, Err: iofs.ErrNotExist}
		}
		return iofs.Stat(o.base, name)
	}
	switch {
	case skill == "":
		return memInfo{name: skillsDir, dir: true}, nil
	case file == "":
		if _, ok := o.skills[skill]; ok {
			return memInfo{name: skill, dir: true}, nil
		}
	default:
		if data, ok := o.skills[skill][file]; ok && !strings.Contains(file, "/") {
			return memInfo{name: file, size: int64(len(data))}, nil
		}
	}
	return nil, &iofs.PathError{Op: "stat", Path: name, Err: iofs.ErrNotExist}
}

func (o overlay) ReadDir(name string) ([]iofs.DirEntry, error) {
	inside, skill, file := o.split(name)
	if !inside {
		if o.base == nil {
			return nil, &iofs.PathError{Op: "readdir", Path: name, Err: iofs.ErrNotExist}
		}
		return iofs.ReadDir(o.base, name)
	}
	var out []iofs.DirEntry
	switch {
	case skill == "":
		for s := range o.skills {
			out = append(out, iofs.FileInfoToDirEntry(memInfo{name: s, dir: true}))
		}
	case file == "":
		files, ok := o.skills[skill]
		if !ok {
			return nil, &iofs.PathError{Op: "readdir", Path: name, Err: iofs.ErrNotExist}
		}
		for f, data := range files {
			out = append(out, iofs.FileInfoToDirEntry(memInfo{name: f, size: int64(len(data))}))
		}
	default:
		return nil, &iofs.PathError{Op: "readdir", Path: name, Err: iofs.ErrNotExist}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string       { return path.Base(i.name) }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }
func (i memInfo) Mode() iofs.FileMode {
	if i.dir {
		return iofs.ModeDir | 0o555
	}
	return 0o444
}

type memFile struct {
	info iofs.FileInfo
	*bytes.Reader
}

func (f *memFile) Stat() (iofs.FileInfo, error) { return f.info, nil }
func (f *memFile) Close() error                 { return nil }

type memDir struct {
	info    iofs.FileInfo
	entries []iofs.DirEntry
}

func (d *memDir) Stat() (iofs.FileInfo, error) { return d.info, nil }
func (d *memDir) Read([]byte) (int, error)     { return 0, io.EOF }
func (d *memDir) Close() error                 { return nil }
func (d *memDir) ReadDir(n int) ([]iofs.DirEntry, error) {
	if n <= 0 {
		out := d.entries
		d.entries = nil
		return out, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	out := d.entries[:n]
	d.entries = d.entries[n:]
	return out, nil
}
