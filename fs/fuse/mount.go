package fuse

import (
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	gofuse "github.com/hanwen/go-fuse/v2/fuse"

	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/fs/internal/jobs"
	"github.com/mcpfs/mcpfs/fs/internal/workcopy"
	"github.com/mcpfs/mcpfs/skills"
)

// DefaultCacheTimeout is how long the kernel caches entries, attributes and
// failed lookups when Options.CacheTimeout is zero.
const DefaultCacheTimeout = time.Second

// Options configure Mount. The zero value is ready to use.
type Options struct {
	// Logger receives diagnostics (stale mounts removed, unexpected
	// errors). Nil discards them.
	Logger *slog.Logger
	// CacheTimeout is how long the kernel may cache an entry, an
	// attribute or a failed lookup before asking again. Update
	// invalidates changes explicitly, so this bounds staleness only in
	// rare races. Zero means DefaultCacheTimeout.
	CacheTimeout time.Duration
	// Debug logs every FUSE request at debug level.
	Debug bool
	// Skills makes skills/ writable: folders written there are validated
	// and saved in this store, and every tree served shows the store's
	// current skills. Nil keeps skills/ read only.
	Skills *skills.Store
	// Run makes run/ live: a program written to run/<job>.go is run by
	// Run when the file is closed, and its result is read from
	// run/<job>.out (see run.go and run/README.md). Nil keeps run/ read
	// only and empty.
	Run Runner
	// Search, when set, adds search/: reading search/<words> returns
	// what Search gives for the words (search_nodes.go).
	Search Searcher
	// AuditFile, when set, is shown read only as audit/calls.jsonl: the
	// log of tool calls, read from disk on every request.
	AuditFile string
}

// Mounted is a mounted tree. Its methods are safe for concurrent use.
type Mounted struct {
	dir    string
	log    *slog.Logger
	server *gofuse.Server
	root   *dirNode
	ids    *inodeTable

	tree     atomic.Pointer[mcpfs.Tree]
	updateMu sync.Mutex // serializes invalidation (Update and saved skills)
	swapMu   sync.Mutex // serializes replacing the tree; never held while waiting on the kernel

	skills *skills.Store  // nil: skills/ is read only
	work   *workcopy.Copy // skills/'s working copy when skills is set
	run    *jobs.Table    // nil: run/ is read only
	search Searcher       // nil: no search/
	bg     sync.WaitGroup // invalidations after a skill was saved

	// auditFile is shown as audit/calls.jsonl; "" for no audit/.
	auditFile string

	// servers is the read-only connection serving servers/, mounted over
	// the main one (servers_conn.go); nil when servers/ is served here.
	servers atomic.Pointer[serversConn]

	unmountOnce sync.Once
	unmountErr  error
}

// Mount mounts initial at dir and serves it until Unmount. dir must be an
// empty directory; a dead mount left there by a killed process is removed
// first. As root the mount is made directly; other users need fusermount3.
func Mount(dir string, initial *mcpfs.Tree, opts Options) (*Mounted, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if initial == nil {
		initial = mcpfs.New(nil, mcpfs.Options{})
	}
	abs, err := check(dir, logger)
	if err != nil {
		return nil, err
	}
	asRoot := os.Geteuid() == 0

	m := &Mounted{dir: abs, log: logger, ids: newInodeTable(), skills: opts.Skills, search: opts.Search}
	if m.skills != nil {
		initial = initial.WithSkills(skills.ForTree(m.skills.List()))
		m.work = workcopy.New(m.skills, workcopy.Options{
			Tree:    func() iofs.FS { return m.tree.Load() },
			Changed: m.skillsChanged,
			Logger:  logger,
		})
	}
	m.tree.Store(initial)
	m.root = &dirNode{m: m, path: "."}
	m.auditFile = opts.AuditFile
	if opts.Run != nil {
		m.run = jobs.New(opts.Run, logger)
	}

	timeout := opts.CacheTimeout
	if timeout <= 0 {
		timeout = DefaultCacheTimeout
	}
	goLog := log.New(io.Discard, "", 0)
	if opts.Debug {
		goLog = slog.NewLogLogger(logger.Handler(), slog.LevelDebug)
	} else if opts.Logger != nil {
		goLog = slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
	}
	fo := &fusefs.Options{
		MountOptions: gofuse.MountOptions{
			FsName:            "mcpfs",
			Name:              "mcpfs",
			DirectMount:       asRoot,
			DirectMountStrict: asRoot,
			AllowOther:        false,
			Debug:             opts.Debug,
			Logger:            goLog,
		},
		EntryTimeout:    &timeout,
		AttrTimeout:     &timeout,
		NegativeTimeout: &timeout,
		UID:             uint32(os.Geteuid()),
		GID:             uint32(os.Getegid()),
		Logger:          goLog,
	}
	rawFS := fusefs.NewNodeFS(m.root, fo)

	// go-fuse opens /dev/fuse without O_CLOEXEC when it mounts directly.
	// Holding ForkLock keeps any child started meanwhile (a stdio MCP
	// server) from inheriting the fd before it is marked close-on-exec;
	// a child holding it would keep the mount alive, unanswered, after
	// this process dies. The fusermount path forks, so it cannot hold
	// the lock, and go-fuse marks that fd itself.
	if asRoot {
		syscall.ForkLock.RLock()
	}
	server, err := gofuse.NewServer(rawFS, abs, &fo.MountOptions)
	var cloexecErr error
	if err == nil {
		cloexecErr = closeOnExecFuseFDs()
	}
	if asRoot {
		syscall.ForkLock.RUnlock()
	}
	if err != nil {
		return nil, fmt.Errorf("mount %s: %w%s", abs, err, mountHint(err, asRoot))
	}
	if cloexecErr != nil {
		logger.Warn("could not mark /dev/fuse close-on-exec; child processes may keep the mount alive", "dir", abs, "error", cloexecErr)
	}
	m.server = server
	go server.Serve()
	if err := waitMount(server); err != nil {
		_ = m.Unmount()
		return nil, fmt.Errorf("mount %s: waiting for the kernel: %w", abs, err)
	}
	if asRoot {
		if err := m.mountServers(fo); err != nil {
			logger.Warn("servers/ is served by the main connection; each open of its files costs a round trip", "dir", abs, "error", err)
		}
	}
	return m, nil
}

// Check reports whether Mount could mount at dir: FUSE is usable and dir
// is an empty directory. Like Mount, it first removes a dead mount left at
// dir by a killed process. Call it to fail early, before starting work
// that a mount needs.
func Check(dir string, opts Options) error {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	_, err := check(dir, logger)
	return err
}

func check(dir string, logger *slog.Logger) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("mount %q: %w", dir, err)
	}
	asRoot := os.Geteuid() == 0
	if err := checkFuse(asRoot); err != nil {
		return "", fmt.Errorf("mount %s: %w", abs, err)
	}
	if err := prepareMountPoint(abs, asRoot, logger); err != nil {
		return "", fmt.Errorf("mount %s: %w", abs, err)
	}
	return abs, nil
}

// mountHint explains the usual causes of a failed mount.
func mountHint(err error, asRoot bool) string {
	switch {
	case errors.Is(err, syscall.EPERM) && asRoot:
		return " (mounting needs CAP_SYS_ADMIN; in a container, run it with --cap-add SYS_ADMIN --device /dev/fuse)"
	case errors.Is(err, syscall.ENODEV):
		return " (the kernel has no FUSE support: load it with modprobe fuse)"
	case !asRoot:
		return " (fusermount3 printed the reason on stderr; as a non-root user the mount point must be a directory you own and may write, and not inside another user's FUSE mount)"
	}
	return ""
}

// Dir returns the absolute path of the mount point.
func (m *Mounted) Dir() string { return m.dir }

// Tree returns the tree being served.
func (m *Mounted) Tree() *mcpfs.Tree { return m.tree.Load() }

// Update serves t from now on and tells the kernel to forget what changed
// since the previous tree: entries that appeared or disappeared, files
// whose content changed, and directory attributes. Unchanged files keep
// their inodes and cached pages. A nil t is ignored. With Options.Skills,
// the tree served is t with the store's current skills.
func (m *Mounted) Update(t *mcpfs.Tree) {
	if t == nil {
		return
	}
	m.updateMu.Lock()
	defer m.updateMu.Unlock()
	m.swapMu.Lock()
	if m.skills != nil {
		t = t.WithSkills(skills.ForTree(m.skills.List()))
	}
	old := m.tree.Swap(t)
	m.swapMu.Unlock()
	if old == t {
		return
	}
	m.invalidate(old, t)
}

// Unmount unmounts the tree and waits for the request loop to end. If the
// mount is busy (a shell's working directory is inside it), it is
// detached lazily instead: it disappears from the namespace at once and
// the kernel drops it when the last user leaves. Calling Unmount again
// returns the first result.
func (m *Mounted) Unmount() error {
	m.unmountOnce.Do(func() {
		if m.run != nil {
			m.run.Close() // cancels jobs, releasing reads that wait for them
		}
		m.unmountServers()
		err := m.server.Unmount()
		if err == nil {
			return
		}
		if derr := detach(m.dir, os.Geteuid() == 0); derr != nil {
			m.unmountErr = fmt.Errorf("unmount %s: %w (a lazy unmount failed too: %v; try: umount -l %s)", m.dir, err, derr, m.dir)
			return
		}
		m.log.Warn("mount point busy; detached it lazily", "dir", m.dir, "error", err)
	})
	m.bg.Wait()
	return m.unmountErr
}

// Wait blocks until the request loop ends: after Unmount, or when the
// mount was unmounted from outside (umount DIR).
func (m *Mounted) Wait() {
	m.server.Wait()
	m.waitServers()
}

// closeOnExecFuseFDs sets FD_CLOEXEC on every open /dev/fuse descriptor of
// this process. go-fuse does not expose its descriptor, so they are found
// by scanning /proc/self/fd.
func closeOnExecFuseFDs() error {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("list open files: %w", err)
	}
	found := false
	for _, e := range entries {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || target != "/dev/fuse" {
			continue
		}
		var fd int
		if _, err := fmt.Sscan(e.Name(), &fd); err != nil {
			continue
		}
		syscall.CloseOnExec(fd)
		found = true
	}
	if !found {
		return errors.New("no /dev/fuse descriptor in /proc/self/fd")
	}
	return nil
}

// checkFuse reports what is missing for mounting, with what to do about it.
func checkFuse(asRoot bool) error {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return fmt.Errorf("no FUSE device: %w (load the kernel module with modprobe fuse; in a container, pass --device /dev/fuse)", err)
	}
	if asRoot {
		return nil
	}
	if fusermount() == "" {
		return errors.New("mounting as a non-root user needs fusermount3, which is not installed (Debian/Ubuntu: apt-get install fuse3; Fedora: dnf install fuse3), or run mcpfs mount as root")
	}
	return nil
}

// fusermount returns the fusermount binary go-fuse would use, or "": the
// first of fusermount3 and fusermount found in PATH or else in /bin.
func fusermount() string {
	for _, name := range []string{"fusermount3", "fusermount"} {
		for _, dir := range append(filepath.SplitList(os.Getenv("PATH")), "/bin") {
			if dir == "" {
				continue
			}
			p := filepath.Join(dir, name)
			if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
				return p
			}
		}
	}
	return ""
}

// waitMount waits for server's mount to answer, holding ForkLock: go-fuse
// then opens and closes a file on the new mount (its poll check) without
// O_CLOEXEC. A child forked meanwhile inherits that descriptor, and Go's
// child code may close it (moving its own descriptors into place) before
// exec: the FLUSH it sends then waits for an answer that never comes, and
// the child, the mount and the command waiting on it hang (seen with a
// stdio server starting while a mount came up).
func waitMount(server *gofuse.Server) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return server.WaitMount()
}
