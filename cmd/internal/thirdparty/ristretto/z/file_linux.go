/*
 * SPDX-FileCopyrightText: © Hypermode Inc. <hello@hypermode.com>
 * SPDX-License-Identifier: Apache-2.0
 */

package z

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Truncate would truncate the mmapped file to the given size. On Linux, we truncate
// the underlying file and then call mremap, but on other systems, we unmap first,
// then truncate, then re-map.
func (m *MmapFile) Truncate(maxSz int64) error {
	if err := m.Sync(); err != nil {
		return fmt.Errorf("while sync file: %s, error: %v\n", m.Fd.Name(), err)
	}
	// mcpfs: a file that grows gets real blocks for the new part, so
	// that a full disk is an error here, not a SIGBUS at the next store
	// through the mapping.
	if err := grow(m.Fd, int64(len(m.Data)), maxSz); err != nil {
		return fmt.Errorf("while truncate file: %s, error: %w", m.Fd.Name(), err)
	}

	var err error
	m.Data, err = mremap(m.Data, int(maxSz)) // Mmap up to max size.
	return err
}

// grow makes fd size bytes long. When that grows it past from (its size
// before), the new bytes get real blocks (fallocate), so that the disk
// being full is ENOSPC now rather than SIGBUS when a mapping of them is
// written; file systems without fallocate are truncated as upstream
// does. Shrinking truncates. (mcpfs patch.)
func grow(fd *os.File, from, size int64) error {
	if size <= from {
		return fd.Truncate(size)
	}
	err := unix.Fallocate(int(fd.Fd()), 0, from, size-from)
	if errors.Is(err, unix.ENOSPC) && NoSpace != nil && NoSpace() {
		err = unix.Fallocate(int(fd.Fd()), 0, from, size-from)
	}
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		return fd.Truncate(size)
	}
	if err != nil {
		return &os.PathError{Op: "fallocate", Path: fd.Name(), Err: err}
	}
	// fallocate leaves a longer file as it is: the size asked for counts.
	return fd.Truncate(size)
}
