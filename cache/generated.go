package cache

import (
	"slices"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Generated packages: the tool files the generator made for a server
// (fs.GenStore), so that an engine started later reads them instead of
// generating them again. The key names the server (fs chooses it: one
// entry per server, replaced when its tools change); the value starts
// with a hash of everything the files were made from, which fs checks.

var prefixGen = []byte("gen/")

// genTTL is how long a generated package is kept without being stored
// again: the packages of servers no config names any more go away.
const genTTL = 30 * 24 * time.Hour

// LoadGen returns the generated package stored under key.
func (s *Store) LoadGen(key string) ([]byte, bool) {
	var out []byte
	err := s.view(func(txn *badger.Txn) error {
		item, err := txn.Get(append(slices.Clip(prefixGen), key...))
		if err != nil {
			return err
		}
		out, err = item.ValueCopy(nil)
		return err
	})
	if err != nil {
		if err != badger.ErrKeyNotFound {
			s.log.Warn("reading a generated package; generating it again", "err", err)
		}
		return nil, false
	}
	return out, true
}

// StoreGen stores a generated package under key, replacing the one there.
func (s *Store) StoreGen(key string, data []byte) {
	if len(data) > valueLogFileSize/2 {
		// Generated again by each engine that reads it.
		s.log.Debug("a generated package too large to cache", "key", key, "bytes", len(data))
		return
	}
	err := s.update(len(data), func(txn *badger.Txn) error {
		return txn.SetEntry(badger.NewEntry(append(slices.Clip(prefixGen), key...), data).WithTTL(genTTL))
	})
	if err != nil {
		s.writeFailed("caching a generated package", err, "key", key)
	}
}
