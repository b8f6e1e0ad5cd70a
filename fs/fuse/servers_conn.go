package fuse

import (
	"fmt"
	"path/filepath"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// servers/ on a connection of its own.
//
// The files under servers/ are most of the tree and what agents read
// (cat, grep -r, go vet, imports). Each open of a FUSE file normally costs
// a round trip to this process (OPEN, then RELEASE after close): a warm
// open+read+close took about 5× as long as the same file on disk. The
// kernel can skip OPEN, RELEASE and FLUSH altogether, with the data kept
// in the page cache (FOPEN_KEEP_CACHE), but only for a whole connection:
// the first OPEN answered with ENOSYS switches OPEN off for every file of
// the connection (FUSE_NO_OPEN_SUPPORT), and the first FLUSH answered with
// ENOSYS switches FLUSH off. The writable folders of the main connection
// (skills/, run/) need both: a file there is saved or run when it is
// closed.
//
// So, as root, servers/ gets a second connection mounted read only
// (MS_RDONLY) over the main connection's servers/. Its nodes are ordinary
// dirNode and fileNode values with ro set; its files answer OPEN and FLUSH
// with ENOSYS, and the kernel refuses every change with EROFS before
// asking. A non-root mount keeps servers/ on the main connection:
// fusermount3 runs with the effective uid root, and the kernel keeps it
// out of a mount made by another user without allow_other, so it cannot
// mount on a directory inside the main mount.

// serversConn is the second connection, serving servers/.
type serversConn struct {
	server *gofuse.Server
	root   *dirNode
	dir    string
}

// mountServers mounts the read-only connection of servers/ over the main
// mount's servers/ folder. The caller holds no lock; the main connection
// is already served (the kernel looks servers/ up through it).
func (m *Mounted) mountServers(fo *fusefs.Options) error {
	if info, err := m.tree.Load().Stat(mcpfs.ServersDir); err != nil || !info.IsDir() {
		return fmt.Errorf("the tree has no %s folder to mount on", mcpfs.ServersDir)
	}
	dir := filepath.Join(m.dir, mcpfs.ServersDir)
	root := &dirNode{m: m, path: mcpfs.ServersDir, ro: true}
	opts := *fo
	opts.MountOptions.FsName = "mcpfs"
	// DirectMountFlags replaces go-fuse's default MS_NOSUID|MS_NODEV.
	opts.MountOptions.DirectMountFlags = syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_RDONLY
	rawFS := fusefs.NewNodeFS(root, &opts)

	syscall.ForkLock.RLock() // see Mount: /dev/fuse must not leak into children
	server, err := gofuse.NewServer(rawFS, dir, &opts.MountOptions)
	var cloexecErr error
	if err == nil {
		cloexecErr = closeOnExecFuseFDs()
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return fmt.Errorf("mount %s read only: %w", dir, err)
	}
	if cloexecErr != nil {
		m.log.Warn("could not mark /dev/fuse close-on-exec; child processes may keep the mount alive", "dir", dir, "error", cloexecErr)
	}
	go server.Serve()
	if err := waitMount(server); err != nil {
		_ = server.Unmount()
		return fmt.Errorf("mount %s read only: waiting for the kernel: %w", dir, err)
	}
	m.servers.Store(&serversConn{server: server, root: root, dir: dir})
	return nil
}

// unmountServers unmounts the connection of servers/, if any, before the
// main one (which stays busy while a mount sits on it). A failure is left
// to the main unmount: its lazy fallback detaches both.
func (m *Mounted) unmountServers() {
	sc := m.servers.Load()
	if sc == nil {
		return
	}
	if err := sc.server.Unmount(); err != nil {
		m.log.Debug("unmount the servers/ connection", "dir", sc.dir, "error", err)
	}
}

// waitServers waits for the request loop of the servers/ connection.
func (m *Mounted) waitServers() {
	if sc := m.servers.Load(); sc != nil {
		sc.server.Wait()
	}
}

// invalidateServers is invalidate for the servers/ connection, whose
// inodes are apart from the main connection's.
func (m *Mounted) invalidateServers(old, new *mcpfs.Tree) {
	if sc := m.servers.Load(); sc != nil {
		m.invalidateDir(old, new, mcpfs.ServersDir, &sc.root.Inode)
	}
}
