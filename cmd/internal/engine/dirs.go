package engine

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/mcpfs/mcpfs/cache"
	"github.com/mcpfs/mcpfs/skills"
)

// Dirs are where an engine keeps what outlives it: the cache, the skills
// and saved output, under Data or, when Data is "", the user's cache and
// data dirs.
type Dirs struct {
	Data   string
	Logger *slog.Logger // nil discards
}

func (d Dirs) log() *slog.Logger {
	if d.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return d.Logger
}

// OutputDir is where long snippet output is saved whole: <data
// dir>/output, or <user cache dir>/mcpfs/output; "" (output is cut, not
// saved) when there is no home directory. Never a shared folder: exec
// refuses one that is not the user's own.
func (d Dirs) OutputDir() string {
	if d.Data != "" {
		return filepath.Join(d.Data, "output")
	}
	cache, ok, err := d.CacheDir()
	if err != nil || !ok {
		return ""
	}
	return filepath.Join(filepath.Dir(cache), "output")
}

// CacheDir is where the cache lives: <--data-dir>/cache, or
// <user cache dir>/mcpfs/cache. ok is false when there is no data dir and
// the user's home (the parent of the user cache dir) does not exist: mcpfs
// does not create a home directory to put a cache in.
func (d Dirs) CacheDir() (dir string, ok bool, err error) {
	if d.Data != "" {
		return filepath.Join(d.Data, "cache"), true, nil
	}
	dir, err = cache.DefaultDir()
	if err != nil {
		return "", false, err
	}
	base := filepath.Dir(filepath.Dir(dir)) // <user cache dir>
	if _, err := os.Stat(filepath.Dir(base)); err != nil {
		return dir, false, nil
	}
	return dir, true, nil
}

// OpenCache opens the cache for the engine. Any problem (another mcpfs
// process holds it, no home directory) is logged and the engine runs
// without a cache: a nil store, and why.
func (d Dirs) OpenCache() (*cache.Store, string) {
	dir, ok, err := d.CacheDir()
	switch {
	case err != nil:
		d.log().Warn("running without the cache", "err", err)
		return nil, err.Error()
	case !ok:
		d.log().Info("running without the cache: the home directory does not exist (give --data-dir to keep one)", "dir", dir)
		return nil, "the home directory does not exist (give --data-dir to keep one)"
	}
	s, err := cache.Open(dir, cache.Options{Logger: d.log()})
	if errors.Is(err, cache.ErrLocked) {
		d.log().Warn("running without the cache: another mcpfs process is using it; the tree is built from live listings only", "err", err)
		return nil, "another mcpfs process is using it"
	}
	if err != nil {
		d.log().Warn("running without the cache", "err", err)
		return nil, err.Error()
	}
	return s, ""
}

// SkillsDir is where skills are kept: <--data-dir>/skills, or
// <user data dir>/mcpfs/skills (see userDataDir): skills are the user's
// work, not a cache that may be wiped. ok is false when there is no data
// dir and no home directory.
func (d Dirs) SkillsDir() (dir string, ok bool, err error) {
	if d.Data != "" {
		return filepath.Join(d.Data, "skills"), true, nil
	}
	data, ok, err := userDataDir()
	if err != nil || !ok {
		return "", false, err
	}
	return d.moveOldSkills(filepath.Join(data, "mcpfs", "skills")), true, nil
}

// userDataDir is where a user's own data goes: $XDG_DATA_HOME, else
// ~/.local/share (~/Library/Application Support on macOS). ok is false
// when that would be under a home directory that does not exist.
func userDataDir() (dir string, ok bool, err error) {
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return d, true, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", false, fmt.Errorf("find the user data dir: %w (set XDG_DATA_HOME or give --data-dir)", err)
	}
	if _, err := os.Stat(home); err != nil {
		return "", false, nil
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Application Support"), true, nil
	}
	return filepath.Join(home, ".local", "share"), true, nil
}

// moveOldSkills moves the skills that earlier versions kept in
// <user cache dir>/mcpfs/skills to dir, once, when dir does not exist yet,
// and returns where the skills are: dir, or the old place when they could
// not be moved (nothing is lost; the warning says why).
func (d Dirs) moveOldSkills(dir string) string {
	c, err := cache.DefaultDir()
	if err != nil {
		return dir
	}
	old := filepath.Join(filepath.Dir(c), "skills")
	if old == dir {
		return dir
	}
	if _, err := os.Stat(old); err != nil {
		return dir
	}
	if _, err := os.Lstat(dir); err == nil {
		return dir
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		d.log().Warn("skills stay in the old place: cannot create the new one", "old", old, "new", dir, "err", err)
		return old
	}
	if err := os.Rename(old, dir); err != nil {
		d.log().Warn("skills stay in the old place: cannot move them", "old", old, "new", dir, "err", err)
		return old
	}
	d.log().Info("moved the saved skills to the user data dir", "from", old, "to", dir)
	return dir
}

// OpenSkills opens the skill store, creating its directory.
func (d Dirs) OpenSkills() (*skills.Store, error) {
	dir, ok, err := d.SkillsDir()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no place to keep skills: the home directory does not exist (give --data-dir)")
	}
	return skills.Open(dir, skills.Options{Logger: d.log()})
}

// Build identifies this executable's build: its path, size and time of
// change; "" when it cannot be told. What one build generated and
// stored, another makes again.
func Build() string {
	buildOnce.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			return
		}
		info, err := os.Stat(exe)
		if err != nil {
			return
		}
		build = fmt.Sprintf("%s:%d:%d", exe, info.Size(), info.ModTime().UnixNano())
	})
	return build
}

var (
	buildOnce sync.Once
	build     string
)
