package cache

import (
	"os"

	"golang.org/x/sys/unix"
)

// freeBytes is the space an unprivileged write to dir's filesystem can
// still use.
func freeBytes(dir string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// allocate gives f real blocks for its first size bytes, so that writes
// through a mapping of them cannot fault for want of space. Blocks already
// there are left as they are.
func allocate(f *os.File, size int64) error {
	if size <= 0 {
		return nil
	}
	return unix.Fallocate(int(f.Fd()), 0, 0, size)
}
