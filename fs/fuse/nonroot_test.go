package fuse

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// The test binary runs itself in other roles: as the unprivileged user
// nobody (mounting through fusermount3), or as root in a mount namespace
// of its own (where it may change mounts without touching the host's).
const (
	roleEnv    = "MCPFS_FUSE_TEST_ROLE"
	roleDirEnv = "MCPFS_FUSE_TEST_DIR"
)

const nobody = 65534

// roleTree is the tree the roles mount.
func roleTree() *mcpfs.Tree {
	return mcpfs.New(catalog(server("alpha", "one", "two")), mcpfs.Options{})
}

// runRole runs the test binary in one role and returns its exit code.
func runRole(role, dir string) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, role+": "+format+"\n", args...)
		return 1
	}
	switch role {
	case "serve":
		// Mount dir, say "mounted", unmount when stdin closes.
		m, err := Mount(dir, roleTree(), Options{})
		if err != nil {
			return fail("%v", err)
		}
		fmt.Println("mounted")
		_, _ = io.Copy(io.Discard, os.Stdin)
		if err := m.Unmount(); err != nil {
			return fail("%v", err)
		}
		m.Wait()
		fmt.Println("unmounted")
	case "mount-while-forking":
		return mountWhileForking(dir)
	case "check":
		// Print what Check says about dir.
		fmt.Println(Check(dir, Options{}))
	case "mount-once":
		// Mount and unmount dir; print the error, if any.
		m, err := Mount(dir, roleTree(), Options{})
		if err == nil {
			err = m.Unmount()
			m.Wait()
		}
		fmt.Println(err)
	case "hide-fusermount":
		// In a mount namespace of its own, cover every fusermount with
		// /dev/null (not executable), then try again as nobody.
		for _, name := range []string{"/bin/fusermount3", "/bin/fusermount", "/usr/bin/fusermount3", "/usr/bin/fusermount", "/usr/local/bin/fusermount3"} {
			if _, err := os.Stat(name); err != nil {
				continue
			}
			if err := syscall.Mount("/dev/null", name, "", syscall.MS_BIND, ""); err != nil {
				return fail("cover %s: %v", name, err)
			}
		}
		if p := fusermount(); p != "" {
			return fail("%s is still found", p)
		}
		cmd := osexec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), roleEnv+"=mount-once")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return fail("%v", err)
		}
	case "fusectl":
		// In a mount namespace of its own, without fusectl mounted:
		// withFusectl mounts it for the call, then unmounts it.
		if fusectlMounted() {
			if err := syscall.Unmount(fusectlDir, 0); err != nil {
				return fail("unmount fusectl in the test namespace: %v", err)
			}
		}
		during := false
		err := withFusectl(slog.New(slog.DiscardHandler), func(dir string) {
			during = fusectlMounted() && dir == fusectlDir
		})
		switch {
		case err != nil:
			return fail("%v", err)
		case !during:
			return fail("fusectl was not mounted during the call")
		case fusectlMounted():
			return fail("fusectl is still mounted after the call")
		}
		fmt.Println("ok")
	default:
		return fail("unknown role")
	}
	return 0
}

// roleCmd runs the test binary copy bin in role, at dir, as uid (0 keeps
// root).
func roleCmd(bin, role, dir string, uid int) *osexec.Cmd {
	cmd := osexec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), roleEnv+"="+role, roleDirEnv+"="+dir)
	cmd.Stderr = os.Stderr
	if uid != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	return cmd
}

// asNobody runs a command as nobody and returns its combined output.
func asNobody(args ...string) (string, error) {
	cmd := osexec.Command(args[0], args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// nsEnv marks a test run again in a mount namespace of its own.
const nsEnv = "MCPFS_FUSE_TEST_NS"

// nobodySetup skips unless this test runs as root with fusermount3, and
// returns a copy of the test binary that nobody may run and a base
// directory nobody may enter. It returns "", "" when it ran the test in
// a child instead (see inFuseNamespace); the caller then returns.
func nobodySetup(t *testing.T) (bin, base string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the non-root mount test runs as root: it starts itself as the user nobody")
	}
	if fusermount() == "" {
		t.Skip("the non-root mount test needs fusermount3 (Debian/Ubuntu: apt-get install fuse3; Fedora: dnf install fuse3)")
	}
	info, err := os.Stat("/dev/fuse")
	if err != nil {
		t.Skipf("no /dev/fuse: %v", err)
	}
	if info.Mode().Perm()&0o006 != 0o006 && inFuseNamespace(t, info) {
		return "", ""
	}
	base, err = os.MkdirTemp("", "mcpfs-nonroot-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(base, "fuse.test")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, base
}

// inFuseNamespace handles a /dev/fuse that other users may not open
// (0600 in some containers; distributions make it 0666): fusermount3
// opens it as the calling user. In a child with a mount namespace of its
// own, where a 0666 node of the same device covers /dev/fuse, it runs the
// test again and reports true; the host keeps its /dev/fuse. In that
// child it covers /dev/fuse and reports false.
func inFuseNamespace(t *testing.T, dev os.FileInfo) bool {
	t.Helper()
	if os.Getenv(nsEnv) == "" {
		cmd := osexec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.v")
		cmd.Env = append(os.Environ(), nsEnv+"=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
		out, err := cmd.CombinedOutput()
		t.Logf("/dev/fuse is %v: ran the test in a mount namespace where nobody may open it:\n%s", dev.Mode(), out)
		switch {
		case err != nil:
			t.Fatalf("the test in a mount namespace: %v", err)
		case strings.Contains(string(out), "--- SKIP: "+t.Name()):
			t.Skip("skipped in the mount namespace")
		case !strings.Contains(string(out), "--- PASS: "+t.Name()):
			t.Fatal("the test did not run in the mount namespace")
		}
		return true
	}
	st, ok := dev.Sys().(*syscall.Stat_t)
	if !ok {
		t.Skip("no device number for /dev/fuse")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "mode=0755"); err != nil {
		t.Skipf("cannot mount a tmpfs for a /dev/fuse node nobody may open: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	node := filepath.Join(dir, "fuse")
	if err := syscall.Mknod(node, syscall.S_IFCHR|0o666, int(st.Rdev)); err != nil {
		t.Skipf("cannot make a /dev/fuse node nobody may open: %v", err)
	}
	if err := os.Chmod(node, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(node, "/dev/fuse", "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("cannot cover /dev/fuse in the mount namespace: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount("/dev/fuse", syscall.MNT_DETACH) })
	return false
}

// nobodyDir makes a directory owned by nobody under base.
func nobodyDir(t *testing.T, base, name string) string {
	t.Helper()
	dir := filepath.Join(base, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// If a step failed, the mount may still be there.
		if mounts, _ := mountsAt(dir); len(mounts) > 0 {
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	})
	return dir
}

// TestNonRootMount mounts as the user nobody, through fusermount3, and
// reads and writes the mount as nobody with real commands.
func TestNonRootMount(t *testing.T) {
	bin, base := nobodySetup(t)
	if bin == "" {
		return
	}
	mnt := nobodyDir(t, base, "mnt")

	cmd := roleCmd(bin, "serve", mnt, nobody)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	if line, err := readLine(out); err != nil || line != "mounted" {
		stdin.Close()
		_ = cmd.Wait()
		t.Fatalf("the child said %q, %v; want mounted", line, err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		stdin.Close()
		line, _ := readLine(out)
		if err := cmd.Wait(); err != nil || line != "unmounted" {
			t.Errorf("the child said %q when asked to unmount, and exited with %v", line, err)
		}
	}
	defer stop()

	mounts, _ := mountsAt(mnt)
	if len(mounts) != 1 || mounts[0].fsType != "fuse.mcpfs" {
		t.Fatalf("mounts at %s: %+v, want one fuse.mcpfs", mnt, mounts)
	}
	doc, err := roleTree().ReadFile("servers/alpha/doc.go")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(mnt, "servers/alpha/doc.go")
	tests := []struct {
		name string
		args []string
		ok   bool
		want string // in the output
	}{
		{"ls", []string{"ls", filepath.Join(mnt, "servers")}, true, "alpha"},
		{"ls -R", []string{"ls", "-R", mnt}, true, "one.go"},
		{"cat", []string{"cat", file}, true, string(doc)},
		{"write", []string{"sh", "-c", `echo x > "$0"`, file}, false, "Read-only file system"},
		{"append", []string{"sh", "-c", `echo x >> "$0"`, file}, false, "Read-only file system"},
		{"mkdir", []string{"mkdir", filepath.Join(mnt, "servers/alpha/x")}, false, "Read-only file system"},
		{"rm", []string{"rm", "-f", file}, false, "Read-only file system"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := asNobody(tt.args...)
			if (err == nil) != tt.ok {
				t.Errorf("%s: error %v, want success %v\n%s", strings.Join(tt.args, " "), err, tt.ok, got)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("%s: output lacks %q:\n%s", strings.Join(tt.args, " "), tt.want, got)
			}
		})
	}

	stop()
	if mounts, _ := mountsAt(mnt); len(mounts) != 0 {
		t.Errorf("after the child unmounted: %+v still mounted", mounts)
	}
}

// TestNonRootStaleMount kills a process that mounted as nobody; mounting
// again as nobody removes the dead mount with fusermount3 -u -z. A dead
// mount of another user cannot be removed: the error says what to do.
func TestNonRootStaleMount(t *testing.T) {
	bin, base := nobodySetup(t)
	if bin == "" {
		return
	}
	killMounted := func(t *testing.T, dir string, uid int) {
		t.Helper()
		cmd := osexec.Command(bin, "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+dir)
		cmd.Stderr = os.Stderr
		if uid != 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := readLine(bufio.NewReader(stdout))
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if line != "mounted" {
			t.Fatalf("the child said %q, %v; want mounted", line, err)
		}
	}

	t.Run("own", func(t *testing.T) {
		dir := nobodyDir(t, base, "own")
		killMounted(t, dir, nobody)
		out, err := roleCmd(bin, "mount-once", dir, nobody).Output()
		if got := strings.TrimSpace(string(out)); err != nil || got != "<nil>" {
			t.Fatalf("mount as nobody over its own dead mount: %s, %v", got, err)
		}
		if mounts, _ := mountsAt(dir); len(mounts) != 0 {
			t.Errorf("mounts left at %s: %+v", dir, mounts)
		}
	})

	t.Run("another user's", func(t *testing.T) {
		dir := nobodyDir(t, base, "other")
		killMounted(t, dir, 0)
		out, err := roleCmd(bin, "check", dir, nobody).Output()
		if err != nil {
			t.Fatal(err)
		}
		got := strings.TrimSpace(string(out))
		for _, want := range []string{dir, "umount -l " + dir} {
			if !strings.Contains(got, want) {
				t.Errorf("Check as nobody over root's dead mount: %q lacks %q", got, want)
			}
		}
		// Root removes it.
		if err := Check(dir, Options{}); err != nil {
			t.Errorf("Check as root: %v", err)
		}
		if mounts, _ := mountsAt(dir); len(mounts) != 0 {
			t.Errorf("mounts left at %s: %+v", dir, mounts)
		}
	})
}

// TestNoFusermount checks the error a non-root user gets without
// fusermount3. The binaries are hidden in a mount namespace of a child,
// so the host keeps them.
func TestNoFusermount(t *testing.T) {
	bin, base := nobodySetup(t)
	if bin == "" {
		return
	}
	dir := nobodyDir(t, base, "mnt")
	cmd := roleCmd(bin, "hide-fusermount", dir, 0)
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := strings.TrimSpace(string(out))
	for _, want := range []string{"fusermount3", "apt-get install fuse3", "dnf install fuse3"} {
		if !strings.Contains(got, want) {
			t.Errorf("Mount as nobody without fusermount3: %q lacks %q", got, want)
		}
	}
}

// TestFusectlLeftAsFound checks that withFusectl unmounts fusectl when it
// mounted it. It runs in a child with a mount namespace of its own, so the
// host's fusectl mount is not touched.
func TestFusectlLeftAsFound(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting fusectl needs root")
	}
	if _, err := os.Stat(fusectlDir); err != nil {
		t.Skipf("no %s: %v", fusectlDir, err)
	}
	cmd := osexec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), roleEnv+"=fusectl")
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("%v\n%s", err, out)
	}
}
