package cache

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"

	"github.com/dgraph-io/ristretto/v2/z"
)

// Badger writes through shared memory mappings of files it creates sparse
// (truncated to size, no blocks behind them). When the disk fills, a store
// into such a mapping cannot be backed by a block and the kernel sends
// SIGBUS, which ends the process: no error is ever returned. So the Store
// keeps Badger's files small, gives the files Badger is writing real blocks
// (fallocate) before each write, lets no write in unless the disk has room
// for the files Badger may create without asking (a new memtable, a value
// log file, the tables of a flush and a compaction step), and holds that
// room in a reserve file that it gives back the moment the disk is found
// full, so that Badger's own flushes, and Close, still have it.
const (
	memTableSize     = 1 << 20 // the memtable file is twice this
	valueLogFileSize = 8 << 20 // the value log file is twice this; no value is larger
	baseTableSize    = 1 << 20
	valueThreshold   = 16 << 10 // larger values go to the value log

	reserveBytes = 2*memTableSize + 2*valueLogFileSize + 4*baseTableSize + 1<<20
	reserveName  = "mcpfs-reserve"
)

// The window the check leaves: another process may fill the disk between
// the guard's check and a file Badger creates or grows on its own (a new
// memtable after the write that filled one, the tables of a flush). So
// Badger's mapped files get real blocks when they are made (the patched
// ristretto z package, cmd/internal/thirdparty/ristretto: fallocate, not a
// sparse truncate), and when the disk has none, z.NoSpace gives the
// reserve back and the allocation is tried again: the file Badger needed
// is made from the reserve, and the write goes on. Past the reserve,
// Badger gets ENOSPC as an error instead of a SIGBUS.

// guards are the guards of this process's writable caches: Badger's file
// code gives their reserves back when the disk is full (see noSpace).
var (
	guardsMu sync.Mutex
	guards   = map[*guard]bool{}
)

func init() { z.NoSpace = giveBackReserves }

// watch makes g's reserve one that Badger's file code may take.
func (g *guard) watch() {
	guardsMu.Lock()
	guards[g] = true
	guardsMu.Unlock()
}

// unwatch undoes watch.
func (g *guard) unwatch() {
	guardsMu.Lock()
	delete(guards, g)
	guardsMu.Unlock()
}

// giveBackReserves is z.NoSpace: Badger found no room for a file of its
// own. Every cache's reserve is given back (they rarely are more than
// one); it reports whether there was one to give.
func giveBackReserves() bool {
	guardsMu.Lock()
	list := make([]*guard, 0, len(guards))
	for g := range guards {
		list = append(list, g)
	}
	guardsMu.Unlock()
	freed := false
	for _, g := range list {
		if g.noSpace() {
			freed = true
		}
	}
	return freed
}

// noSpace turns writes off (saying so once) and gives the reserve back,
// reporting whether there was one.
func (g *guard) noSpace() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, err := os.Stat(filepath.Join(g.dir, reserveName))
	had := err == nil
	if !g.full {
		g.full = true
		g.log.Warn("the disk holding the cache is full: mcpfs goes on without keeping anything new in the cache until there is room",
			"dir", g.dir, "why", "no room for a file of the cache's own; its reserve is given back for it")
	}
	g.releaseReserve()
	return had
}

// guard decides whether a write may reach Badger.
type guard struct {
	dir string
	log *slog.Logger

	mu        sync.Mutex
	full      bool             // writes are off until there is room again
	off       error            // writes are off for good (a read-only dir)
	allocated map[string]int64 // Badger files given blocks, by name
}

func newGuard(dir string, log *slog.Logger) *guard {
	return &guard{dir: dir, log: log, allocated: map[string]int64{}}
}

// errFull means the guard kept a write out: the disk has no room.
var errFull = errors.New("the disk holding the cache is full")

// admit reports whether a write of about n bytes may go to Badger now. It
// says once (a warning) when the disk turns full and once (info) when there
// is room again; in between writes are skipped silently.
func (g *guard) admit(n int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.off != nil {
		return g.off
	}
	free, err := freeBytes(g.dir)
	if err != nil {
		free = 1 << 62 // unknown: let it through
	}
	need := int64(reserveBytes + 2*n)
	if g.full {
		need += reserveBytes // hysteresis: the reserve given back must not count
	}
	if free < need {
		if !g.full {
			g.full = true
			g.releaseReserve()
			g.log.Warn("the disk holding the cache is full: mcpfs goes on without keeping anything new in the cache until there is room",
				"dir", g.dir, "free", free, "need", need)
		}
		return fmt.Errorf("%w (%d bytes free, %d needed)", errFull, free, need)
	}
	if g.full {
		g.full = false
		g.log.Info("there is room on the cache's disk again: caching again", "dir", g.dir, "free", free)
		g.makeReserve()
	}
	if err := g.allocateLocked(); err != nil {
		g.full = true
		g.releaseReserve()
		g.log.Warn("the disk holding the cache is full: mcpfs goes on without keeping anything new in the cache until there is room",
			"dir", g.dir, "err", err)
		return fmt.Errorf("%w: %w", errFull, err)
	}
	return nil
}

// failed is told about a write Badger refused. An error of the
// environment (no space, no permission, a read-only file system) turns
// writes off, saying so once; others are only logged.
func (g *guard) failed(what string, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case isNoSpace(err):
		if !g.full {
			g.full = true
			g.releaseReserve()
			g.log.Warn("the disk holding the cache is full: mcpfs goes on without keeping anything new in the cache until there is room", "dir", g.dir, "err", err)
		}
	case isEnvironment(err):
		if g.off == nil {
			g.off = err
			g.log.Warn("the cache cannot be written: mcpfs goes on with what it holds", "dir", g.dir, "err", err)
		}
	default:
		g.log.Warn(what, "err", err)
	}
}

// allocateLocked gives every memtable and value log file blocks for its
// whole size. Files already done are skipped; Badger never grows them.
func (g *guard) allocateLocked() error {
	entries, err := os.ReadDir(g.dir)
	if err != nil {
		return nil // Badger will say what is wrong
	}
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".mem") && !strings.HasSuffix(name, ".vlog") {
			continue
		}
		seen[name] = true
		info, err := e.Info()
		if err != nil || g.allocated[name] == info.Size() {
			continue
		}
		f, err := os.OpenFile(filepath.Join(g.dir, name), os.O_RDWR, 0)
		if err != nil {
			continue
		}
		err = allocate(f, info.Size())
		f.Close()
		if err != nil && !errors.Is(err, syscall.EOPNOTSUPP) {
			return fmt.Errorf("allocate %s: %w", name, err)
		}
		g.allocated[name] = info.Size()
	}
	for name := range g.allocated {
		if !seen[name] {
			delete(g.allocated, name)
		}
	}
	return nil
}

// makeReserve creates the reserve file, best effort.
func (g *guard) makeReserve() {
	p := filepath.Join(g.dir, reserveName)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	if err := allocate(f, reserveBytes); err != nil {
		g.log.Debug("no reserve file for the cache", "err", err)
		_ = f.Truncate(0)
	}
}

// releaseReserve gives the reserve file's blocks back to the file system.
func (g *guard) releaseReserve() {
	_ = os.Remove(filepath.Join(g.dir, reserveName))
}

// roomForClose reports whether Badger's last flush on Close (a table of
// up to the memtable's size, written through a mapping) has room, giving
// the reserve back first if the disk is nearly full.
func (g *guard) roomForClose() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	free, err := freeBytes(g.dir)
	if err != nil || free >= reserveBytes {
		return true
	}
	g.releaseReserve()
	free, err = freeBytes(g.dir)
	return err != nil || free >= 4*memTableSize
}

// isNoSpace reports whether err says the disk or a quota is full. Badger
// flattens the errors it wraps into text, so the text counts too.
func isNoSpace(err error) bool {
	return errnoIn(err, syscall.ENOSPC, syscall.EDQUOT)
}

// isEnvironment reports whether err comes from where the cache lives (no
// space, no permission, a read-only file system) rather than from what is
// in it.
func isEnvironment(err error) bool {
	return errnoIn(err, syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS, syscall.EACCES, syscall.EPERM)
}

func errnoIn(err error, errnos ...syscall.Errno) bool {
	if err == nil {
		return false
	}
	for _, e := range errnos {
		if errors.Is(err, e) || strings.Contains(err.Error(), e.Error()) {
			return true
		}
	}
	return false
}

// noFault turns a fault on a mapped file met by this goroutine (a cache
// file truncated under it, an I/O error) and any panic in Badger into an
// error in *err. Use as: defer noFault(&err)() at the top of a function.
func noFault(err *error) func() {
	old := debug.SetPanicOnFault(true)
	return func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			*err = fmt.Errorf("badger: %v", r)
		}
	}
}
