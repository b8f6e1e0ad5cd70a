package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Pin is the definition of one tool as first listed, or as last trusted.
type Pin struct {
	// Hash is Hash of Def.
	Hash string `json:"hash"`
	// Def is the tool's tools/list object. A pin file keeps the
	// definitions apart from the index ("defs", after "tools"), so that
	// an engine's start reads only the index: Def is nil until the
	// server's definitions are loaded (serverPins.loadDefs).
	Def json.RawMessage `json:"def,omitempty"`
	// Sum is rawSum of a listing of the tool whose Hash is Hash: a
	// listing with the same bytes is the pinned tool, found without
	// parsing it. Empty in files written before it was kept.
	Sum string `json:"sum,omitempty"`
	// Pinned is when Def was pinned.
	Pinned time.Time `json:"pinned"`
	// New is set for a tool that a server already known listed later: it
	// is shown marked new until trusted.
	New bool `json:"new,omitempty"`
}

// serverPins are the pins of one server, as kept in <dir>/<server>.json:
//
//	{"server": KEY, "tools": {NAME: {"hash", "sum", "pinned", "new"}, ...},
//	 "defs": {NAME: DEFINITION, ...}}
//
// written compact. Files written before "defs" existed keep each
// definition in its tool's "def" (and were indented); they are read the
// same way, and rewritten in the new form when next saved.
type serverPins struct {
	Server string         `json:"server"`
	Tools  map[string]Pin `json:"tools"`

	// file is the pin file as read while the definitions in its "defs"
	// are not loaded yet (nil once they are, or when there are none).
	file []byte

	// stamp is the file's modification time and size when read or
	// written: another writer (a second engine, a --no-engine command)
	// changes it.
	stamp fileStamp
}

type fileStamp struct {
	mod  time.Time
	size int64
}

func stampOf(fi os.FileInfo) fileStamp { return fileStamp{fi.ModTime(), fi.Size()} }

// hashedKeys are the parts of a tool's definition that a pin covers:
// what the tree shows of it and what the policy reads.
var hashedKeys = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

// Hash returns the hash of a tool's definition: SHA-256 over its name,
// title, description, schemas and annotations, each in a canonical JSON
// form (keys sorted), so that a server that reorders keys does not change
// it. Other keys (_meta, icons) are not covered.
func Hash(def json.RawMessage) string {
	var obj map[string]any
	if err := json.Unmarshal(def, &obj); err != nil {
		sum := sha256.Sum256(def)
		return hex.EncodeToString(sum[:])
	}
	part := map[string]any{}
	for _, k := range hashedKeys {
		if v, ok := obj[k]; ok {
			part[k] = v
		}
	}
	b, _ := json.Marshal(part)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// store keeps pins in a directory, one file per server; with no
// directory they live as long as the process.
type store struct {
	dir     string
	servers map[string]*serverPins // loaded or created, by server name
}

func (s *store) file(server string) string {
	return filepath.Join(s.dir, server+".json")
}

// load returns the pins of server, nil when it was never pinned.
func (s *store) load(server string) (*serverPins, error) {
	sp, ok := s.servers[server]
	if s.dir == "" {
		return sp, nil
	}
	fi, err := os.Stat(s.file(server))
	if ok && err == nil && stampOf(fi) == sp.stamp {
		return sp, nil
	}
	sp, err = s.read(server, fi)
	if err != nil {
		return nil, err
	}
	if sp == nil {
		delete(s.servers, server)
		return nil, nil
	}
	s.servers[server] = sp
	return sp, nil
}

// read reads the pin file of server, whose stat is fi (nil when unknown);
// nil when there is none. It does not touch s.servers.
func (s *store) read(server string, fi os.FileInfo) (*serverPins, error) {
	data, err := os.ReadFile(s.file(server))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read pins of %q: %w", server, err)
	}
	sp, err := decodePins(data)
	if err != nil {
		return nil, fmt.Errorf("read pins of %q: %s: %w (remove the file to pin the server's tools afresh)", server, s.file(server), err)
	}
	if fi != nil {
		sp.stamp = stampOf(fi)
	}
	return sp, nil
}

// decodePins decodes a pin file up to its definitions: "server" and
// "tools" are decoded, "defs" is left for loadDefs (at thousands of tools
// the definitions are megabytes of JSON that an engine's start does not
// need).
func decodePins(data []byte) (*serverPins, error) {
	sp := &serverPins{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil {
		return nil, err
	} else if tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	var sawTools, sawDefs bool
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch tok {
		case "server":
			err = dec.Decode(&sp.Server)
		case "tools":
			sawTools = true
			err = dec.Decode(&sp.Tools)
		case "defs":
			sawDefs = true
			if sawTools {
				// The rest is read when a definition is needed.
				sp.file = data
				return sp.normal(), nil
			}
			var skip json.RawMessage
			err = dec.Decode(&skip)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if sawDefs {
		sp.file = data
	}
	return sp.normal(), nil
}

func (sp *serverPins) normal() *serverPins {
	if sp.Tools == nil {
		sp.Tools = map[string]Pin{}
	}
	return sp
}

// loadDefs loads the definitions of sp's pins, when they are not loaded.
func (sp *serverPins) loadDefs() error {
	if sp.file == nil {
		return nil
	}
	var f struct {
		Defs map[string]json.RawMessage `json:"defs"`
	}
	if err := json.Unmarshal(sp.file, &f); err != nil {
		return fmt.Errorf("read pinned definitions of %q: %w (remove its pin file to pin its tools afresh)", sp.Server, err)
	}
	for name, p := range sp.Tools {
		if p.Def == nil {
			p.Def = f.Defs[name]
			sp.Tools[name] = p
		}
	}
	sp.file = nil
	return nil
}

// def returns the pinned definition of tool (nil when none, or when the
// definitions do not read: then the error is logged by the caller of
// loadDefs that meets it first, Diff or a save).
func (sp *serverPins) def(tool string) json.RawMessage {
	sp.loadDefs()
	return sp.Tools[tool].Def
}

// rawSum is the SHA-256 of a tool's listing as sent (hex).
func rawSum(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// pinFile is a pin file as written.
type pinFile struct {
	Server string                     `json:"server"`
	Tools  map[string]Pin             `json:"tools"`
	Defs   map[string]json.RawMessage `json:"defs"`
}

// preload reads the pin files of servers that are not loaded, or changed
// since, decoding them in parallel: at an engine's start they are every
// server's, megabytes of JSON. What fails to read is left to load, which
// reports it.
func (s *store) preload(servers []string) {
	if s.dir == "" {
		return
	}
	type job struct {
		name string
		fi   os.FileInfo
		sp   *serverPins
	}
	var jobs []*job
	for _, name := range servers {
		fi, err := os.Stat(s.file(name))
		if err != nil {
			continue
		}
		if sp, ok := s.servers[name]; ok && stampOf(fi) == sp.stamp {
			continue
		}
		jobs = append(jobs, &job{name: name, fi: fi})
	}
	if len(jobs) < 2 {
		return
	}
	var (
		wg   sync.WaitGroup
		next atomic.Int64
	)
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(len(jobs)); i = next.Add(1) - 1 {
				jobs[i].sp, _ = s.read(jobs[i].name, jobs[i].fi)
			}
		}()
	}
	wg.Wait()
	for _, j := range jobs {
		if j.sp != nil {
			s.servers[j.name] = j.sp
		}
	}
}

// save writes the pins of server, 0600, replacing the file atomically.
func (s *store) save(server string, sp *serverPins) error {
	s.servers[server] = sp
	if s.dir == "" {
		return nil
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("save pins of %q: %w", server, err)
	}
	if err := sp.loadDefs(); err != nil {
		return fmt.Errorf("save pins of %q: %w", server, err)
	}
	f := pinFile{Server: sp.Server, Tools: make(map[string]Pin, len(sp.Tools)), Defs: make(map[string]json.RawMessage, len(sp.Tools))}
	for name, p := range sp.Tools {
		f.Defs[name] = p.Def
		p.Def = nil
		f.Tools[name] = p
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return fmt.Errorf("save pins of %q: %w", server, err)
	}
	data := buf.Bytes()
	tmp, err := os.CreateTemp(s.dir, "."+server+".*.tmp")
	if err != nil {
		return fmt.Errorf("save pins of %q: %w", server, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), s.file(server))
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save pins of %q: %w", server, werr)
	}
	if fi, err := os.Stat(s.file(server)); err == nil {
		sp.stamp = stampOf(fi)
	}
	return nil
}
