package fuse

import (
	"context"
	"errors"
	iofs "io/fs"
	"syscall"

	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/fs/internal/jobs"
	"github.com/mcpfs/mcpfs/fs/internal/workcopy"
)

// errnos maps the errors of run/'s job table and skills/'s working copy;
// they are looked for first, as they may wrap others (a refused save
// wraps the store's error).
var errnos = []struct {
	err   error
	errno syscall.Errno
}{
	{jobs.ErrRefused, syscall.EPERM},
	{jobs.ErrBadName, syscall.EINVAL},
	{jobs.ErrFull, syscall.ENOSPC},
	{jobs.ErrReadOnly, syscall.EACCES},
	{jobs.ErrTooLarge, syscall.EFBIG},
	{jobs.ErrNotDir, syscall.ENOTDIR},
	{workcopy.ErrNotSaved, syscall.EIO},
	{workcopy.ErrBusy, syscall.EBUSY},
	{workcopy.ErrReadOnly, syscall.EACCES},
	{workcopy.ErrRefused, syscall.EPERM},
	{workcopy.ErrBadName, syscall.EINVAL},
	{workcopy.ErrNotEmpty, syscall.ENOTEMPTY},
	{workcopy.ErrCrossFolder, syscall.EXDEV},
	{workcopy.ErrTooLarge, syscall.EFBIG},
}

// errno maps an error from the tree to the errno a FUSE request answers
// with. It is the one place where errors cross into the kernel; anything
// unexpected becomes EIO and is logged.
func (m *Mounted) errno(op, p string, err error) syscall.Errno {
	if err == nil {
		return 0
	}
	for _, e := range errnos {
		if errors.Is(err, e.err) {
			return e.errno
		}
	}
	var en syscall.Errno
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return syscall.ENOENT
	case errors.Is(err, iofs.ErrExist):
		return syscall.EEXIST
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
