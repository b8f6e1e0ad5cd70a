package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// MountProc mounts a /proc of the calling process's PID namespace over
// /proc, after making every mount of its mount namespace private so that
// nothing propagates to the host's. The caller must be in new PID and
// mount namespaces of its own (clone with CLONE_NEWPID|CLONE_NEWNS); both
// go when it exits, so nothing needs unmounting. Code that walks
// /proc/<getpid()> (go-landlock's libpsx in a cgo build) needs it: the
// host's /proc would name another process.
func MountProc() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mounts private before mounting /proc: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc of the PID namespace: %w", err)
	}
	return nil
}
