package cache

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/dgraph-io/badger/v4"
)

// Learned result shapes: for each tool without an output schema whose
// results were JSON, what they looked like (fs/gen/shape.Learned, as JSON:
// field names and types, never values). The key is the server's cache
// key (discovery.ServerKey), a NUL and the tool name; the cache does not
// read the value.

var prefixShape = []byte("shape/")

// maxShapeBytes bounds one stored shape; fs/gen/shape keeps them far
// smaller.
const maxShapeBytes = 256 << 10

func shapeKey(server, tool string) []byte {
	k := append(slices.Clip(prefixShape), server...)
	k = append(k, 0)
	return append(k, tool...)
}

// AllShapes returns every stored shape: server cache key → tool name →
// shape, in one scan.
func (s *Store) AllShapes() map[string]map[string][]byte {
	out := map[string]map[string][]byte{}
	err := s.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, Prefix: prefixShape})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			rest := it.Item().Key()[len(prefixShape):]
			i := bytes.IndexByte(rest, 0)
			if i < 0 {
				continue
			}
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			server := string(rest[:i])
			if out[server] == nil {
				out[server] = map[string][]byte{}
			}
			out[server][string(rest[i+1:])] = v
		}
		return nil
	})
	if err != nil {
		s.log.Warn("reading learned result shapes; ignoring them", "err", err)
	}
	return out
}

// LoadShapes returns every stored shape of server (its cache key), by
// tool name.
func (s *Store) LoadShapes(server string) map[string][]byte {
	out := map[string][]byte{}
	prefix := shapeKey(server, "")
	err := s.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out[string(it.Item().Key()[len(prefix):])] = v
		}
		return nil
	})
	if err != nil {
		s.log.Warn("reading learned result shapes; ignoring them", "err", err)
	}
	return out
}

// StoreShape keeps the shape of a tool's results.
func (s *Store) StoreShape(server, tool string, shape []byte) {
	if len(shape) > maxShapeBytes {
		s.log.Debug("learned shape too large to keep", "tool", tool, "bytes", len(shape))
		return
	}
	err := s.update(len(shape), func(txn *badger.Txn) error {
		return txn.Set(shapeKey(server, tool), shape)
	})
	if err != nil {
		s.writeFailed("keeping a learned result shape", err, "tool", tool)
	}
}

// ForgetShapes removes learned shapes: those of one tool of server, of
// every tool of server (tool ""), or all (server "" too). It returns how
// many it removed.
func (s *Store) ForgetShapes(server, tool string) (int, error) {
	if s.readOnly != nil {
		return 0, fmt.Errorf("forget learned shapes in %s: %w: %w", s.dir, ErrReadOnly, s.readOnly)
	}
	prefix := slices.Clip(prefixShape)
	switch {
	case server != "" && tool != "":
		prefix = shapeKey(server, tool)
	case server != "":
		prefix = shapeKey(server, "")
	}
	var keys [][]byte
	err := s.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().KeyCopy(nil)
			if tool != "" && !bytes.Equal(k, prefix) {
				continue // a tool whose name starts with tool
			}
			keys = append(keys, k)
		}
		return nil
	})
	if err == nil && len(keys) > 0 {
		err = s.update(0, func(txn *badger.Txn) error {
			for _, k := range keys {
				if err := txn.Delete(k); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err != nil {
		return 0, fmt.Errorf("forget learned shapes in %s: %w", s.dir, err)
	}
	return len(keys), nil
}

// CountShapes returns how many tools have a learned shape.
func (s *Store) CountShapes() (int, error) {
	n := 0
	err := s.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefixShape})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	})
	if err != nil && !errors.Is(err, badger.ErrKeyNotFound) {
		return 0, fmt.Errorf("count learned shapes: %w", err)
	}
	return n, nil
}
