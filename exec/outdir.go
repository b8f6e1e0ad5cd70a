package exec

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// What an output directory keeps: the saved output of recent runs, within
// a count, a size and an age; the oldest finished files go first. The
// size bound holds at every moment in this process: a run takes room
// before it writes, and when there is none left after removing finished
// files its saved output stops there.
const (
	outputKeepFiles = 64
	outputKeepBytes = 1 << 30
	outputKeepAge   = 7 * 24 * time.Hour
)

// ErrOutputDir is the error of a missing or unsafe output directory.
var ErrOutputDir = errors.New("no safe output directory")

// outDir is the bookkeeping of one output directory in this process.
type outDir struct {
	mu     sync.Mutex
	path   string
	keep   int64            // outputKeepBytes; tests lower it
	used   int64            // bytes of run-* files, finished and being written
	active map[string]int64 // files being written: the bytes reserved for each
	err    error            // why the directory cannot be used
}

var (
	outDirsMu sync.Mutex
	outDirs   = map[string]*outDir{}
)

// openOutDir returns the bookkeeping of dir, checking it the first time:
// it must be an absolute path to a directory (created 0700 when missing)
// that the effective user owns and no one else can enter; a directory the
// user owns with looser permissions is narrowed to 0700. Anything else
// (empty, relative, a symlink, another user's directory such as a shared
// /tmp/mcpfs-output) is refused with ErrOutputDir.
func openOutDir(dir string) *outDir {
	outDirsMu.Lock()
	defer outDirsMu.Unlock()
	if d := outDirs[dir]; d != nil {
		return d
	}
	d := &outDir{path: dir, keep: outputKeepBytes, active: map[string]int64{}}
	d.err = checkOutputDir(dir)
	if d.err == nil {
		d.scan()
	}
	outDirs[dir] = d
	return d
}

// CheckOutputDir reports whether dir is fit to hold saved output (see
// Options.OutputDir), creating it 0700 when it is missing.
func CheckOutputDir(dir string) error {
	d := openOutDir(dir)
	return d.err
}

func checkOutputDir(dir string) error {
	if dir == "" {
		return fmt.Errorf("%w: none was given", ErrOutputDir)
	}
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("%w: %q is not an absolute path", ErrOutputDir, dir)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return fmt.Errorf("%w: %v", ErrOutputDir, err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%w: %v", ErrOutputDir, err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("%w: open %s: %v (it must be a directory, not a symlink)", ErrOutputDir, dir, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%w: %v", ErrOutputDir, err)
	}
	if int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%w: %s belongs to uid %d, not to this user (%d): give a directory of your own, such as <data dir>/output", ErrOutputDir, dir, st.Uid, os.Geteuid())
	}
	if st.Mode&0o077 != 0 {
		if err := unix.Fchmod(fd, 0o700); err != nil {
			return fmt.Errorf("%w: %s is open to other users and cannot be narrowed: %v", ErrOutputDir, dir, err)
		}
	}
	return nil
}

// scan counts the saved output already in the directory and prunes it.
func (d *outDir) scan() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.prune(0, time.Now())
}

type savedFile struct {
	name string
	mod  time.Time
	size int64
}

// saved lists the run-* files of the directory, newest first.
func (d *outDir) saved() []savedFile {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return nil
	}
	var files []savedFile
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !isSavedOutput(name) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		files = append(files, savedFile{name, info.ModTime(), info.Size()})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.After(files[j].mod) })
	return files
}

func isSavedOutput(name string) bool {
	return strings.HasPrefix(name, "run-") && (strings.HasSuffix(name, ".stdout") || strings.HasSuffix(name, ".stderr"))
}

// prune removes finished files beyond what the directory keeps (the
// newest outputKeepFiles-1, leaving room for a new one, none older than
// outputKeepAge) and then, oldest first, until need more bytes fit; d.mu
// is held. Files being written are never removed.
func (d *outDir) prune(need int64, now time.Time) {
	files := d.saved() // newest first
	var finished []savedFile
	d.used = 0
	for _, f := range files {
		if _, ok := d.active[f.name]; !ok {
			finished = append(finished, f)
			d.used += f.size
		}
	}
	for _, reserved := range d.active {
		d.used += reserved
	}
	kept := len(d.active)
	var stay []savedFile
	for _, f := range finished {
		if kept >= outputKeepFiles-1 || now.Sub(f.mod) > outputKeepAge {
			if os.Remove(filepath.Join(d.path, f.name)) == nil {
				d.used -= f.size
			}
			continue
		}
		kept++
		stay = append(stay, f)
	}
	for i := len(stay) - 1; i >= 0 && d.used+need > d.keep; i-- {
		if os.Remove(filepath.Join(d.path, stay[i].name)) == nil {
			d.used -= stay[i].size
		}
	}
}

// create makes a new file for stream in the directory, 0600, refusing to
// follow a symlink.
func (d *outDir) create(stream string) (*os.File, error) {
	if d.err != nil {
		return nil, d.err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.prune(0, time.Now())
	var b [8]byte
	rand.Read(b[:])
	name := "run-" + hex.EncodeToString(b[:]) + "." + stream
	p := filepath.Join(d.path, name)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	d.active[name] = 0
	return f, nil
}

// reserve takes room for n more bytes of the file at p and returns how
// many it got: fewer when the directory is full even after pruning.
func (d *outDir) reserve(p string, n int64) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.used+n > d.keep {
		d.prune(n, time.Now())
	}
	got := min(n, max(d.keep-d.used, 0))
	d.used += got
	d.active[filepath.Base(p)] += got
	return got
}

// finish marks the file at p as written.
func (d *outDir) finish(p string) {
	d.mu.Lock()
	delete(d.active, filepath.Base(p))
	d.mu.Unlock()
}

// SaveOutput saves data, a whole stream ("stdout" or "stderr"), in a new
// file of dir within the directory's bounds, and returns its path. It
// fails with ErrOutputDir when dir is not safe (see Options.OutputDir)
// and when the directory has no room left for all of data.
func SaveOutput(dir, stream string, data []byte) (string, error) {
	d := openOutDir(dir)
	f, err := d.create(stream)
	if err != nil {
		return "", err
	}
	defer d.finish(f.Name())
	got := d.reserve(f.Name(), int64(len(data)))
	_, err = f.Write(data[:got])
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && got < int64(len(data)) {
		err = fmt.Errorf("%w: the saved output there has reached its limit of %d MiB", ErrOutputDir, d.keep>>20)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
