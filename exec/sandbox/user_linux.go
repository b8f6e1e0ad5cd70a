package sandbox

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"
)

// DropPrivileges makes a process that runs as root run as uid and gid with
// no supplementary groups and no capabilities: it empties the capability
// bounding set and the ambient set, then switches every thread's user and
// group ids, which clears the permitted and effective sets. A process that
// is not root has nothing to drop and reports what it runs as.
//
// A uid below 0 keeps the user and drops only the capabilities: for a
// worker that is root of a user namespace mapping root to the user who
// started mcpfs.
func DropPrivileges(uid, gid int) Layer {
	if uid < 0 {
		if err := dropCaps(); err != nil {
			return Layer{Name: LayerUser, Detail: err.Error()}
		}
		if caps, err := effectiveCaps(); err != nil || caps != 0 {
			return Layer{Name: LayerUser, Detail: fmt.Sprintf("still holds capabilities %#x (%v)", caps, err)}
		}
		return Layer{Name: LayerUser, Active: true, Detail: "the user who started mcpfs (uid 0 of its own user namespace, mapped to that user), no capabilities (bounding set empty)"}
	}
	if os.Geteuid() != 0 {
		if err := dropAmbient(); err != nil {
			return Layer{Name: LayerUser, Detail: err.Error()}
		}
		if caps, err := effectiveCaps(); err != nil || caps != 0 {
			return Layer{Name: LayerUser, Detail: fmt.Sprintf("runs as uid %d but keeps capabilities %#x (%v)", os.Geteuid(), caps, err)}
		}
		return Layer{Name: LayerUser, Active: true, Detail: fmt.Sprintf("uid %d, gid %d (not root), no capabilities", os.Geteuid(), os.Getegid())}
	}
	if uid == 0 || gid == 0 {
		return Layer{Name: LayerUser, Detail: "asked to stay root"}
	}
	// The bounding set first: dropping from it needs CAP_SETPCAP, which
	// goes with the switch of user below.
	if err := dropBounding(); err != nil {
		return Layer{Name: LayerUser, Detail: err.Error()}
	}
	if err := dropAmbient(); err != nil {
		return Layer{Name: LayerUser, Detail: err.Error()}
	}
	// The Go runtime applies these to every thread of the process.
	if err := unix.Setgroups(nil); err != nil {
		return Layer{Name: LayerUser, Detail: fmt.Sprintf("setgroups: %v", err)}
	}
	if err := unix.Setresgid(gid, gid, gid); err != nil {
		return Layer{Name: LayerUser, Detail: fmt.Sprintf("setresgid %d: %v", gid, err)}
	}
	if err := unix.Setresuid(uid, uid, uid); err != nil {
		return Layer{Name: LayerUser, Detail: fmt.Sprintf("setresuid %d: %v", uid, err)}
	}
	if caps, err := effectiveCaps(); err != nil || caps != 0 {
		return Layer{Name: LayerUser, Detail: fmt.Sprintf("still holds capabilities %#x after switching to uid %d (%v)", caps, uid, err)}
	}
	return Layer{Name: LayerUser, Active: true, Detail: fmt.Sprintf("started by root, runs as uid %d, gid %d with no groups and no capabilities (bounding set empty)", uid, gid)}
}

func dropBounding() error {
	for c := 0; c <= lastCap(); c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("drop capability %d from the bounding set: %v", c, err)
		}
	}
	return nil
}

// dropCaps empties the bounding, ambient, inheritable, permitted and
// effective sets of every thread, keeping the user.
func dropCaps() error {
	if err := dropBounding(); err != nil {
		return err
	}
	if err := dropAmbient(); err != nil {
		return err
	}
	// capset applies to the calling thread only: psx (which Landlock uses
	// as well) carries it to every thread, with or without cgo.
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if _, _, e := psx.Syscall3(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return fmt.Errorf("capset: %v", e)
	}
	return nil
}

func dropAmbient() error {
	err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	if err != nil && err != unix.EINVAL { // EINVAL: a kernel without ambient capabilities
		return fmt.Errorf("clear ambient capabilities: %v", err)
	}
	return nil
}

// effectiveCaps returns the permitted and effective capability sets of the
// calling thread, or-ed together.
func effectiveCaps() (uint64, error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return 0, fmt.Errorf("capget: %v", err)
	}
	return uint64(data[0].Permitted|data[0].Effective) | uint64(data[1].Permitted|data[1].Effective)<<32, nil
}

// lastCap is the highest capability number the kernel knows.
func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		var n int
		if _, err := fmt.Sscanf(string(b), "%d", &n); err == nil && n > 0 {
			return n
		}
	}
	return 63
}
