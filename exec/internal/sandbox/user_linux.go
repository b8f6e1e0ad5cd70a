package sandbox

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// DropPrivileges makes a process that runs as root run as uid and gid with
// no supplementary groups and no capabilities: it empties the capability
// bounding set and the ambient set, then switches every thread's user and
// group ids, which clears the permitted and effective sets. A process that
// is not root has nothing to drop and reports what it runs as.
func DropPrivileges(uid, gid int) Layer {
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
	for c := 0; c <= lastCap(); c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return Layer{Name: LayerUser, Detail: fmt.Sprintf("drop capability %d from the bounding set: %v", c, err)}
		}
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

// lastCap is the highest capability number the kernel knows: the last
// one PR_CAPBSET_READ accepts (it fails with EINVAL past it). Asking the
// kernel costs a few system calls, where /proc/sys/kernel/cap_last_cap
// would need the worker's freshly mounted /proc.
func lastCap() int {
	known := func(c int) bool {
		_, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0)
		return err == nil
	}
	if !known(0) {
		return 63
	}
	lo, hi := 0, 64 // known(lo); hi is past any capability number
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if known(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
