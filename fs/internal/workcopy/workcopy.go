// Package workcopy is the working copy of skills/ in the mount, without
// the kernel: what skills/<name>/ shows (the saved version plus the
// changes written since), when a change is saved in the skill store, and
// what a refused save leaves behind. fs/fuse translates FUSE requests
// into calls on a Copy; this package's tests run with no mount.
//
// Changes are saved (validated, then stored as a new version) at these
// points:
//
//   - Commit, on close or fsync of a file that was written (a skill file:
//     SKILL.md, *.go, *.md);
//   - Rename of a file onto a skill file, and RenameFolder onto
//     skills/<name> (the whole folder is saved at once);
//   - Unlink of a skill file;
//   - Rmdir of skills/<name> removes the skill.
//
// A save that fails validation fails with ErrNotSaved, and
// skills/<name>/ERRORS.txt shows the problems; the working copy keeps the
// written bytes and the last good version stays the one snippets import.
// An unlink that leaves the skill invalid succeeds and stays pending (so
// rm -r works). A new skill that has no SKILL.md or no Go file yet is
// incomplete, not invalid: committing its files succeeds and nothing is
// saved until it is complete. Hidden folders (skills/.name) are scratch
// areas that are never validated: write a whole skill there and rename it
// onto skills/<name> to save it in one step. Other files (hidden names,
// editor backups, anything but SKILL.md, *.go and *.md) are scratch: kept
// in memory, never saved.
//
// Package workcopy depends on skills (validation and storage) and on no
// kernel, process or network code.
package workcopy

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpfs/mcpfs/skills"
)

// Errors of the working copy. fs/fuse maps each to an errno.
var (
	// ErrNotExist: no such folder or file (ENOENT). It is io/fs's.
	ErrNotExist = iofs.ErrNotExist
	// ErrExist: the folder exists already (EEXIST). It is io/fs's.
	ErrExist = iofs.ErrExist
	// ErrReadOnly: ERRORS.txt is written by the mount only (EACCES).
	ErrReadOnly = errors.New("ERRORS.txt is read only")
	// ErrRefused: skills are flat folders, and a saved skill is removed
	// with rmdir, never renamed (EPERM).
	ErrRefused = errors.New("not allowed in skills/")
	// ErrBadName: not a valid skill name (EINVAL).
	ErrBadName = errors.New("invalid skill name")
	// ErrNotEmpty: rmdir of a folder with files (ENOTEMPTY).
	ErrNotEmpty = errors.New("skill folder not empty")
	// ErrBusy: the store refused to remove the skill (EBUSY); why is in
	// ERRORS.txt.
	ErrBusy = errors.New("skill not removed")
	// ErrNotSaved: the save was refused or failed (EIO); why is in
	// ERRORS.txt.
	ErrNotSaved = errors.New("skill not saved")
	// ErrCrossFolder: files move only within one folder (EXDEV).
	ErrCrossFolder = errors.New("files cannot move between skill folders")
	// ErrTooLarge: a file over skills.MaxFileSize (EFBIG).
	ErrTooLarge = errors.New("file too large for a skill")
)

// Copy is the working copy of skills/ over a store. Its methods are safe
// for concurrent use.
type Copy struct {
	store   *skills.Store
	tree    func() iofs.FS // the tree saved skills are checked against
	changed func()         // called after the store changed
	log     *slog.Logger

	mu     sync.Mutex
	drafts map[string]*draft // by folder name in skills/
}

// draft is the pending state of one folder.
type draft struct {
	changed map[string][]byte // skill files written since the save; nil value = removed
	scratch map[string][]byte // never saved
	errors  string            // why the last save was refused; "" if it was not
	mtime   time.Time
}

func (d *draft) empty() bool {
	return len(d.changed) == 0 && len(d.scratch) == 0 && d.errors == ""
}

// Options configure New.
type Options struct {
	// Tree returns the tree a skill is type-checked against when saved
	// (the current one). Nil checks against an empty tree.
	Tree func() iofs.FS
	// Changed is called after a save or removal changed the store,
	// with the Copy's lock held: it must not call back into the Copy.
	Changed func()
	// Logger receives failed saves and removals. Nil discards.
	Logger *slog.Logger
}

// New returns a working copy of store with nothing pending.
func New(store *skills.Store, opts Options) *Copy {
	c := &Copy{store: store, tree: opts.Tree, changed: opts.Changed, log: opts.Logger, drafts: map[string]*draft{}}
	if c.tree == nil {
		c.tree = func() iofs.FS { return emptyFS{} }
	}
	if c.changed == nil {
		c.changed = func() {}
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c
}

type emptyFS struct{}

func (emptyFS) Open(name string) (iofs.File, error) {
	return nil, &iofs.PathError{Op: "open", Path: name, Err: iofs.ErrNotExist}
}

// Hidden reports whether folder is a scratch folder (skills/.name).
func Hidden(folder string) bool { return strings.HasPrefix(folder, ".") }

// saved returns the saved skill of a folder; false for a folder that is
// not a saved skill.
func (c *Copy) saved(folder string) (skills.Skill, bool) {
	if Hidden(folder) {
		return skills.Skill{}, false
	}
	return c.store.Get(folder)
}

// working returns the skill files of a folder's working copy and whether
// the folder exists. c.mu must be held.
func (c *Copy) working(folder string) (map[string][]byte, *draft, bool) {
	sk, isSaved := c.saved(folder)
	d := c.drafts[folder]
	if !isSaved && d == nil {
		return nil, nil, false
	}
	files := map[string][]byte{}
	for n, data := range sk.Files {
		files[n] = data
	}
	if d != nil {
		for n, data := range d.changed {
			if data == nil {
				delete(files, n)
			} else {
				files[n] = data
			}
		}
	}
	return files, d, true
}

// content returns a file of a folder's working copy. c.mu must be held.
func (c *Copy) content(folder, file string) ([]byte, bool) {
	files, d, ok := c.working(folder)
	if !ok {
		return nil, false
	}
	if data, ok := files[file]; ok {
		return data, true
	}
	if d != nil {
		if data, ok := d.scratch[file]; ok {
			return data, true
		}
		if file == skills.ErrorsFile && d.errors != "" {
			return []byte(d.errors), true
		}
	}
	return nil, false
}

// Exists reports whether skills/<folder> exists: a saved skill or a
// folder being written.
func (c *Copy) Exists(folder string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _, ok := c.working(folder)
	return ok
}

// File returns a file of a folder's working copy.
func (c *Copy) File(folder, file string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.content(folder, file)
}

// Info describes a file of the working copy.
type Info struct {
	Size     int
	Writable bool // all but ERRORS.txt
	ModTime  time.Time
}

// Stat describes a file of a folder's working copy.
func (c *Copy) Stat(folder, file string) (Info, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	data, ok := c.content(folder, file)
	if !ok {
		return Info{}, false
	}
	info := Info{Size: len(data), Writable: file != skills.ErrorsFile}
	if d := c.drafts[folder]; d != nil {
		info.ModTime = d.mtime
	} else if sk, ok := c.saved(folder); ok {
		info.ModTime = sk.Saved
	}
	return info, true
}

// Names lists a folder's working copy, sorted: skill files, scratch files
// and ERRORS.txt.
func (c *Copy) Names(folder string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	files, d, _ := c.working(folder)
	var out []string
	for n := range files {
		out = append(out, n)
	}
	if d != nil {
		for n := range d.scratch {
			out = append(out, n)
		}
		if d.errors != "" {
			out = append(out, skills.ErrorsFile)
		}
	}
	sort.Strings(out)
	return out
}

// Folders lists skills/, sorted: saved skills and folders being written.
func (c *Copy) Folders() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]bool{}
	for _, sk := range c.store.List() {
		seen[sk.Name] = true
	}
	for f := range c.drafts {
		seen[f] = true
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// draftFor returns the draft of a folder, making one. c.mu must be held.
func (c *Copy) draftFor(folder string) *draft {
	d := c.drafts[folder]
	if d == nil {
		d = &draft{changed: map[string][]byte{}, scratch: map[string][]byte{}, mtime: time.Now()}
		c.drafts[folder] = d
	}
	return d
}

// put sets a file of a folder's working copy. c.mu must be held.
func (c *Copy) put(folder, file string, data []byte) {
	d := c.draftFor(folder)
	d.mtime = time.Now()
	if skills.IsSkillFile(file) {
		d.changed[file] = data
	} else {
		d.scratch[file] = data
	}
}

// remove deletes a file of a folder's working copy. c.mu must be held.
func (c *Copy) remove(folder, file string) bool {
	if _, ok := c.content(folder, file); !ok {
		return false
	}
	d := c.draftFor(folder)
	d.mtime = time.Now()
	switch {
	case file == skills.ErrorsFile && d.errors != "":
		d.errors = ""
	case skills.IsSkillFile(file):
		d.changed[file] = nil
	default:
		delete(d.scratch, file)
	}
	c.tidy(folder)
	return true
}

// tidy drops a draft of a saved skill that has nothing pending. c.mu must
// be held.
func (c *Copy) tidy(folder string) {
	d := c.drafts[folder]
	if d == nil {
		return
	}
	sk, isSaved := c.saved(folder)
	for n, data := range d.changed {
		if old, ok := sk.Files[n]; (data == nil && !ok) || (ok && string(old) == string(data)) {
			delete(d.changed, n)
		}
	}
	if isSaved && d.empty() {
		delete(c.drafts, folder)
	}
}

// Create makes an empty file in an existing folder, or empties a file
// there.
func (c *Copy) Create(folder, file string) error {
	if file == skills.ErrorsFile {
		return ErrReadOnly
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, _, ok := c.working(folder); !ok {
		return ErrNotExist
	}
	c.put(folder, file, []byte{})
	return nil
}

// Empty empties a file, as open(O_TRUNC) does, making it when it is
// not there.
func (c *Copy) Empty(folder, file string) error {
	if file == skills.ErrorsFile {
		return ErrReadOnly
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.put(folder, file, []byte{})
	return nil
}

// Truncate cuts or extends a file to size. It is not a save point:
// open(O_TRUNC) truncates this way before the writes come.
func (c *Copy) Truncate(folder, file string, size int64) error {
	if file == skills.ErrorsFile {
		return ErrReadOnly
	}
	if size < 0 || size > skills.MaxFileSize {
		return ErrTooLarge
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	data, ok := c.content(folder, file)
	if !ok {
		return ErrNotExist
	}
	out := make([]byte, size)
	copy(out, data)
	c.put(folder, file, out)
	return nil
}

// WriteAt writes data at off into a file. The folder is saved by Commit.
func (c *Copy) WriteAt(folder, file string, data []byte, off int64) error {
	if file == skills.ErrorsFile {
		return ErrReadOnly
	}
	if off < 0 || off+int64(len(data)) > skills.MaxFileSize {
		return ErrTooLarge
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cur, ok := c.content(folder, file)
	if !ok {
		return ErrNotExist
	}
	buf := make([]byte, max(len(cur), int(off)+len(data)))
	copy(buf, cur)
	copy(buf[off:], data)
	c.put(folder, file, buf)
	return nil
}

// Commit saves the folder after file was written: on close and fsync.
// Writing scratch files saves nothing.
func (c *Copy) Commit(ctx context.Context, folder, file string) error {
	if !skills.IsSkillFile(file) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.save(ctx, folder, "mount")
}

// errIncomplete marks a new skill that cannot be saved yet.
var errIncomplete = errors.New("incomplete")

// save validates the working copy of folder and saves it as a new
// version. A new skill still missing files is not saved, and not an
// error; an invalid one is ErrNotSaved, with the problems in ERRORS.txt.
// c.mu must be held.
func (c *Copy) save(ctx context.Context, folder, note string) error {
	err := c.trySave(ctx, folder, note)
	if err == nil || errors.Is(err, errIncomplete) {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrNotSaved, err)
}

func (c *Copy) trySave(ctx context.Context, folder, note string) error {
	if Hidden(folder) {
		return nil
	}
	files, d, ok := c.working(folder)
	if !ok || d == nil {
		return nil
	}
	sk, isSaved := c.saved(folder)
	if !isSaved {
		var missing []string
		if _, ok := files[skills.SkillFile]; !ok {
			missing = append(missing, skills.SkillFile)
		}
		hasGo := false
		for n := range files {
			hasGo = hasGo || strings.HasSuffix(n, ".go")
		}
		if !hasGo {
			missing = append(missing, "a Go file")
		}
		if len(missing) > 0 {
			d.errors = fmt.Sprintf("skills/%s is not saved yet: it needs %s.\nNothing is saved until the folder has SKILL.md and at least one Go file.\n", folder, strings.Join(missing, " and "))
			return errIncomplete
		}
	}
	if isSaved && len(d.changed) == 0 {
		return nil
	}
	saved, err := c.store.Save(ctx, c.tree(), folder, files, note)
	if err != nil {
		var b strings.Builder
		fmt.Fprintf(&b, "skills/%s was not saved: %v\n\n", folder, err)
		if isSaved {
			fmt.Fprintf(&b, "Version %d, saved %s, is still the one snippets import.\n", sk.Version, sk.Saved.Format(time.RFC3339))
		} else {
			b.WriteString("No version is saved yet; snippets cannot import it.\n")
		}
		b.WriteString("The files here are your working copy: fix them and write again.\n")
		d.errors = b.String()
		if !errors.Is(err, skills.ErrInvalid) {
			c.log.Error("saving a skill failed", "skill", folder, "error", err)
		}
		return err
	}
	c.log.Info("skill saved", "skill", folder, "version", saved.Version)
	d.changed = map[string][]byte{}
	d.errors = ""
	c.tidy(folder)
	c.changed()
	return nil
}

// Unlink removes a file from the working copy and saves the rest when it
// is valid; an invalid rest stays pending without failing the unlink.
func (c *Copy) Unlink(ctx context.Context, folder, file string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.remove(folder, file) {
		return ErrNotExist
	}
	if files, _, _ := c.working(folder); len(files) > 0 && skills.IsSkillFile(file) {
		_ = c.save(ctx, folder, "mount")
	}
	return nil
}

// Rename moves a file within a folder. A rename that makes or replaces a
// skill file saves the folder; an invalid result is refused with
// ErrNotSaved and nothing moves.
func (c *Copy) Rename(ctx context.Context, folder, name, newName string) error {
	if name == skills.ErrorsFile || newName == skills.ErrorsFile {
		return ErrReadOnly
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	data, ok := c.content(folder, name)
	if !ok {
		return ErrNotExist
	}
	dr := c.draftFor(folder)
	before := struct{ changed, scratch map[string][]byte }{cloneMap(dr.changed), cloneMap(dr.scratch)}
	c.remove(folder, name)
	c.put(folder, newName, data)
	if !skills.IsSkillFile(name) && !skills.IsSkillFile(newName) {
		return nil
	}
	if err := c.save(ctx, folder, "mount"); err != nil {
		dr = c.draftFor(folder)
		dr.changed, dr.scratch = before.changed, before.scratch
		return err
	}
	return nil
}

func cloneMap(in map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// Mkdir starts a new folder: a skill to be, or a hidden scratch folder.
func (c *Copy) Mkdir(name string) error {
	if !Hidden(name) && skills.CheckName(name) != nil {
		return ErrBadName
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, _, ok := c.working(name); ok {
		return ErrExist
	}
	c.draftFor(name)
	return nil
}

// Rmdir removes an empty folder; for a saved skill that is the removal of
// the skill (a new version marks it removed).
func (c *Copy) Rmdir(ctx context.Context, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	files, d, ok := c.working(name)
	if !ok {
		return ErrNotExist
	}
	if len(files) > 0 || (d != nil && len(d.scratch) > 0) {
		return ErrNotEmpty
	}
	if _, isSaved := c.saved(name); isSaved {
		if _, err := c.store.Remove(ctx, name, "removed through the mount"); err != nil {
			c.draftFor(name).errors = "skills/" + name + " was not removed: " + err.Error() + "\n"
			c.log.Warn("removing a skill failed", "skill", name, "error", err)
			return fmt.Errorf("%w: %w", ErrBusy, err)
		}
		c.changed()
	}
	delete(c.drafts, name)
	return nil
}

// RenameFolder moves a whole folder onto skills/<newName>, saving it as
// that skill in one step. An invalid folder is refused with ErrNotSaved,
// its problems in ERRORS.txt of the folder that was moved. A hidden
// newName only renames the scratch folder.
func (c *Copy) RenameFolder(ctx context.Context, name, newName string) error {
	if Hidden(newName) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if _, _, ok := c.working(newName); ok {
			return ErrExist
		}
		if _, isSaved := c.saved(name); isSaved {
			return ErrRefused // a saved skill is removed with rmdir, not renamed away
		}
		if d := c.drafts[name]; d != nil {
			delete(c.drafts, name)
			c.drafts[newName] = d
		}
		return nil
	}
	if skills.CheckName(newName) != nil {
		return ErrBadName
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	files, _, ok := c.working(name)
	if !ok {
		return ErrNotExist
	}
	if _, srcSaved := c.saved(name); srcSaved {
		return ErrRefused // renaming a saved skill would change its package
	}
	saved, err := c.store.Save(ctx, c.tree(), newName, files, "mount")
	if err != nil {
		d := c.draftFor(name)
		d.errors = "skills/" + name + " was not saved as skills/" + newName + ": " + err.Error() + "\n\nNothing changed; fix the files here and rename again.\n"
		if !errors.Is(err, skills.ErrInvalid) {
			c.log.Error("saving a skill failed", "skill", newName, "error", err)
		}
		return fmt.Errorf("%w: %w", ErrNotSaved, err)
	}
	c.log.Info("skill saved", "skill", newName, "version", saved.Version)
	delete(c.drafts, name)
	if d := c.drafts[newName]; d != nil {
		d.changed = map[string][]byte{}
		d.errors = ""
		c.tidy(newName)
	}
	c.changed()
	return nil
}
