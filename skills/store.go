package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Layout of a store's directory.
const (
	historyDir = ".history"
	lockName   = ".lock"
	metaFile   = ".meta.json"
)

// Options configure a Store. The zero value is ready to use.
type Options struct {
	// Logger receives repairs made on Open and problems that do not fail
	// an operation. Nil discards.
	Logger *slog.Logger
}

// Store keeps skills in a directory (see the package doc for the layout).
// Its methods are safe for concurrent use, and several processes may use
// one directory: writes are serialized by a lock file, and Refresh reads
// what other processes saved.
type Store struct {
	dir string
	log *slog.Logger

	mu      sync.Mutex
	current map[string]Skill // skills that exist now
	latest  map[string]int   // highest version of every skill, removed ones too
	watch   map[chan struct{}]struct{}
}

// Open opens the store in dir, creating it if needed, and repairs what a
// crash may have left: temporary directories, and plain skill folders that
// lag behind their history.
func Open(dir string, opts Options) (*Store, error) {
	s := &Store{dir: dir, log: opts.Logger, current: map[string]Skill{}, latest: map[string]int{}, watch: map[chan struct{}]struct{}{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(filepath.Join(dir, historyDir), 0o755); err != nil {
		return nil, fmt.Errorf("open skills in %s: %w", dir, err)
	}
	unlock, err := s.lock(context.Background())
	if err != nil {
		return nil, err
	}
	defer unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.refreshLocked(); err != nil {
		return nil, err
	}
	s.repair()
	return s, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// List returns the current skills, sorted by name.
func (s *Store) List() []Skill {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Skill, 0, len(s.current))
	for _, sk := range s.current {
		out = append(out, sk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Get returns the current version of a skill.
func (s *Store) Get(name string) (Skill, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sk, ok := s.current[name]
	return sk, ok
}

// Watch returns a channel that receives a value after the store changed
// (a save, removal or restore here, or a Refresh that found changes), and
// a func that stops the watch. Changes close together may arrive as one.
func (s *Store) Watch() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	s.watch[ch] = struct{}{}
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		delete(s.watch, ch)
		s.mu.Unlock()
	}
}

// notify signals watchers; s.mu must be held.
func (s *Store) notify() {
	for ch := range s.watch {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Refresh reads the versions other processes saved since the last look.
// It reports whether anything changed.
func (s *Store) Refresh() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed, err := s.refreshLocked()
	if changed {
		s.notify()
	}
	return changed, err
}

// refreshLocked loads every skill whose highest version differs from the
// one in memory. s.mu must be held.
func (s *Store) refreshLocked() (bool, error) {
	hist := filepath.Join(s.dir, historyDir)
	entries, err := os.ReadDir(hist)
	if err != nil {
		return false, fmt.Errorf("read skills history %s: %w", hist, err)
	}
	changed := false
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || CheckName(name) != nil {
			continue
		}
		versions, err := s.versionNumbers(name)
		if err != nil {
			return changed, err
		}
		if len(versions) == 0 {
			continue
		}
		top := versions[len(versions)-1]
		if s.latest[name] == top {
			continue
		}
		sk, removed, err := s.load(name, top)
		if err != nil {
			return changed, err
		}
		changed = true
		s.latest[name] = top
		if removed {
			delete(s.current, name)
		} else {
			s.current[name] = sk
		}
	}
	return changed, nil
}

// versionNumbers lists the complete versions of a skill, ascending.
func (s *Store) versionNumbers(name string) ([]int, error) {
	dir := filepath.Join(s.dir, historyDir, name)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read history of skill %q: %w", name, err)
	}
	var out []int
	for _, e := range entries {
		v, ok := strings.CutPrefix(e.Name(), "v")
		if !ok || !e.IsDir() {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || "v"+strconv.Itoa(n) != e.Name() {
			continue
		}
		out = append(out, n)
	}
	sort.Ints(out)
	return out, nil
}

type meta struct {
	Version
	Description string `json:"description,omitempty"`
}

// load reads version v of a skill from its history.
func (s *Store) load(name string, v int) (Skill, bool, error) {
	dir := filepath.Join(s.dir, historyDir, name, "v"+strconv.Itoa(v))
	raw, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err != nil {
		return Skill{}, false, fmt.Errorf("read version %d of skill %q: %w", v, name, err)
	}
	var m meta
	if err := json.Unmarshal(raw, &m); err != nil {
		return Skill{}, false, fmt.Errorf("read version %d of skill %q: %s: %w", v, name, filepath.Join(dir, metaFile), err)
	}
	if m.Removed {
		return Skill{Name: name, Version: v, Saved: m.Saved}, true, nil
	}
	files, err := readSkillDir(dir)
	if err != nil {
		return Skill{}, false, fmt.Errorf("read version %d of skill %q: %w", v, name, err)
	}
	sk, _ := parse(name, files) // saved versions were valid; keep what parses
	sk.Files = files
	sk.Version = v
	sk.Saved = m.Saved
	if sk.Description == "" {
		sk.Description = m.Description
	}
	return sk, false, nil
}

// readSkillDir reads the skill files of a directory.
func readSkillDir(dir string) (map[string][]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if !e.Type().IsRegular() || !IsSkillFile(e.Name()) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		files[e.Name()] = data
	}
	return files, nil
}

// lock takes the store's lock file, waiting while another process holds
// it, until ctx ends.
func (s *Store) lock(ctx context.Context) (func(), error) {
	p := filepath.Join(s.dir, lockName)
	for {
		l, ok, err := tryLock(p)
		if err != nil {
			return nil, fmt.Errorf("lock skills %s: %w", p, err)
		}
		if ok {
			return l.unlock, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("lock skills %s (another mcpfs is saving a skill): %w", p, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Check validates files as the new content of skill name, against tree
// and the current skills, without saving.
func (s *Store) Check(tree iofs.FS, name string, files map[string][]byte) (Skill, error) {
	return Validate(tree, name, files, s.List())
}

// beginWrite takes the cross-process lock and s.mu, and brings the store up
// to date with the disk; the returned func releases both.
func (s *Store) beginWrite(ctx context.Context) (func(), error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if _, err := s.refreshLocked(); err != nil {
		s.mu.Unlock()
		unlock()
		return nil, err
	}
	return func() { s.mu.Unlock(); unlock() }, nil
}

// Save validates files as the new content of skill name against tree (the
// current mcpfs tree) and the current skills, and saves them as a new
// version. note says where the save came from ("mount", "cli", ...). An
// invalid skill is refused with a *ValidationError (errors.Is ErrInvalid)
// and nothing changes. Saving the same files as the current version
// changes nothing and returns it.
func (s *Store) Save(ctx context.Context, tree iofs.FS, name string, files map[string][]byte, note string) (Skill, error) {
	done, err := s.beginWrite(ctx)
	if err != nil {
		return Skill{}, err
	}
	defer done()
	if cur, ok := s.current[name]; ok && sameFiles(cur.Files, files) {
		return cur, nil
	}
	others := make([]Skill, 0, len(s.current))
	for _, o := range s.current {
		others = append(others, o)
	}
	sk, err := Validate(tree, name, files, others)
	if err != nil {
		return Skill{}, err
	}
	return s.commit(sk, Version{Note: note})
}

// commit writes sk as the next version. The lock and s.mu must be held.
func (s *Store) commit(sk Skill, v Version) (Skill, error) {
	name := sk.Name
	v.Version = s.latest[name] + 1
	v.Saved = time.Now().UTC().Truncate(time.Millisecond)
	v.Files = sk.FileNames()
	m, err := json.MarshalIndent(meta{Version: v, Description: sk.Description}, "", "  ")
	if err != nil {
		return Skill{}, err
	}
	hist := filepath.Join(s.dir, historyDir, name)
	if err := os.MkdirAll(hist, 0o755); err != nil {
		return Skill{}, fmt.Errorf("save skill %q: %w", name, err)
	}
	files := cloneFiles(sk.Files)
	files[metaFile] = m
	tmp := filepath.Join(hist, tempName(".tmp-"))
	final := filepath.Join(hist, "v"+strconv.Itoa(v.Version))
	if err := writeDirSync(tmp, files); err != nil {
		os.RemoveAll(tmp)
		return Skill{}, fmt.Errorf("save skill %q: %w", name, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		return Skill{}, fmt.Errorf("save skill %q: %w", name, err)
	}
	if err := syncDir(hist); err != nil {
		return Skill{}, fmt.Errorf("save skill %q: %w", name, err)
	}
	_ = syncDir(filepath.Dir(hist))
	s.latest[name] = v.Version
	sk.Version, sk.Saved = v.Version, v.Saved
	if v.Removed {
		delete(s.current, name)
		if err := s.unmaterialize(name); err != nil {
			s.log.Warn("could not remove the skill's folder; the skill is removed", "skill", name, "error", err)
		}
	} else {
		s.current[name] = sk
		if err := s.materialize(sk); err != nil {
			s.log.Warn("could not update the skill's folder; the version is saved in the history", "skill", name, "error", err)
		}
	}
	s.notify()
	return sk, nil
}

// Remove removes a skill by saving a version that marks it removed; it
// stays restorable. A skill that other skills import is refused with
// ErrInUse.
func (s *Store) Remove(ctx context.Context, name, note string) (Version, error) {
	done, err := s.beginWrite(ctx)
	if err != nil {
		return Version{}, err
	}
	defer done()
	sk, ok := s.current[name]
	if !ok {
		return Version{}, fmt.Errorf("remove skill %q: %w", name, ErrNotFound)
	}
	others := make([]Skill, 0, len(s.current))
	for _, o := range s.current {
		others = append(others, o)
	}
	if deps := dependents(name, others); len(deps) > 0 {
		return Version{}, fmt.Errorf("remove skill %q: %w: %s (remove or change those first)", name, ErrInUse, strings.Join(deps, ", "))
	}
	if note == "" {
		note = "removed"
	}
	saved, err := s.commit(Skill{Name: name, Description: sk.Description}, Version{Removed: true, Note: note})
	if err != nil {
		return Version{}, err
	}
	return Version{Version: saved.Version, Saved: saved.Saved, Removed: true, Note: note}, nil
}

// Restore saves an earlier version of a skill as its newest version,
// after validating it against tree and the current skills as Save does.
func (s *Store) Restore(ctx context.Context, tree iofs.FS, name string, version int) (Skill, error) {
	done, err := s.beginWrite(ctx)
	if err != nil {
		return Skill{}, err
	}
	defer done()
	old, removed, err := s.loadVersion(name, version)
	if err != nil {
		return Skill{}, err
	}
	if removed {
		return Skill{}, fmt.Errorf("restore skill %q: version %d is the removal; restore a version before it (mcpfs skills log %s)", name, version, name)
	}
	others := make([]Skill, 0, len(s.current))
	for _, o := range s.current {
		others = append(others, o)
	}
	sk, err := Validate(tree, name, old.Files, others)
	if err != nil {
		return Skill{}, err
	}
	return s.commit(sk, Version{Note: fmt.Sprintf("restored from version %d", version)})
}

// Version returns version v of a skill (also of a removed skill).
func (s *Store) Version(name string, v int) (Skill, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sk, removed, err := s.loadVersion(name, v)
	if err != nil {
		return Skill{}, err
	}
	if removed {
		return Skill{}, fmt.Errorf("skill %q: version %d is the removal: %w", name, v, ErrNotFound)
	}
	return sk, nil
}

func (s *Store) loadVersion(name string, v int) (Skill, bool, error) {
	if CheckName(name) != nil {
		return Skill{}, false, fmt.Errorf("skill %q: %w", name, ErrNotFound)
	}
	if _, err := os.Stat(filepath.Join(s.dir, historyDir, name, "v"+strconv.Itoa(v))); err != nil {
		return Skill{}, false, fmt.Errorf("skill %q has no version %d (mcpfs skills log %s lists them): %w", name, v, name, ErrNotFound)
	}
	return s.load(name, v)
}

// Log lists the versions of a skill, oldest first.
func (s *Store) Log(name string) ([]Version, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if CheckName(name) != nil {
		return nil, fmt.Errorf("skill %q: %w", name, ErrNotFound)
	}
	nums, err := s.versionNumbers(name)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(nums) == 0) {
		return nil, fmt.Errorf("skill %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	out := make([]Version, 0, len(nums))
	for _, n := range nums {
		raw, err := os.ReadFile(filepath.Join(s.dir, historyDir, name, "v"+strconv.Itoa(n), metaFile))
		if err != nil {
			return nil, fmt.Errorf("log of skill %q: %w", name, err)
		}
		var m meta
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("log of skill %q: version %d: %w", name, n, err)
		}
		m.Version.Version = n
		out = append(out, m.Version)
	}
	return out, nil
}

// materialize writes the plain folder of a skill: <dir>/<name>/.
func (s *Store) materialize(sk Skill) error {
	tmp := filepath.Join(s.dir, tempName(".tmp-"))
	if err := writeDirSync(tmp, sk.Files); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := replaceDir(tmp, filepath.Join(s.dir, sk.Name)); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return syncDir(s.dir)
}

func (s *Store) unmaterialize(name string) error {
	p := filepath.Join(s.dir, name)
	old := filepath.Join(s.dir, tempName(".old-"))
	if err := os.Rename(p, old); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	if err := syncDir(s.dir); err != nil {
		return err
	}
	return os.RemoveAll(old)
}

// repair removes temporary entries and brings plain folders up to date
// with the history. The lock and s.mu must be held.
func (s *Store) repair() {
	clean := func(dir string) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".tmp-") || strings.HasPrefix(e.Name(), ".old-") {
				if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
					s.log.Warn("could not remove a temporary entry", "path", filepath.Join(dir, e.Name()), "error", err)
				}
			}
		}
	}
	clean(s.dir)
	for name := range s.latest {
		clean(filepath.Join(s.dir, historyDir, name))
		plain := filepath.Join(s.dir, name)
		files, err := readSkillDir(plain)
		exists := err == nil
		cur, live := s.current[name]
		switch {
		case live && exists && sameFiles(files, cur.Files):
			continue
		case !live && !exists:
			continue
		}
		if exists && !s.isOldVersion(name, files) {
			s.log.Warn("a skill folder was changed outside mcpfs and differs from its saved version; mcpfs uses the saved version (save the folder with: mcpfs skills add "+plain+")", "skill", name, "version", s.latest[name])
			continue
		}
		if live {
			err = s.materialize(cur)
		} else {
			err = s.unmaterialize(name)
		}
		if err != nil {
			s.log.Warn("could not repair a skill folder", "skill", name, "error", err)
		} else {
			s.log.Info("repaired a skill folder from its history", "skill", name, "version", s.latest[name])
		}
	}
}

// isOldVersion reports whether files are those of some saved version.
func (s *Store) isOldVersion(name string, files map[string][]byte) bool {
	nums, _ := s.versionNumbers(name)
	for _, n := range nums {
		sk, removed, err := s.load(name, n)
		if err == nil && !removed && sameFiles(sk.Files, files) {
			return true
		}
	}
	return false
}

func sameFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}
