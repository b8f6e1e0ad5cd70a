package fs

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"

	"github.com/mcpfs/mcpfs/discovery/catalog"
	"github.com/mcpfs/mcpfs/fs/gen"
)

// GenStore keeps generated tool files across processes: an engine gives
// its cache, so that the next engine reads a server's files instead of
// generating them again (most of a cold mount's work at a thousand tools).
type GenStore interface {
	// LoadGen returns what StoreGen last stored under key.
	LoadGen(key string) ([]byte, bool)
	// StoreGen stores data under key, replacing what was there.
	StoreGen(key string, data []byte)
}

// Persist makes c read a server's tool files from store before generating
// them, and store what it generates. build identifies the generator (the
// executable's build): files another build made are made again. Call it
// before c is used.
//
// A server has one entry, named by its name and config key and replaced
// when its tools change; the entry begins with a hash of the build and of
// every input of gen.ToolFiles (the server's name, each tool's name,
// definition and learned shape), and is used only when that hash is the
// one the current snapshot gives. doc.go is not stored: it says the
// server's state, and is made afresh from the stored index.
func (c *GenCache) Persist(store GenStore, build string) {
	c.store, c.build = store, build
}

// genFile is one file of a server's folder.
type genFile struct {
	rel  string
	data []byte
}

// genMagic begins a stored package.
const genMagic = "mcpfs-gen-1\n"

// storeKey names the entry of the server of snap.
func storeKey(snap catalog.ServerSnapshot) string {
	return snap.Name + "\x00" + snap.Key
}

// inputsHash hashes what gen.ToolFiles reads of snap, with the build.
func (c *GenCache) inputsHash(snap catalog.ServerSnapshot) [sha256.Size]byte {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	field := func(b []byte) {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(b)))])
		h.Write(b)
	}
	field([]byte(c.build))
	field([]byte(snap.Name))
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(snap.Tools)))])
	for _, t := range snap.Tools {
		field([]byte(t.Name))
		field(t.Raw)
		field(t.Learned)
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// load returns the stored tool files and index of snap's server, if the
// store has them for snap's tools and this build.
func (c *GenCache) load(snap catalog.ServerSnapshot) ([]genFile, []gen.ToolIndex, bool) {
	if c.store == nil || len(snap.Tools) == 0 {
		return nil, nil, false
	}
	data, ok := c.store.LoadGen(storeKey(snap))
	if !ok {
		return nil, nil, false
	}
	sum := c.inputsHash(snap)
	rest, ok := bytes.CutPrefix(data, []byte(genMagic))
	if !ok || len(rest) < len(sum) || !bytes.Equal(rest[:len(sum)], sum[:]) {
		return nil, nil, false // another build's, or other tools'
	}
	files, index, err := decodeGen(rest[len(sum):])
	if err != nil || len(index) != len(snap.Tools) {
		return nil, nil, false
	}
	return files, index, true
}

// save stores the tool files and index made for snap.
func (c *GenCache) save(snap catalog.ServerSnapshot, files []genFile, index []gen.ToolIndex) {
	if c.store == nil || len(snap.Tools) == 0 {
		return
	}
	sum := c.inputsHash(snap)
	size := len(genMagic) + len(sum)
	for _, f := range files {
		size += 2*binary.MaxVarintLen32 + len(f.rel) + len(f.data)
	}
	for _, t := range index {
		size += 2*binary.MaxVarintLen32 + len(t.Func) + len(t.Summary)
	}
	b := make([]byte, 0, size+2*binary.MaxVarintLen32)
	b = append(b, genMagic...)
	b = append(b, sum[:]...)
	b = binary.AppendUvarint(b, uint64(len(files)))
	for _, f := range files {
		b = appendBytes(b, []byte(f.rel))
		b = appendBytes(b, f.data)
	}
	b = binary.AppendUvarint(b, uint64(len(index)))
	for _, t := range index {
		b = appendBytes(b, []byte(t.Func))
		b = appendBytes(b, []byte(t.Summary))
	}
	c.store.StoreGen(storeKey(snap), b)
}

func appendBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

var errBadGen = errors.New("malformed stored package")

// decodeGen reads what save wrote after the hash. The files' data point
// into b.
func decodeGen(b []byte) ([]genFile, []gen.ToolIndex, error) {
	next := func() ([]byte, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, errBadGen
		}
		s := b[k : k+int(n) : k+int(n)]
		b = b[k+int(n):]
		return s, nil
	}
	count := func() (int, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)) { // every entry takes a byte at least
			return 0, errBadGen
		}
		b = b[k:]
		return int(n), nil
	}
	nf, err := count()
	if err != nil {
		return nil, nil, err
	}
	files := make([]genFile, nf)
	for i := range files {
		rel, err := next()
		if err != nil {
			return nil, nil, err
		}
		data, err := next()
		if err != nil {
			return nil, nil, err
		}
		if !validRel(rel) {
			return nil, nil, errBadGen
		}
		files[i] = genFile{rel: string(rel), data: data}
	}
	nt, err := count()
	if err != nil {
		return nil, nil, err
	}
	index := make([]gen.ToolIndex, nt)
	for i := range index {
		fn, err := next()
		if err != nil {
			return nil, nil, err
		}
		sum, err := next()
		if err != nil {
			return nil, nil, err
		}
		index[i] = gen.ToolIndex{Func: string(fn), Summary: string(sum)}
	}
	if len(b) != 0 {
		return nil, nil, errBadGen
	}
	return files, index, nil
}

// validRel reports whether rel can be a generated tool file's name: one
// path element ending in .go, never doc.go (made afresh).
func validRel(rel []byte) bool {
	return len(rel) > len(".go") && bytes.HasSuffix(rel, []byte(".go")) && !bytes.ContainsAny(rel, "/\x00") &&
		string(rel) != "doc.go" && rel[0] != '.'
}
