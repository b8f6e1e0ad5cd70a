package fuse

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/skills"
)

// The skills/ folder is writable when Options.Skills is set. What the
// mount shows in skills/<name>/ is a working copy: the saved version plus
// the changes written since. Changes are saved (validated, then stored as
// a new version) at these points:
//
//   - close or fsync of a file that was written (a skill file: SKILL.md,
//     *.go, *.md);
//   - rename of a file onto a skill file, and rename of a folder onto
//     skills/<name> (the whole folder is saved at once);
//   - unlink of a skill file;
//   - rmdir of skills/<name> removes the skill.
//
// A save that fails validation makes close, fsync or rename fail with
// EIO, and skills/<name>/ERRORS.txt shows the problems; the working copy
// keeps the written bytes and the last good version stays the one
// snippets import. An unlink that leaves the skill invalid succeeds and
// stays pending (so rm -r works). A new skill that has no SKILL.md or no
// Go file yet is incomplete, not invalid: closing its files succeeds and
// nothing is saved until it is complete. Hidden folders (skills/.name)
// are scratch areas that are never validated: write a whole skill there
// and rename it onto skills/<name> to save it in one step. Other files
// (hidden names, editor backups, anything but SKILL.md, *.go and *.md)
// are scratch: kept in memory while the mount runs, never saved.

// stage holds the working copies that differ from the saved versions.
type stage struct {
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

// skillFolder splits a path inside skills/: folder and file ("" for the
// folder itself). ok is false outside skills/<folder>/.
func skillFolder(p string) (folder, file string, ok bool) {
	rest, found := strings.CutPrefix(p, mcpfs.SkillsDir+"/")
	if !found || rest == "" {
		return "", "", false
	}
	folder, file, _ = strings.Cut(rest, "/")
	if strings.Contains(file, "/") {
		return "", "", false
	}
	return folder, file, true
}

func hidden(folder string) bool { return strings.HasPrefix(folder, ".") }

// saved returns the saved files of a folder (nil for a folder that is
// not a saved skill).
func (m *Mounted) saved(folder string) (skills.Skill, bool) {
	if hidden(folder) {
		return skills.Skill{}, false
	}
	return m.skills.Get(folder)
}

// working returns the skill files of a folder's working copy and whether
// the folder exists. m.stage.mu must be held.
func (m *Mounted) working(folder string) (map[string][]byte, *draft, bool) {
	sk, isSaved := m.saved(folder)
	d := m.stage.drafts[folder]
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

// content returns a file of a folder's working copy. m.stage.mu must be
// held.
func (m *Mounted) content(folder, file string) ([]byte, bool) {
	files, d, ok := m.working(folder)
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

// names lists a folder's working copy: skill files, scratch files and
// ERRORS.txt. m.stage.mu must be held.
func (m *Mounted) names(folder string) []string {
	files, d, _ := m.working(folder)
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

// folders lists skills/: saved skills and folders being written.
func (m *Mounted) folders() []string {
	m.stage.mu.Lock()
	defer m.stage.mu.Unlock()
	seen := map[string]bool{}
	for _, sk := range m.skills.List() {
		seen[sk.Name] = true
	}
	for f := range m.stage.drafts {
		seen[f] = true
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// draftFor returns the draft of a folder, making one. m.stage.mu must be
// held.
func (m *Mounted) draftFor(folder string) *draft {
	d := m.stage.drafts[folder]
	if d == nil {
		d = &draft{changed: map[string][]byte{}, scratch: map[string][]byte{}, mtime: time.Now()}
		m.stage.drafts[folder] = d
	}
	return d
}

// put sets a file of a folder's working copy. m.stage.mu must be held.
func (m *Mounted) put(folder, file string, data []byte) {
	d := m.draftFor(folder)
	d.mtime = time.Now()
	if skills.IsSkillFile(file) {
		d.changed[file] = data
	} else {
		d.scratch[file] = data
	}
}

// remove deletes a file of a folder's working copy. m.stage.mu must be
// held.
func (m *Mounted) remove(folder, file string) bool {
	if _, ok := m.content(folder, file); !ok {
		return false
	}
	d := m.draftFor(folder)
	d.mtime = time.Now()
	switch {
	case file == skills.ErrorsFile && d.errors != "":
		d.errors = ""
	case skills.IsSkillFile(file):
		d.changed[file] = nil
	default:
		delete(d.scratch, file)
	}
	m.tidy(folder)
	return true
}

// tidy drops a draft of a saved skill that has nothing pending.
// m.stage.mu must be held.
func (m *Mounted) tidy(folder string) {
	d := m.stage.drafts[folder]
	if d == nil {
		return
	}
	sk, isSaved := m.saved(folder)
	for n, data := range d.changed {
		if old, ok := sk.Files[n]; (data == nil && !ok) || (ok && string(old) == string(data)) {
			delete(d.changed, n)
		}
	}
	if isSaved && d.empty() {
		delete(m.stage.drafts, folder)
	}
}

// errIncomplete marks a new skill that cannot be saved yet.
var errIncomplete = errors.New("incomplete")

// save validates the working copy of folder and saves it as a new
// version. It returns errIncomplete for a new skill still missing files,
// and a *skills.ValidationError for an invalid one, whose problems are
// then in ERRORS.txt. m.stage.mu must be held.
func (m *Mounted) save(ctx context.Context, folder, note string) error {
	if hidden(folder) {
		return nil
	}
	files, d, ok := m.working(folder)
	if !ok || d == nil {
		return nil
	}
	sk, isSaved := m.saved(folder)
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
	saved, err := m.skills.Save(ctx, m.tree.Load(), folder, files, note)
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
			m.log.Error("saving a skill failed", "skill", folder, "error", err)
		}
		return err
	}
	m.log.Info("skill saved", "skill", folder, "version", saved.Version)
	d.changed = map[string][]byte{}
	d.errors = ""
	m.tidy(folder)
	m.skillsChanged()
	return nil
}

// saveErrno maps the result of save to what close, fsync and rename
// answer.
func saveErrno(err error) syscall.Errno {
	if err == nil || errors.Is(err, errIncomplete) {
		return 0
	}
	return syscall.EIO
}

// skillsChanged serves a tree with the store's current skills at once,
// and tells the kernel what changed in the background: a handler must not
// wait for the kernel to invalidate entries of a directory it holds
// locked.
func (m *Mounted) skillsChanged() {
	m.swapMu.Lock()
	old := m.tree.Load()
	t := old.WithSkills(skills.ForTree(m.skills.List()))
	m.tree.Store(t)
	m.swapMu.Unlock()
	m.bg.Add(1)
	go func() {
		defer m.bg.Done()
		m.updateMu.Lock()
		defer m.updateMu.Unlock()
		m.invalidate(old, t)
	}()
}

// RefreshSkills reads skills that other processes saved in the store
// (skills.Store.Refresh) and serves them.
func (m *Mounted) RefreshSkills() error {
	if m.skills == nil {
		return nil
	}
	changed, err := m.skills.Refresh()
	if changed {
		m.skillsChanged()
	}
	return err
}
