package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// OwnProc finishes the PID namespace of a worker that its parent started
// as pid 1 of new PID and mount namespaces: it stops mount events from
// reaching the host (private propagation), detaches the FUSE mounts the
// namespace copied (a copy would keep a mount of mcpfs's alive after it
// is unmounted, and the process serving it waiting), and mounts a /proc
// of the new PID namespace over the host's. Then /proc shows no process
// but the worker's own, and /proc/<getpid()>, which libpsx (go-landlock's
// way to confine every thread in a cgo build) reads, is the worker's own
// instead of the host's init. Call it first thing, before Apply.
//
// Failing, it says why: a cgo build must then not apply Landlock through
// libpsx (it would hang), and the worker should not go on.
func OwnProc() Layer {
	if os.Getpid() != 1 {
		return Layer{Name: LayerPIDNS, Detail: fmt.Sprintf("not the first process of a PID namespace (pid %d)", os.Getpid())}
	}
	// Nothing below may reach the host's mounts: private first.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return Layer{Name: LayerPIDNS, Detail: fmt.Sprintf("make the worker's mounts private: %v", err)}
	}
	n, err := detachFUSE()
	if err != nil {
		return Layer{Name: LayerPIDNS, Detail: fmt.Sprintf("detach FUSE mounts: %v", err)}
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return Layer{Name: LayerPIDNS, Detail: fmt.Sprintf("mount a /proc of its own: %v", err)}
	}
	detail := "its own PID namespace: the worker is pid 1, sees and signals no other process, and has a /proc of its own"
	if n > 0 {
		detail += fmt.Sprintf(" (%d FUSE mounts of the host detached from its copy of the mount table)", n)
	}
	return Layer{Name: LayerPIDNS, Active: true, Detail: detail}
}

// detachFUSE lazily unmounts every FUSE mount of the calling process's
// mount namespace, innermost first, and returns how many it detached.
func detachFUSE() (int, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return 0, err
	}
	var points []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 1 {
			continue
		}
		if fstype := g[0]; fstype == "fuse" || fstype == "fuseblk" || strings.HasPrefix(fstype, "fuse.") {
			points = append(points, unescapeMount(f[4]))
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	// Outer mount points first: detaching one takes those below it along
	// (they then fail with EINVAL or ENOENT), and no path is looked up
	// through a FUSE file system.
	sort.Slice(points, func(i, j int) bool { return len(points[i]) < len(points[j]) })
	n := 0
	for _, p := range points {
		switch err := unix.Unmount(p, unix.MNT_DETACH); err {
		case nil:
			n++
		case unix.EINVAL, unix.ENOENT:
		default:
			return n, fmt.Errorf("%s: %v", p, err)
		}
	}
	return n, nil
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
