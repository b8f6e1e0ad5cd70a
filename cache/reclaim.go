package cache

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Taking back the disk space of replaced and expired values. Badger keeps
// a value over valueThreshold (a generated package, a large listing or
// result) in its value log, and a value replaced or expired stays there
// until the log file holding it is rewritten, which Badger does only for
// files that a compaction has counted as mostly stale: in a cache this
// small, compactions are rare, so the logs would only grow (a new build
// of mcpfs stores every server's generated package again).

// When an open cache looks for space to take back.
const (
	reclaimAfter = time.Minute
	reclaimEvery = 30 * time.Minute
)

// reclaimSlack is how much of the value log, beyond twice what the cache
// holds, is left alone.
const reclaimSlack = 8 << 20

// startReclaiming looks for space to take back reclaimAfter after Open
// and every reclaimEvery after, until Close.
func (s *Store) startReclaiming() {
	s.stopReclaim = make(chan struct{})
	s.reclaimDone = make(chan struct{})
	go func() {
		defer close(s.reclaimDone)
		t := time.NewTimer(reclaimAfter)
		defer t.Stop()
		for {
			select {
			case <-s.stopReclaim:
				return
			case <-t.C:
			}
			if n, err := s.Reclaim(false); err != nil {
				s.log.Debug("taking back the cache's stale values", "err", err)
			} else if n > 0 {
				s.log.Info("took back the disk space of stale cached values", "bytes", n)
			}
			t.Reset(reclaimEvery)
		}
	}()
}

// stopReclaiming ends startReclaiming's loop and waits for a pass in
// progress.
func (s *Store) stopReclaiming() {
	if s.stopReclaim != nil {
		s.stopOnce.Do(func() { close(s.stopReclaim) })
		<-s.reclaimDone
	}
}

// Reclaim takes back the space of stale values in the value log: when the
// log's closed files hold more than twice what the cache's values add up
// to (plus reclaimSlack), or always with force, it compacts the tree into
// one level, which counts what is stale, and rewrites each log file that
// is at least half stale. It returns how many bytes the value log shrank.
// A read-only or in-memory cache, or a disk without room, is left alone.
func (s *Store) Reclaim(force bool) (int64, error) {
	if s.opts.InMemory || s.readOnly != nil {
		return 0, nil
	}
	// Compaction and rewrites write before they free.
	if err := s.guard.admit(2 * valueLogFileSize); err != nil {
		return 0, err
	}
	before := s.closedLogBytes()
	if !force {
		live, err := s.liveBytes()
		if err != nil {
			return 0, err
		}
		if before <= 2*live+reclaimSlack {
			return 0, nil
		}
	}
	err := func() (err error) {
		defer noFault(&err)()
		if err := s.db.Flatten(1); err != nil {
			return err
		}
		for {
			switch err := s.db.RunValueLogGC(0.5); {
			case errors.Is(err, badger.ErrNoRewrite), errors.Is(err, badger.ErrRejected):
				return nil
			case err != nil:
				return err
			}
		}
	}()
	if err != nil {
		if isEnvironment(err) {
			s.guard.failed("taking back the cache's stale values", err)
		}
		return 0, err
	}
	return max(0, before-s.closedLogBytes()), nil
}

// liveBytes adds up the sizes of the values the cache holds.
func (s *Store) liveBytes() (int64, error) {
	var n int64
	err := s.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n += it.Item().ValueSize()
		}
		return nil
	})
	return n, err
}

// closedLogBytes is the size of the value log's files but the newest,
// which Badger writes into (its size on disk is reserved ahead).
func (s *Store) closedLogBytes() int64 {
	files, _ := filepath.Glob(filepath.Join(s.dir, "*.vlog"))
	type logFile struct {
		fid  int
		size int64
	}
	var logs []logFile
	for _, f := range files {
		fid, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(f), ".vlog"))
		fi, serr := os.Stat(f)
		if err != nil || serr != nil {
			continue
		}
		logs = append(logs, logFile{fid, fi.Size()})
	}
	slices.SortFunc(logs, func(a, b logFile) int { return a.fid - b.fid })
	var n int64
	for i, l := range logs {
		if i < len(logs)-1 {
			n += l.size
		}
	}
	return n
}
