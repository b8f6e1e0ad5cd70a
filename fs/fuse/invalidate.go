package fuse

import (
	"reflect"
	"strings"
	"syscall"
	"time"

	fusefs "github.com/hanwen/go-fuse/v2/fs"

	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// invalidate tells the kernel what changed between the trees old and new.
// It walks only the inodes the kernel holds (go-fuse drops an Inode when
// the kernel forgets it) and skips servers/<s>/ whenever the server's
// snapshot is unchanged, so it never generates an unchanged server.
func (m *Mounted) invalidate(old, new *mcpfs.Tree) {
	m.invalidateDir(old, new, ".", &m.root.Inode)
	m.invalidateServers(old, new)
}

// invalidateDir handles the directory at p, which the kernel knows as in.
func (m *Mounted) invalidateDir(old, new *mcpfs.Tree, p string, in *fusefs.Inode) {
	// Names that appeared may sit in the kernel as negative entries.
	before := dirNames(old, p)
	after := dirNames(new, p)
	listingChanged := len(before) != len(after)
	for name := range after {
		if _, ok := before[name]; !ok {
			listingChanged = true
			m.notifyEntry(in, p, name)
		}
	}
	if listingChanged {
		m.ids.touchDir(p, modTime(new))
		// Drops the directory's cached attributes (its mtime changed).
		if errno := in.NotifyContent(0, 0); errno != 0 && errno != syscall.ENOENT {
			m.log.Debug("invalidate directory attributes", "path", p, "errno", errno)
		}
	}

	for name, child := range in.Children() {
		q := childPath(p, name)
		switch n := child.Operations().(type) {
		case *dirNode:
			info, err := new.Stat(q)
			if err != nil || !info.IsDir() {
				m.notifyDelete(in, p, name, child)
				continue
			}
			if server, ok := serverName(q); ok && sameServer(old, new, server) {
				continue
			}
			m.invalidateDir(old, new, q, child)
		case *fileNode:
			data, err := new.Bytes(q)
			if err != nil {
				m.notifyDelete(in, p, name, child)
				continue
			}
			if m.ids.sum(data) != n.sum {
				// The path now names a new inode; whoever has the
				// old one open keeps reading the old bytes.
				m.notifyEntry(in, p, name)
			}
		}
	}
}

func (m *Mounted) notifyEntry(in *fusefs.Inode, dir, name string) {
	if errno := in.NotifyEntry(name); errno != 0 && errno != syscall.ENOENT {
		m.log.Debug("invalidate entry", "path", childPath(dir, name), "errno", errno)
	}
}

// notifyDelete tells the kernel that name is gone from dir (inotify
// watchers see a deletion). A directory the kernel still holds children
// of cannot be deleted that way; its entry is invalidated instead.
func (m *Mounted) notifyDelete(in *fusefs.Inode, dir, name string, child *fusefs.Inode) {
	if errno := in.NotifyDelete(name, child); errno != 0 {
		m.notifyEntry(in, dir, name)
	}
}

// serverName reports whether p is servers/<name>.
func serverName(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, mcpfs.ServersDir+"/")
	if !ok || rest == "" || strings.Contains(rest, "/") {
		return "", false
	}
	return rest, true
}

// sameServer reports whether the server has the same snapshot in both
// trees. The generator is a pure function of the snapshot, so the same
// snapshot means the same files.
func sameServer(old, new *mcpfs.Tree, name string) bool {
	a, ok1 := old.Server(name)
	b, ok2 := new.Server(name)
	return ok1 && ok2 && reflect.DeepEqual(a, b)
}

func dirNames(t *mcpfs.Tree, p string) map[string]struct{} {
	entries, err := t.ReadDir(p)
	if err != nil {
		return nil
	}
	names := make(map[string]struct{}, len(entries))
	for _, e := range entries {
		names[e.Name()] = struct{}{}
	}
	return names
}

func modTime(t *mcpfs.Tree) (mt time.Time) {
	if info, err := t.Stat("."); err == nil {
		return info.ModTime()
	}
	return mt
}
