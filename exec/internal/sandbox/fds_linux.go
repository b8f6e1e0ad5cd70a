package sandbox

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// CloseInherited closes every file descriptor of the process except 0, 1,
// 2, those in keep and the Go runtime's own poller descriptors (an
// eventpoll and an eventfd, which carry no access to files). A descriptor
// inherited without close-on-exec from whoever started mcpfs (a shell's
// `exec 7</etc/shadow`) would otherwise reach the snippet, and Landlock
// does not check reads on a descriptor that is already open. Call it first
// thing in the worker, before anything opens files on purpose.
func CloseInherited(keep ...int) Layer {
	dir, err := unix.Open("/proc/self/fd", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		// Without /proc, close a generous range instead; the runtime's
		// poller is not running yet when nothing was opened.
		return closeRange(keep)
	}
	var fds []int
	buf := make([]byte, 8<<10)
	for {
		n, err := unix.Getdents(dir, buf)
		if err != nil {
			unix.Close(dir)
			return Layer{Name: LayerFDs, Detail: fmt.Sprintf("list /proc/self/fd: %v", err)}
		}
		if n <= 0 {
			break
		}
		var names []string
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
		for _, name := range names {
			if fd, err := strconv.Atoi(name); err == nil {
				fds = append(fds, fd)
			}
		}
	}
	var closed, failed []string
	for _, fd := range fds {
		if fd <= 2 || fd == dir || slices.Contains(keep, fd) {
			continue
		}
		target, _ := readlink("/proc/self/fd/" + strconv.Itoa(fd))
		if runtimeFD(fd, target) {
			continue
		}
		if err := unix.Close(fd); err != nil {
			failed = append(failed, fmt.Sprintf("%d: %v", fd, err))
			continue
		}
		closed = append(closed, fmt.Sprintf("%d (%s)", fd, target))
	}
	unix.Close(dir)
	if len(failed) > 0 {
		return Layer{Name: LayerFDs, Detail: "could not close " + strings.Join(failed, ", ")}
	}
	detail := "no descriptors but the worker's own"
	if len(closed) > 0 {
		detail += fmt.Sprintf("; closed %d inherited: %s", len(closed), strings.Join(closed, ", "))
	}
	return Layer{Name: LayerFDs, Active: true, Detail: detail}
}

func closeRange(keep []int) Layer {
	keep = slices.Sorted(slices.Values(keep))
	lo := 3
	for _, k := range keep {
		if k >= lo {
			if k > lo {
				if err := unix.CloseRange(uint(lo), uint(k-1), 0); err != nil {
					return Layer{Name: LayerFDs, Detail: fmt.Sprintf("close_range: %v", err)}
				}
			}
			lo = k + 1
		}
	}
	if err := unix.CloseRange(uint(lo), ^uint(0), 0); err != nil {
		return Layer{Name: LayerFDs, Detail: fmt.Sprintf("close_range: %v", err)}
	}
	return Layer{Name: LayerFDs, Active: true, Detail: "closed every descriptor above the worker's own (no /proc to list them)"}
}

func readlink(p string) (string, error) {
	buf := make([]byte, 256)
	n, err := unix.Readlink(p, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// runtimeFD reports whether fd is one the Go runtime opened before main
// and keeps using: its poller (an eventpoll and an eventfd) and the
// cgroup CPU limit files it rereads to adjust GOMAXPROCS (Go 1.25 and
// later), opened read-only. Closing one of those would make the runtime
// read or poll whatever descriptor takes its number next.
func runtimeFD(fd int, target string) bool {
	switch {
	case target == "anon_inode:[eventpoll]" || target == "anon_inode:[eventfd]":
		return true
	case strings.HasPrefix(target, "/sys/fs/cgroup/"):
		fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		return err == nil && fl&unix.O_ACCMODE == unix.O_RDONLY
	}
	return false
}
