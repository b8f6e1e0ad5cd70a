package fuse

import (
	"context"
	"strings"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/skills"
)

// The skills/ folder is writable when Options.Skills is set. What the
// mount shows in skills/<name>/ is a working copy: the saved version plus
// the changes written since, kept by fs/internal/workcopy, which also
// says when changes are saved and what a refused save leaves behind
// (ERRORS.txt; close, fsync or rename fail with EIO). skills_nodes.go
// translates FUSE requests into calls on it; this file holds what touches
// the mount itself: serving the store's skills after a save.

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

// Operations on skills/ itself (a dirNode), when it is writable.

// mkdirSkill starts a new folder: a skill to be, or a hidden scratch
// folder.
func (m *Mounted) mkdirSkill(ctx context.Context, parent *fusefs.Inode, name string, out *gofuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	if err := m.work.Mkdir(name); err != nil {
		return nil, m.errno("mkdir", mcpfs.SkillsDir+"/"+name, err)
	}
	return m.lookupFolder(ctx, parent, name, out)
}

// rmdirSkill removes an empty folder; for a saved skill that is the
// removal of the skill.
func (m *Mounted) rmdirSkill(ctx context.Context, name string) syscall.Errno {
	return m.errno("rmdir", mcpfs.SkillsDir+"/"+name, m.work.Rmdir(ctx, name))
}

// renameSkill moves a whole folder onto skills/<newName>, saving it as
// that skill in one step; EIO when it is invalid.
func (m *Mounted) renameSkill(ctx context.Context, name, newName string) syscall.Errno {
	return m.errno("rename", mcpfs.SkillsDir+"/"+name, m.work.RenameFolder(ctx, name, newName))
}
