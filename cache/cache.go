package cache

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/mcpfs/mcpfs/discovery/catalog"
)

// Defaults for the zero values of Options.
const (
	DefaultMaxResultBytes      = 1 << 20  // one result
	DefaultMaxTotalResultBytes = 64 << 20 // all results together
)

// Errors of Open and of writes, wrapped; test them with errors.Is.
var (
	// ErrLocked means another process has the cache open. Badger allows one
	// process per directory; mcpfs then runs without the cache.
	ErrLocked = errors.New("the cache is in use by another mcpfs process")
	// ErrUnavailable means the cache's directory can neither be written
	// (no space, no permission, a read-only file system) nor read.
	ErrUnavailable = errors.New("the cache cannot be used here")
	// ErrReadOnly means the Store was opened read-only (see Store.ReadOnly).
	ErrReadOnly = errors.New("the cache is open read-only")
)

// Key prefixes. Tool listings never expire; results carry a TTL.
var (
	prefixTools  = []byte("tools/")
	prefixResult = []byte("result/")
)

// toolsFormat is the version of the tool listings stored as JSON by
// earlier versions (now they are stored in the binary form of
// listing.go); entries of another version are misses.
const toolsFormat = 1

// Options tunes a Store. The zero value is ready to use.
type Options struct {
	// Logger receives warnings (a corrupt cache set aside, a failed write)
	// and Badger's own messages at debug level. Nil discards them.
	Logger *slog.Logger
	// InMemory keeps everything in memory and ignores the directory (for
	// tests).
	InMemory bool
	// MaxResultBytes bounds one cached result; larger results are not
	// kept. Zero means DefaultMaxResultBytes.
	MaxResultBytes int
	// MaxTotalResultBytes bounds all cached results; past it, the results
	// closest to expiry are dropped. Zero means DefaultMaxTotalResultBytes.
	MaxTotalResultBytes int64
}

// Store is mcpfs's cache in one Badger directory. It implements
// discovery.Cache. All methods are safe for concurrent use.
//
// Nothing a Store does ends the process: a full disk, a read-only or
// unwritable directory turn writes off (said once in the log) and the
// cache goes on serving what it holds; see the guard in guard.go.
type Store struct {
	db       *badger.DB
	dir      string
	log      *slog.Logger
	opts     Options
	guard    *guard
	readOnly error // why the Store is read-only; nil when writable

	mu          sync.Mutex // serialises result writes and eviction
	resultBytes int64      // estimate of the live results' bytes

	// Closing stopReclaim ends the loop of startReclaiming, which closes
	// reclaimDone; nil when it does not run.
	stopReclaim, reclaimDone chan struct{}
	stopOnce                 sync.Once
}

// DefaultDir is the cache's directory when no data dir is given:
// <user cache dir>/mcpfs/cache.
func DefaultDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the user cache dir (give --data-dir): %w", err)
	}
	return filepath.Join(base, "mcpfs", "cache"), nil
}

// Open opens the cache in dir, creating it (mode 0700) if needed.
//
//   - If another process holds the directory, the error wraps ErrLocked, at
//     once.
//   - If the directory cannot be written (a full disk, a read-only file
//     system, no permission) but holds a cache, that cache is opened
//     read-only: a warning says why, loads work, stores are skipped (see
//     ReadOnly). If there is nothing to read either, the error wraps
//     ErrUnavailable. Neither case touches what is in the directory.
//   - Only a cache Badger cannot read in a writable directory with room
//     (corrupt or truncated files, a format it does not know) is set aside,
//     renamed to dir.corrupt (replacing an older copy: at most one is
//     kept), with a warning, and an empty cache is opened in its place.
func Open(dir string, opts Options) (*Store, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.MaxResultBytes <= 0 {
		opts.MaxResultBytes = DefaultMaxResultBytes
	}
	if opts.MaxTotalResultBytes <= 0 {
		opts.MaxTotalResultBytes = DefaultMaxTotalResultBytes
	}
	s := &Store{dir: dir, log: opts.Logger, opts: opts, guard: newGuard(dir, opts.Logger)}
	if opts.InMemory {
		db, err := openBadger(dir, opts, false, nil)
		if err != nil {
			return nil, fmt.Errorf("open cache in memory: %w", err)
		}
		s.db = db
		return s, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open cache %s: %w: %w", dir, ErrUnavailable, err)
	}
	_ = os.Chmod(dir, 0o700)

	var db *badger.DB
	var err error
	if s.readOnly = unwritable(dir); s.readOnly == nil {
		db, err = openBadger(dir, opts, false, s.guard)
		switch {
		case err == nil:
		case errors.Is(err, ErrLocked):
			return nil, fmt.Errorf("open cache %s: %w", dir, err)
		case isEnvironment(err):
			s.readOnly = err
		default:
			if db, err = s.setAside(err); err != nil {
				return nil, err
			}
		}
	}
	if s.readOnly != nil {
		db, err = openBadger(dir, opts, true, s.guard)
		if errors.Is(err, ErrLocked) {
			return nil, fmt.Errorf("open cache %s: %w", dir, err)
		}
		if err != nil && (errors.Is(err, badger.ErrTruncateNeeded) || strings.Contains(err.Error(), "truncate required")) {
			return nil, fmt.Errorf("open cache %s: %w: %w; it holds last writes that only a writable open can read back, which it will once there is room", dir, ErrUnavailable, s.readOnly)
		}
		if err != nil {
			return nil, fmt.Errorf("open cache %s: %w: %w (and it cannot be read: %v)", dir, ErrUnavailable, s.readOnly, err)
		}
		s.guard.off = fmt.Errorf("%w: %w", ErrReadOnly, s.readOnly)
		s.log.Warn("the cache is read-only: cached listings and results are served, nothing new is kept", "dir", dir, "why", s.readOnly)
	} else {
		s.guard.makeReserve()
		_ = s.guard.admit(0) // gives Badger's files their blocks now
		if !opts.InMemory {
			s.guard.watch()
		}
	}
	s.db = db
	if s.resultBytes, err = s.countResults(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open cache %s: %w", dir, err)
	}
	if s.readOnly == nil {
		s.startReclaiming()
	}
	return s, nil
}

// unwritable says why dir cannot take Badger's writes now (no permission,
// a read-only file system, too little free space), or nil.
func unwritable(dir string) error {
	probe := filepath.Join(dir, ".mcpfs-probe")
	f, err := os.OpenFile(probe, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	os.Remove(probe)
	if free, err := freeBytes(dir); err == nil && free < reserveBytes {
		return fmt.Errorf("%w (%d bytes free, %d needed)", errFull, free, reserveBytes)
	}
	return nil
}

// setAside moves a cache Badger could not open (why) to dir.corrupt,
// replacing an older copy, and opens an empty one.
func (s *Store) setAside(why error) (*badger.DB, error) {
	aside := s.dir + ".corrupt"
	if err := os.RemoveAll(aside); err != nil {
		return nil, fmt.Errorf("open cache %s: %w (and an older copy set aside, %s, could not be removed: %v; remove it by hand)", s.dir, why, aside, err)
	}
	if err := os.Rename(s.dir, aside); err != nil {
		return nil, fmt.Errorf("open cache %s: %w (and it could not be set aside: %v; remove it by hand)", s.dir, why, err)
	}
	s.log.Warn("the cache could not be read; set it aside and starting an empty one", "dir", s.dir, "set-aside", aside, "err", why)
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("open cache %s: %w", s.dir, err)
	}
	db, err := openBadger(s.dir, s.opts, false, s.guard)
	if err != nil {
		return nil, fmt.Errorf("open cache %s: %w", s.dir, err)
	}
	return db, nil
}

// openBadger opens the database, turning Badger's lock failure into
// ErrLocked and a panic on corrupt files into an error. Badger's messages
// that the disk is full go to g (nil for an in-memory cache).
func openBadger(dir string, opts Options, readOnly bool, g *guard) (db *badger.DB, err error) {
	bo := badger.DefaultOptions(dir).
		WithInMemory(opts.InMemory).
		WithReadOnly(readOnly).
		WithLogger(badgerLogger{opts.Logger, g}).
		WithNumVersionsToKeep(1).
		WithMemTableSize(memTableSize).
		WithNumMemtables(2).
		WithBaseTableSize(baseTableSize).
		WithValueThreshold(valueThreshold).
		WithValueLogFileSize(valueLogFileSize).
		WithBlockCacheSize(8 << 20).
		WithNumCompactors(2).
		WithNumGoroutines(2).
		WithMetricsEnabled(false)
	if opts.InMemory {
		bo = bo.WithDir("").WithValueDir("")
	}
	defer noFault(&err)()
	db, err = badger.Open(bo)
	if err != nil && strings.Contains(err.Error(), "Cannot acquire directory lock") {
		return nil, fmt.Errorf("%w (%s holds %s)", ErrLocked, lockHolder(dir), dir)
	}
	return db, err
}

// lockHolder names the process in Badger's pid file, if it says.
func lockHolder(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "LOCK"))
	if pid := strings.TrimSpace(string(b)); err == nil && pid != "" {
		return "process " + pid
	}
	return "another process"
}

// ReadOnly says why the Store keeps nothing new (a read-only or unwritable
// directory, a disk that was full when it was opened), or nil when it is
// writable. A writable Store can still skip writes while its disk is full.
func (s *Store) ReadOnly() error { return s.readOnly }

// Dir returns the cache's directory.
func (s *Store) Dir() string { return s.dir }

// Close writes out what is in memory and releases the directory.
//
// On a disk too full for Badger's last flush, Close leaves the database
// open instead (its files and lock are released when the process exits):
// what was written is in Badger's write-ahead log already and is read back
// on the next Open, as after a kill -9, while a flush into a full disk
// would end the process with SIGBUS.
func (s *Store) Close() (err error) {
	s.stopReclaiming()
	s.guard.unwatch()
	if !s.opts.InMemory && s.readOnly == nil && !s.guard.roomForClose() {
		s.log.Warn("the disk holding the cache is full: leaving the cache's last writes in its log, to be read back on the next start", "dir", s.dir)
		return nil
	}
	defer noFault(&err)()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close cache %s: %w", s.dir, err)
	}
	return nil
}

// view runs f in a read transaction; a fault or panic becomes an error.
func (s *Store) view(f func(txn *badger.Txn) error) (err error) {
	defer noFault(&err)()
	return s.db.View(f)
}

// update runs f in a write transaction of about n bytes if the guard lets
// it in, and tells the guard when Badger refuses it. It returns an error
// only for the caller's log; the guard has said what matters.
func (s *Store) update(n int, f func(txn *badger.Txn) error) (err error) {
	if !s.opts.InMemory {
		if err := s.guard.admit(n); err != nil {
			return err
		}
	}
	func() {
		defer noFault(&err)()
		err = s.db.Update(f)
	}()
	return err
}

// writeFailed reports a failed write: environment errors through the
// guard (said once), the rest as a warning.
func (s *Store) writeFailed(what string, err error, args ...any) {
	switch {
	case errors.Is(err, errFull) || errors.Is(err, ErrReadOnly):
		s.log.Debug(what+": skipped", append(args, "err", err)...)
	case isEnvironment(err):
		s.guard.failed(what, err)
	default:
		s.log.Warn(what, append(args, "err", err)...)
	}
}

var gzipMagic = []byte{0x1f, 0x8b}

// storedTools is the JSON of a cached tool listing.
type storedTools struct {
	Format int `json:"format"`
	catalog.CachedTools
}

// LoadTools returns the cached listing of the server with key (see
// discovery.ServerKey).
func (s *Store) LoadTools(key string) (catalog.CachedTools, bool) {
	var (
		ct catalog.CachedTools
		ok bool
	)
	err := s.view(func(txn *badger.Txn) error {
		item, err := txn.Get(append(slices.Clip(prefixTools), key...))
		if err != nil {
			return err
		}
		// A copy: the tools' raw JSON points into it.
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		if bytes.HasPrefix(v, gzipMagic) { // neither JSON nor the binary form starts so
			zr, err := gzip.NewReader(bytes.NewReader(v))
			if err != nil {
				return err
			}
			if v, err = io.ReadAll(zr); err != nil {
				return err
			}
		}
		if bytes.HasPrefix(v, []byte(listingMagic)) {
			ct, ok, err = decodeListing(v)
			return err
		}
		// A listing stored as JSON by an earlier version.
		var st storedTools
		if err := json.Unmarshal(v, &st); err != nil {
			return err
		}
		ct, ok = st.CachedTools, st.Format == toolsFormat
		return nil
	})
	if err != nil {
		if !errors.Is(err, badger.ErrKeyNotFound) {
			s.log.Warn("reading a cached tool listing; ignoring it", "key", key, "err", err)
		}
		return catalog.CachedTools{}, false
	}
	if !ok {
		return catalog.CachedTools{}, false
	}
	return ct, true
}

// compressAbove is the size past which a listing is stored gzipped: Badger
// refuses a value over its value log file size (valueLogFileSize), which is
// kept small (see guard.go), and listings compress about tenfold.
const compressAbove = 256 << 10

// StoreTools saves the listing of the server with key.
func (s *Store) StoreTools(key string, t catalog.CachedTools) {
	b, err := encodeListing(t)
	if err == nil && len(b) > compressAbove {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if _, err = zw.Write(b); err == nil {
			err = zw.Close()
		}
		b = buf.Bytes()
	}
	if err == nil && len(b) > valueLogFileSize {
		err = fmt.Errorf("the listing is %d bytes compressed; the cache keeps at most %d", len(b), valueLogFileSize)
	}
	if err == nil {
		err = s.update(len(b), func(txn *badger.Txn) error {
			return txn.Set(append(slices.Clip(prefixTools), key...), b)
		})
	}
	if err != nil {
		s.writeFailed("caching a tool listing", err, "key", key)
	}
}

// LoadResult returns a cached result that has not expired.
func (s *Store) LoadResult(key string) (json.RawMessage, bool) {
	var out json.RawMessage
	err := s.view(func(txn *badger.Txn) error {
		item, err := txn.Get(append(slices.Clip(prefixResult), key...))
		if err != nil {
			return err
		}
		out, err = item.ValueCopy(nil)
		return err
	})
	if err != nil {
		if !errors.Is(err, badger.ErrKeyNotFound) {
			s.log.Warn("reading a cached result; ignoring it", "err", err)
		}
		return nil, false
	}
	return out, true
}

// StoreResult keeps result for ttl, unless it is over MaxResultBytes. When
// the results would pass MaxTotalResultBytes, those closest to expiry are
// dropped first.
func (s *Store) StoreResult(key string, result json.RawMessage, ttl time.Duration) {
	if len(result) > s.opts.MaxResultBytes {
		s.log.Debug("result too large to cache", "bytes", len(result), "max", s.opts.MaxResultBytes)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	size := int64(len(result) + len(prefixResult) + len(key))
	if s.resultBytes+size > s.opts.MaxTotalResultBytes {
		if err := s.evictLocked(s.opts.MaxTotalResultBytes*3/4 - size); err != nil {
			s.writeFailed("dropping cached results", err)
			return
		}
	}
	err := s.update(len(result), func(txn *badger.Txn) error {
		return txn.SetEntry(badger.NewEntry(append(slices.Clip(prefixResult), key...), result).WithTTL(ttl))
	})
	if err != nil {
		s.writeFailed("caching a result", err)
		return
	}
	s.resultBytes += size
}

type resultEntry struct {
	key     []byte
	size    int64
	expires uint64
}

// results lists the live results.
func (s *Store) results() ([]resultEntry, error) {
	var out []resultEntry
	err := s.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefixResult})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			out = append(out, resultEntry{
				key:     item.KeyCopy(nil),
				size:    int64(len(item.Key())) + item.ValueSize(),
				expires: item.ExpiresAt(),
			})
		}
		return nil
	})
	return out, err
}

func (s *Store) countResults() (int64, error) {
	rs, err := s.results()
	var total int64
	for _, r := range rs {
		total += r.size
	}
	return total, err
}

// evictLocked drops results, closest to expiry first, until at most target
// bytes remain. s.mu must be held.
func (s *Store) evictLocked(target int64) error {
	rs, err := s.results()
	if err != nil {
		return err
	}
	var total int64
	for _, r := range rs {
		total += r.size
	}
	slices.SortFunc(rs, func(a, b resultEntry) int {
		if a.expires != b.expires {
			if a.expires < b.expires {
				return -1
			}
			return 1
		}
		return bytes.Compare(a.key, b.key)
	})
	var drop [][]byte
	for _, r := range rs {
		if total <= target {
			break
		}
		drop = append(drop, r.key)
		total -= r.size
	}
	dropped := len(drop)
	for len(drop) > 0 {
		// In transactions of a bounded size: Badger refuses too big a one.
		n := min(len(drop), 1000)
		err := s.update(n*64, func(txn *badger.Txn) error {
			for _, k := range drop[:n] {
				if err := txn.Delete(k); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		drop = drop[n:]
	}
	s.log.Debug("dropped cached results to stay under the bound", "dropped", dropped, "bytes", total)
	s.resultBytes = total
	return nil
}

// Stats describes what the cache holds.
type Stats struct {
	Dir          string
	Servers      int   // cached tool listings
	ToolBytes    int64 // their size
	Results      int   // live cached results
	ResultBytes  int64 // their size
	Packages     int   // generated packages (LoadGen)
	PackageBytes int64 // their size
	DiskBytes    int64 // Badger's files (LSM tree and value log)
	// Writes says whether new entries are kept: "on", "off: the disk is
	// full" (until there is room), or "off: <why the cache is read-only>".
	Writes string
}

// Stats counts what the cache holds.
func (s *Store) Stats() (Stats, error) {
	st := Stats{Dir: s.dir}
	err := s.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			size := int64(len(item.Key())) + item.ValueSize()
			switch {
			case bytes.HasPrefix(item.Key(), prefixTools):
				st.Servers++
				st.ToolBytes += size
			case bytes.HasPrefix(item.Key(), prefixResult):
				st.Results++
				st.ResultBytes += size
			case bytes.HasPrefix(item.Key(), prefixGen):
				st.Packages++
				st.PackageBytes += size
			}
		}
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("cache stats: %w", err)
	}
	lsm, vlog := s.db.Size()
	st.DiskBytes = lsm + vlog
	st.Writes = "on"
	s.guard.mu.Lock()
	switch {
	case s.readOnly != nil:
		st.Writes = "off: " + s.readOnly.Error()
	case s.guard.off != nil:
		st.Writes = "off: " + s.guard.off.Error()
	case s.guard.full:
		st.Writes = "off: " + errFull.Error()
	}
	s.guard.mu.Unlock()
	return st, nil
}

// Clear removes every entry: tool listings, results, learned shapes and
// generated packages.
func (s *Store) Clear() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.readOnly != nil {
		return fmt.Errorf("clear cache %s: %w: %w", s.dir, ErrReadOnly, s.readOnly)
	}
	if !s.opts.InMemory {
		if err := s.guard.admit(0); err != nil {
			return fmt.Errorf("clear cache %s: %w", s.dir, err)
		}
	}
	if err := s.db.DropAll(); err != nil {
		return fmt.Errorf("clear cache %s: %w", s.dir, err)
	}
	s.resultBytes = 0
	return nil
}

// badgerLogger passes Badger's messages to slog: errors and warnings as
// warnings (Badger's "errors" are mostly recoverable), the rest at debug
// level. An error or warning that says the disk is full goes to the
// guard instead, which says so once and turns writes off until there is
// room, and is repeated at debug level only: Badger retries a flush every
// second and reports each write it refuses.
type badgerLogger struct {
	log   *slog.Logger
	guard *guard // nil for an in-memory cache
}

func (l badgerLogger) warn(f string, a ...any) {
	msg := "badger: " + strings.TrimSpace(fmt.Sprintf(f, a...))
	if l.guard != nil && isNoSpace(errors.New(msg)) {
		l.guard.failed("badger", errors.New(msg))
		l.log.Debug(msg)
		return
	}
	l.log.Warn(msg)
}

func (l badgerLogger) Errorf(f string, a ...any)   { l.warn(f, a...) }
func (l badgerLogger) Warningf(f string, a ...any) { l.warn(f, a...) }
func (l badgerLogger) Infof(f string, a ...any) {
	l.log.Debug("badger: " + strings.TrimSpace(fmt.Sprintf(f, a...)))
}
func (l badgerLogger) Debugf(f string, a ...any) {
	l.log.Debug("badger: " + strings.TrimSpace(fmt.Sprintf(f, a...)))
}
