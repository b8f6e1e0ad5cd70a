package fuse

import (
	"context"
	"errors"
	iofs "io/fs"
	"syscall"

	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// errno maps an error from the tree to the errno a FUSE request answers
// with. It is the one place where errors cross into the kernel; anything
// unexpected becomes EIO and is logged.
func (m *Mounted) errno(op, p string, err error) syscall.Errno {
	var en syscall.Errno
	switch {
	case err == nil:
		return 0
	case errors.Is(err, iofs.ErrNotExist):
		return syscall.ENOENT
	case errors.Is(err, mcpfs.ErrNotDir):
		return syscall.ENOTDIR
	case errors.Is(err, mcpfs.ErrIsDir):
		return syscall.EISDIR
	case errors.Is(err, syscall.EROFS):
		return syscall.EROFS
	case errors.Is(err, iofs.ErrPermission):
		return syscall.EACCES
	case errors.Is(err, iofs.ErrInvalid):
		return syscall.EINVAL
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.Is(err, syscall.EINTR):
		return syscall.EINTR
	case errors.As(err, &en):
		return en
	}
	m.log.Error("unexpected error serving the mount", "op", op, "path", p, "error", err)
	return syscall.EIO
}
