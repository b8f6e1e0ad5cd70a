package fuse

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/mcpfs/mcpfs/discovery"
	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/fs/internal/jobs"
	"github.com/mcpfs/mcpfs/fs/internal/workcopy"
)

// TestMatchesTree walks the mount with real syscalls and compares every
// directory listing, file, size and mode with the Tree it serves.
func TestMatchesTree(t *testing.T) {
	tr := tree(server("alpha", "create_issue", "list_issues"), server("beta", "search"))
	m := testMount(t, tr)

	var want []string
	err := iofs.WalkDir(tr, ".", func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		want = append(want, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = filepath.WalkDir(m.Dir(), func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(m.Dir(), p)
		got = append(got, filepath.ToSlash(rel))
		info, err := os.Stat(p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if info.Mode() != iofs.ModeDir|0o555 {
				t.Errorf("%s: mode %v, want %v", rel, info.Mode(), iofs.ModeDir|0o555)
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		wantData, err := tr.ReadFile(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		if !bytes.Equal(data, wantData) {
			t.Errorf("%s: content differs from the tree (%d bytes, want %d)", rel, len(data), len(wantData))
		}
		if info.Size() != int64(len(data)) {
			t.Errorf("%s: stat size %d, but read %d bytes", rel, info.Size(), len(data))
		}
		if info.Mode() != 0o444 {
			t.Errorf("%s: mode %v, want -r--r--r--", rel, info.Mode())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("walk of the mount:\n got %v\nwant %v", got, want)
	}
	for _, dir := range []string{"skills", "run"} {
		entries, err := os.ReadDir(filepath.Join(m.Dir(), dir))
		if err != nil || len(entries) != 0 {
			t.Errorf("ReadDir(%s) = %v, %v; want an empty folder", dir, entries, err)
		}
	}
}

// TestCommands runs the tools an agent uses against the mount.
func TestCommands(t *testing.T) {
	tr := tree(server("alpha", "create_issue", "list_issues"), server("beta", "search"))
	m := testMount(t, tr)
	doc, err := tr.ReadFile("servers/alpha/doc.go")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want []string // lines or fragments the output must contain
	}{
		{"ls", []string{"ls", "servers"}, []string{"alpha\n", "beta\n"}},
		{"ls -R", []string{"ls", "-R", "."}, []string{"./servers/alpha:\n", "doc.go", "README.md"}},
		{"cat", []string{"cat", "servers/alpha/doc.go"}, []string{string(doc)}},
		{"find", []string{"find", ".", "-name", "*.go", "-path", "*beta*"}, []string{"./servers/beta/doc.go\n"}},
		{"grep -r", []string{"grep", "-rl", "Does search", "servers"}, []string{"servers/beta/"}},
		{"grep -ril", []string{"grep", "-ril", "DOES LIST_ISSUES", "."}, []string{"./servers/alpha/"}},
		{"wc -c", []string{"sh", "-c", "cat servers/alpha/doc.go | wc -c"}, []string{fmt.Sprint(len(doc))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := osexec.LookPath(tt.args[0]); err != nil {
				t.Skipf("%s is not installed", tt.args[0])
			}
			out, err := commandIn(m.Dir(), tt.args...).CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", strings.Join(tt.args, " "), err, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("%s: output lacks %q:\n%s", strings.Join(tt.args, " "), w, out)
				}
			}
		})
	}
}

// TestReadOnly checks that every kind of change fails with EROFS, as root
// too (root ignores the 0444 mode bits).
func TestReadOnly(t *testing.T) {
	m := testMount(t, tree(server("alpha", "create_issue")))
	file := filepath.Join(m.Dir(), "servers/alpha/doc.go")
	dir := filepath.Join(m.Dir(), "servers/alpha")
	tests := []struct {
		name string
		op   func() error
	}{
		{"open for writing", func() error {
			f, err := os.OpenFile(file, os.O_WRONLY, 0)
			if err == nil {
				f.Close()
			}
			return err
		}},
		{"open read-write", func() error {
			f, err := os.OpenFile(file, os.O_RDWR, 0)
			if err == nil {
				f.Close()
			}
			return err
		}},
		{"open with O_TRUNC", func() error {
			f, err := os.OpenFile(file, os.O_RDONLY|os.O_TRUNC, 0)
			if err == nil {
				f.Close()
			}
			return err
		}},
		{"write a file", func() error { return os.WriteFile(file, []byte("x"), 0o644) }},
		{"create a file", func() error { return os.WriteFile(filepath.Join(dir, "new.go"), []byte("x"), 0o644) }},
		{"create in skills", func() error { return os.WriteFile(filepath.Join(m.Dir(), "skills/x.go"), nil, 0o644) }},
		{"create in run", func() error { return os.WriteFile(filepath.Join(m.Dir(), "run/main.go"), nil, 0o644) }},
		{"mkdir", func() error { return os.Mkdir(filepath.Join(dir, "sub"), 0o755) }},
		{"remove a file", func() error { return os.Remove(file) }},
		{"remove a folder", func() error { return syscall.Rmdir(dir) }},
		{"rename", func() error { return os.Rename(file, filepath.Join(dir, "other.go")) }},
		{"chmod", func() error { return os.Chmod(file, 0o777) }},
		{"chmod a folder", func() error { return os.Chmod(dir, 0o777) }},
		{"chown", func() error { return os.Chown(file, 1, 1) }},
		{"truncate", func() error { return os.Truncate(file, 0) }},
		{"utimes", func() error { return syscall.UtimesNano(file, make([]syscall.Timespec, 2)) }},
		{"symlink", func() error { return os.Symlink("doc.go", filepath.Join(dir, "link")) }},
		{"hard link", func() error { return os.Link(file, filepath.Join(dir, "link")) }},
		{"mknod", func() error { return syscall.Mknod(filepath.Join(dir, "fifo"), syscall.S_IFIFO|0o644, 0) }},
		{"setxattr", func() error { return syscall.Setxattr(file, "user.x", []byte("1"), 0) }},
		{"access W_OK", func() error { return syscall.Access(file, 2) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.op(); !errors.Is(err, syscall.EROFS) {
				t.Errorf("got %v, want EROFS", err)
			}
		})
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("after the refused changes: %v", err)
	}
}

// TestErrors checks the errno of failed lookups and reads.
func TestErrors(t *testing.T) {
	m := testMount(t, tree(server("alpha", "create_issue")))
	tests := []struct {
		name string
		op   func() error
		want syscall.Errno
	}{
		{"missing file", func() error { _, err := os.Stat(filepath.Join(m.Dir(), "servers/alpha/nope.go")); return err }, syscall.ENOENT},
		{"missing server", func() error { _, err := os.Stat(filepath.Join(m.Dir(), "servers/nope")); return err }, syscall.ENOENT},
		{"file as folder", func() error {
			_, err := os.Stat(filepath.Join(m.Dir(), "servers/alpha/doc.go/x"))
			return err
		}, syscall.ENOTDIR},
		{"read a folder", func() error { _, err := os.ReadFile(filepath.Join(m.Dir(), "servers")); return err }, syscall.EISDIR},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.op(); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func ino(tb testing.TB, p string) uint64 {
	tb.Helper()
	info, err := os.Stat(p)
	if err != nil {
		tb.Fatal(err)
	}
	return info.Sys().(*syscall.Stat_t).Ino
}

// TestUpdate swaps catalogs under a live mount: changes show within the
// deadline, and unchanged files keep their inodes.
func TestUpdate(t *testing.T) {
	alpha := server("alpha", "create_issue", "list_issues")
	beta := server("beta", "search")
	m := testMount(t, tree(alpha, beta))
	path := func(p string) string { return filepath.Join(m.Dir(), p) }

	// Warm the kernel's caches, including negative entries.
	for _, p := range []string{"servers/alpha/doc.go", "servers/alpha/create_issue.go", "servers/beta/search.go", "README.md"} {
		if _, err := os.ReadFile(path(p)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path("servers/gamma")); !errors.Is(err, iofs.ErrNotExist) {
		t.Fatalf("stat servers/gamma before adding it: %v", err)
	}
	betaIno := ino(t, path("servers/beta/search.go"))
	betaDir := ino(t, path("servers/beta"))
	readme, _ := os.ReadFile(path("README.md"))

	t.Run("add a server", func(t *testing.T) {
		gamma := server("gamma", "fetch")
		m.Update(tree(alpha, beta, gamma))
		eventually(t, "servers/gamma/fetch.go", func() error {
			_, err := os.Stat(path("servers/gamma/fetch.go"))
			return err
		})
		entries, err := os.ReadDir(path("servers"))
		if err != nil || len(entries) != 3 {
			t.Errorf("ReadDir(servers) = %d entries, %v; want 3", len(entries), err)
		}
		if got := ino(t, path("servers/beta/search.go")); got != betaIno {
			t.Errorf("unchanged file servers/beta/search.go: inode %d, want %d", got, betaIno)
		}
		if got := ino(t, path("servers/beta")); got != betaDir {
			t.Errorf("servers/beta: inode %d, want %d", got, betaDir)
		}
		eventually(t, "README.md changes", func() error {
			now, err := os.ReadFile(path("README.md"))
			if err != nil {
				return err
			}
			want, _ := m.Tree().ReadFile("README.md")
			if !bytes.Equal(now, want) {
				return fmt.Errorf("README.md is %d bytes, want the new %d bytes (old was %d)", len(now), len(want), len(readme))
			}
			return nil
		})
	})

	t.Run("change a tool", func(t *testing.T) {
		alpha2 := withDescription(alpha, "create_issue", "Opens a brand-new issue with a much longer description than before.")
		m.Update(tree(alpha2, beta, server("gamma", "fetch")))
		want, err := m.Tree().ReadFile("servers/alpha/create_issue.go")
		if err != nil {
			t.Fatal(err)
		}
		eventually(t, "servers/alpha/create_issue.go shows the new description", func() error {
			got, err := os.ReadFile(path("servers/alpha/create_issue.go"))
			if err != nil {
				return err
			}
			info, err := os.Stat(path("servers/alpha/create_issue.go"))
			if err != nil {
				return err
			}
			if !bytes.Equal(got, want) {
				return fmt.Errorf("content is the old one (%d bytes)", len(got))
			}
			if info.Size() != int64(len(got)) {
				return fmt.Errorf("stat size %d, read %d bytes", info.Size(), len(got))
			}
			return nil
		})
		if got := ino(t, path("servers/beta/search.go")); got != betaIno {
			t.Errorf("unchanged file servers/beta/search.go: inode %d, want %d", got, betaIno)
		}
	})

	t.Run("remove a server", func(t *testing.T) {
		m.Update(tree(alpha, server("gamma", "fetch")))
		eventually(t, "servers/beta disappears", func() error {
			if _, err := os.Stat(path("servers/beta/search.go")); !errors.Is(err, iofs.ErrNotExist) {
				return fmt.Errorf("stat servers/beta/search.go: %v", err)
			}
			if _, err := os.Stat(path("servers/beta")); !errors.Is(err, iofs.ErrNotExist) {
				return fmt.Errorf("stat servers/beta: %v", err)
			}
			return nil
		})
	})
}

// TestOpenFileKeepsContent checks that a file open across an update keeps
// reading the bytes it opened, with a matching size, while a new open sees
// the new content.
func TestOpenFileKeepsContent(t *testing.T) {
	alpha := server("alpha", "create_issue")
	first := tree(alpha)
	m := testMount(t, first)
	p := filepath.Join(m.Dir(), "servers/alpha/create_issue.go")
	old, err := first.ReadFile("servers/alpha/create_issue.go")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head := make([]byte, 10)
	if _, err := io.ReadFull(f, head); err != nil {
		t.Fatal(err)
	}

	second := tree(withDescription(alpha, "create_issue", strings.Repeat("A much longer description. ", 50)))
	m.Update(second)
	want, _ := second.ReadFile("servers/alpha/create_issue.go")
	eventually(t, "a new open sees the new content", func() error {
		got, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("got %d bytes, want %d", len(got), len(want))
		}
		return nil
	})

	rest, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := append(head, rest...); !bytes.Equal(got, old) {
		t.Errorf("the open file read %d bytes that differ from what it opened (%d bytes)", len(got), len(old))
	}
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() != int64(len(old)) {
		t.Errorf("fstat of the open file: size %d, want %d", info.Size(), len(old))
	}
}

// TestNoTornReads reads files while the catalog flips between versions of
// different sizes: every read must return exactly one whole version.
func TestNoTornReads(t *testing.T) {
	alpha := server("alpha", "create_issue")
	versions := []*mcpfs.Tree{
		tree(alpha),
		tree(withDescription(alpha, "create_issue", strings.Repeat("long ", 2000))),
		tree(withDescription(alpha, "create_issue", "short")),
	}
	valid := map[string]bool{}
	for _, v := range versions {
		data, err := v.ReadFile("servers/alpha/create_issue.go")
		if err != nil {
			t.Fatal(err)
		}
		valid[string(data)] = true
	}
	m := testMount(t, versions[0])
	p := filepath.Join(m.Dir(), "servers/alpha/create_issue.go")

	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				data, err := os.ReadFile(p)
				if err != nil {
					errs <- err
					return
				}
				if !valid[string(data)] {
					errs <- fmt.Errorf("read %d bytes that match no version", len(data))
					return
				}
			}
		})
	}
	for i := range 200 {
		m.Update(versions[(i+1)%len(versions)])
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestStaleMount kills a mounting process with SIGKILL and mounts again at
// the same directory.
func TestStaleMount(t *testing.T) {
	skipWithoutFuse(t)
	if os.Geteuid() != 0 {
		t.Skip("the stale-mount test runs as root only (lazy unmount without fusermount3)")
	}
	dir := t.TempDir()
	cmd := osexec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := readLine(bufio.NewReader(stdout))
	if err != nil || line != "mounted" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child said %q, %v; want mounted", line, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	// The mount is dead now, as after a crash.
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); !errors.Is(err, syscall.ENOTCONN) {
		t.Fatalf("stat of the killed mount: %v, want ENOTCONN", err)
	}

	m, err := Mount(dir, tree(server("beta", "search")), Options{})
	if err != nil {
		t.Fatalf("mount over the dead mount: %v", err)
	}
	defer func() {
		if err := m.Unmount(); err != nil {
			t.Error(err)
		}
		m.Wait()
	}()
	if _, err := os.Stat(filepath.Join(dir, "servers/beta/search.go")); err != nil {
		t.Errorf("the new mount does not serve its tree: %v", err)
	}
	mounts, _ := mountsAt(dir)
	if len(mounts) != 1 {
		t.Errorf("%d mounts at %s, want 1 (the dead one should be gone): %v", len(mounts), dir, mounts)
	}
}

// TestCloseOnExec checks that children do not inherit /dev/fuse.
func TestCloseOnExec(t *testing.T) {
	testMount(t, tree(server("alpha", "create_issue")))
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	n := 0
	for _, e := range entries {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || target != "/dev/fuse" {
			continue
		}
		n++
		var fd int
		fmt.Sscan(e.Name(), &fd)
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		if errno != 0 {
			t.Fatal(errno)
		}
		if flags&syscall.FD_CLOEXEC == 0 {
			t.Errorf("/dev/fuse fd %d is not close-on-exec", fd)
		}
	}
	if n == 0 {
		t.Fatal("found no /dev/fuse fd in /proc/self/fd")
	}
	out, err := osexec.Command("ls", "-l", "/proc/self/fd/").CombinedOutput()
	if err != nil {
		t.Fatalf("ls /proc/self/fd: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "/dev/fuse") {
		t.Errorf("a child inherited /dev/fuse:\n%s", out)
	}
}

// TestMountPointErrors checks the errors for unusable mount points.
func TestMountPointErrors(t *testing.T) {
	skipWithoutFuse(t)
	base := t.TempDir()
	file := filepath.Join(base, "file")
	full := filepath.Join(base, "full")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(full, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir  string
		want string
	}{
		{filepath.Join(base, "missing"), "does not exist (create it: mkdir -p"},
		{file, "is not a directory"},
		{full, "is not empty"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.dir), func(t *testing.T) {
			m, err := Mount(tt.dir, tree(), Options{})
			if err == nil {
				m.Unmount()
				m.Wait()
				t.Fatal("Mount succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestGoVet runs go vet inside the mount: the tree is a Go module.
func TestGoVet(t *testing.T) {
	goBin, err := osexec.LookPath("go")
	if err != nil {
		t.Skip("go vet test skipped: no go command in PATH")
	}
	if testing.Short() {
		t.Skip("go vet test skipped in -short mode")
	}
	var servers []discovery.ServerSnapshot
	for _, name := range []string{"everything", "filesystem", "memory"} {
		s, err := fixtureServer(name)
		if err != nil {
			t.Fatal(err)
		}
		servers = append(servers, s)
	}
	m := testMount(t, tree(servers...))
	cmd := commandIn(m.Dir(), goBin, "vet", "./...")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go vet ./... in the mount: %v\n%s", err, out)
	}
}

func TestParseMountInfo(t *testing.T) {
	tests := []struct {
		line string
		want mountEntry
		ok   bool
	}{
		{`36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue`, mountEntry{"98:0", "/mnt2", "ext3", "/dev/root"}, true},
		{`90 27 0:50 / /tmp/my\040dir rw,nosuid,nodev,relatime - fuse.mcpfs mcpfs rw,user_id=0,group_id=0`, mountEntry{"0:50", "/tmp/my dir", "fuse.mcpfs", "mcpfs"}, true},
		{`90 27 0:50 / /tmp/x rw shared:5 master:3 - fuse mcpfs rw`, mountEntry{"0:50", "/tmp/x", "fuse", "mcpfs"}, true},
		{`garbage`, mountEntry{}, false},
		{`1 2 3:4 / /x rw no-separator here at all`, mountEntry{}, false},
	}
	for _, tt := range tests {
		got, ok := parseMountInfoLine(tt.line)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseMountInfoLine(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestErrno(t *testing.T) {
	m := &Mounted{log: slog.New(slog.DiscardHandler)}
	tests := []struct {
		err  error
		want syscall.Errno
	}{
		{nil, 0},
		{&iofs.PathError{Op: "open", Path: "x", Err: iofs.ErrNotExist}, syscall.ENOENT},
		{fmt.Errorf("lookup: %w", &iofs.PathError{Op: "open", Path: "x", Err: mcpfs.ErrNotDir}), syscall.ENOTDIR},
		{&iofs.PathError{Op: "readfile", Path: "x", Err: mcpfs.ErrIsDir}, syscall.EISDIR},
		{fmt.Errorf("write: %w", syscall.EROFS), syscall.EROFS},
		{fmt.Errorf("call: %w", context.Canceled), syscall.EINTR},
		{context.DeadlineExceeded, syscall.EINTR},
		{iofs.ErrInvalid, syscall.EINVAL},
		{fmt.Errorf("x: %w", syscall.ENAMETOOLONG), syscall.ENAMETOOLONG},
		{errors.New("something odd"), syscall.EIO},
		{iofs.ErrExist, syscall.EEXIST},
		// run/ and skills/: a refused save wraps the store's error,
		// whatever that wraps.
		{fmt.Errorf("%w: %w", jobs.ErrFull, jobs.ErrClosed), syscall.ENOSPC},
		{fmt.Errorf("%w: bad", jobs.ErrBadName), syscall.EINVAL},
		{jobs.ErrRefused, syscall.EPERM},
		{jobs.ErrTooLarge, syscall.EFBIG},
		{jobs.ErrNotExist, syscall.ENOENT},
		{fmt.Errorf("%w: %w", workcopy.ErrNotSaved, &iofs.PathError{Op: "write", Path: "v3", Err: iofs.ErrNotExist}), syscall.EIO},
		{fmt.Errorf("%w: %w", workcopy.ErrBusy, context.Canceled), syscall.EBUSY},
		{workcopy.ErrNotEmpty, syscall.ENOTEMPTY},
		{workcopy.ErrReadOnly, syscall.EACCES},
		{workcopy.ErrRefused, syscall.EPERM},
		{workcopy.ErrCrossFolder, syscall.EXDEV},
	}
	for _, tt := range tests {
		if got := m.errno("test", "x", tt.err); got != tt.want {
			t.Errorf("errno(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// take returns what was written so far and empties the buffer.
func (b *syncBuffer) take() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.buf.String()
	b.buf.Reset()
	return s
}

// TestServersConnection checks that servers/ is served read only by a
// connection of its own whose files open, read and close without a
// request, while files of the main connection are still opened there.
func TestServersConnection(t *testing.T) {
	skipWithoutFuse(t)
	if os.Geteuid() != 0 {
		t.Skip("servers/ gets a connection of its own only when mounting as root")
	}
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	dir := t.TempDir()
	m, err := Mount(dir, tree(server("alpha", "create_issue")), Options{Debug: true, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := m.Unmount(); err != nil {
			t.Error(err)
		}
		m.Wait()
	}()

	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Join(dir, "servers"), &st); err != nil {
		t.Fatal(err)
	}
	if st.Flags&1 == 0 { // ST_RDONLY
		t.Errorf("servers/ is not a read-only mount (statfs flags %#x)", st.Flags)
	}
	mounts, _ := mountsAt(filepath.Join(dir, "servers"))
	if len(mounts) != 1 || mounts[0].fsType != "fuse.mcpfs" {
		t.Errorf("mounts at servers/: %+v, want one fuse.mcpfs", mounts)
	}

	requests := func(text string) []string {
		var out []string
		for _, line := range strings.Split(text, "\n") {
			for _, op := range []string{": OPEN ", ": FLUSH ", ": RELEASE "} {
				if strings.Contains(line, op) {
					out = append(out, line)
				}
			}
		}
		return out
	}
	for _, tt := range []struct {
		file      string
		wantOpens bool
	}{
		{"servers/alpha/create_issue.go", false},
		{"README.md", true},
	} {
		p := filepath.Join(dir, tt.file)
		for range 2 { // warm: the first open of a connection learns it is not needed
			if _, err := os.ReadFile(p); err != nil {
				t.Fatal(err)
			}
		}
		logs.take()
		for range 3 {
			if _, err := os.ReadFile(p); err != nil {
				t.Fatal(err)
			}
		}
		if got := requests(logs.take()); (len(got) > 0) != tt.wantOpens {
			t.Errorf("%s: open/flush/release requests %q, want some: %v", tt.file, got, tt.wantOpens)
		}
	}
}
