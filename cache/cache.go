package cache

import (
	"bytes"
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

	"github.com/mcpfs/mcpfs/discovery"
)

// Defaults for the zero values of Options.
const (
	DefaultMaxResultBytes      = 1 << 20  // one result
	DefaultMaxTotalResultBytes = 64 << 20 // all results together
)

// ErrLocked means another process has the cache open. Badger allows one
// process per directory; mcpfs then runs without the cache.
var ErrLocked = errors.New("the cache is in use by another mcpfs process")

// Key prefixes. Tool listings never expire; results carry a TTL.
var (
	prefixTools  = []byte("tools/")
	prefixResult = []byte("result/")
)

// toolsFormat is the version of the stored tool listing's JSON; entries of
// another version are misses.
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
type Store struct {
	db   *badger.DB
	dir  string
	log  *slog.Logger
	opts Options

	mu          sync.Mutex // serialises result writes and eviction
	resultBytes int64      // estimate of the live results' bytes
}

var _ discovery.Cache = (*Store)(nil)

// DefaultDir is the cache's directory when no data dir is given:
// <user cache dir>/mcpfs/cache.
func DefaultDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the user cache dir (give --data-dir): %w", err)
	}
	return filepath.Join(base, "mcpfs", "cache"), nil
}

// Open opens the cache in dir, creating it (mode 0700) if needed. If
// another process holds the directory, it returns an error wrapping
// ErrLocked at once. A cache that cannot be opened otherwise (corrupt
// files, a version Badger cannot read) is renamed to dir.corrupt-<time>, a
// warning is logged, and an empty cache is opened in its place.
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
	s := &Store{dir: dir, log: opts.Logger, opts: opts}
	if !opts.InMemory {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("open cache %s: %w", dir, err)
		}
		_ = os.Chmod(dir, 0o700)
	}
	db, err := openBadger(dir, opts)
	if err != nil && !opts.InMemory && !errors.Is(err, ErrLocked) {
		aside := fmt.Sprintf("%s.corrupt-%s", dir, time.Now().Format("20060102-150405.000"))
		if rerr := os.Rename(dir, aside); rerr != nil {
			return nil, fmt.Errorf("open cache %s: %w (and it could not be set aside: %v; remove it by hand)", dir, err, rerr)
		}
		opts.Logger.Warn("the cache could not be opened; set it aside and starting an empty one", "dir", dir, "set-aside", aside, "err", err)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("open cache %s: %w", dir, err)
		}
		db, err = openBadger(dir, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("open cache %s: %w", dir, err)
	}
	s.db = db
	if s.resultBytes, err = s.countResults(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open cache %s: %w", dir, err)
	}
	return s, nil
}

// openBadger opens the database, turning Badger's lock failure into
// ErrLocked and a panic on corrupt files into an error.
func openBadger(dir string, opts Options) (db *badger.DB, err error) {
	bo := badger.DefaultOptions(dir).
		WithInMemory(opts.InMemory).
		WithLogger(badgerLogger{opts.Logger}).
		WithNumVersionsToKeep(1).
		WithMemTableSize(8 << 20).
		WithValueLogFileSize(64 << 20).
		WithBlockCacheSize(8 << 20).
		WithNumCompactors(2).
		WithNumGoroutines(2).
		WithMetricsEnabled(false)
	if opts.InMemory {
		bo = bo.WithDir("").WithValueDir("")
	}
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, fmt.Errorf("badger: %v", r)
		}
	}()
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

// Dir returns the cache's directory.
func (s *Store) Dir() string { return s.dir }

// Close writes out what is in memory and releases the directory.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close cache %s: %w", s.dir, err)
	}
	return nil
}

// storedTools is the JSON of a cached tool listing.
type storedTools struct {
	Format int `json:"format"`
	discovery.CachedTools
}

// LoadTools returns the cached listing of the server with key (see
// discovery.ServerKey).
func (s *Store) LoadTools(key string) (discovery.CachedTools, bool) {
	var st storedTools
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(append(slices.Clip(prefixTools), key...))
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error { return json.Unmarshal(v, &st) })
	})
	if err != nil {
		if !errors.Is(err, badger.ErrKeyNotFound) {
			s.log.Warn("reading a cached tool listing; ignoring it", "key", key, "err", err)
		}
		return discovery.CachedTools{}, false
	}
	if st.Format != toolsFormat {
		return discovery.CachedTools{}, false
	}
	return st.CachedTools, true
}

// StoreTools saves the listing of the server with key.
func (s *Store) StoreTools(key string, t discovery.CachedTools) {
	b, err := json.Marshal(storedTools{Format: toolsFormat, CachedTools: t})
	if err == nil {
		err = s.db.Update(func(txn *badger.Txn) error {
			return txn.Set(append(slices.Clip(prefixTools), key...), b)
		})
	}
	if err != nil {
		s.log.Warn("caching a tool listing", "key", key, "err", err)
	}
}

// LoadResult returns a cached result that has not expired.
func (s *Store) LoadResult(key string) (json.RawMessage, bool) {
	var out json.RawMessage
	err := s.db.View(func(txn *badger.Txn) error {
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
			s.log.Warn("dropping cached results", "err", err)
			return
		}
	}
	err := s.db.Update(func(txn *badger.Txn) error {
		return txn.SetEntry(badger.NewEntry(append(slices.Clip(prefixResult), key...), result).WithTTL(ttl))
	})
	if err != nil {
		s.log.Warn("caching a result", "err", err)
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
	err := s.db.View(func(txn *badger.Txn) error {
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
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	dropped := 0
	for _, r := range rs {
		if total <= target {
			break
		}
		if err := wb.Delete(r.key); err != nil {
			return err
		}
		total -= r.size
		dropped++
	}
	if err := wb.Flush(); err != nil {
		return err
	}
	s.log.Debug("dropped cached results to stay under the bound", "dropped", dropped, "bytes", total)
	s.resultBytes = total
	return nil
}

// Stats describes what the cache holds.
type Stats struct {
	Dir         string
	Servers     int   // cached tool listings
	ToolBytes   int64 // their size
	Results     int   // live cached results
	ResultBytes int64 // their size
	DiskBytes   int64 // Badger's files (LSM tree and value log)
}

// Stats counts what the cache holds.
func (s *Store) Stats() (Stats, error) {
	st := Stats{Dir: s.dir}
	err := s.db.View(func(txn *badger.Txn) error {
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
			}
		}
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("cache stats: %w", err)
	}
	lsm, vlog := s.db.Size()
	st.DiskBytes = lsm + vlog
	return st, nil
}

// Clear removes every entry: tool listings and results.
func (s *Store) Clear() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.db.DropAll(); err != nil {
		return fmt.Errorf("clear cache %s: %w", s.dir, err)
	}
	s.resultBytes = 0
	return nil
}

// badgerLogger passes Badger's messages to slog: errors and warnings as
// warnings (Badger's "errors" are mostly recoverable), the rest at debug
// level.
type badgerLogger struct{ log *slog.Logger }

func (l badgerLogger) Errorf(f string, a ...any) {
	l.log.Warn("badger: " + strings.TrimSpace(fmt.Sprintf(f, a...)))
}
func (l badgerLogger) Warningf(f string, a ...any) {
	l.log.Warn("badger: " + strings.TrimSpace(fmt.Sprintf(f, a...)))
}
func (l badgerLogger) Infof(f string, a ...any) {
	l.log.Debug("badger: " + strings.TrimSpace(fmt.Sprintf(f, a...)))
}
func (l badgerLogger) Debugf(f string, a ...any) {
	l.log.Debug("badger: " + strings.TrimSpace(fmt.Sprintf(f, a...)))
}
