package skills

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// writeFileSync creates path (which must not exist), writes data and
// fsyncs it.
func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir fsyncs a directory, making the renames and creations in it
// durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) { // file systems that cannot sync directories
		return nil
	}
	return err
}

// writeDirSync creates dir with files in it, all fsynced.
func writeDirSync(dir string, files map[string][]byte) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	for name, data := range files {
		if err := writeFileSync(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	return syncDir(dir)
}

// tempName returns a name for a temporary entry: prefix + random hex.
func tempName(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// replaceDir makes the directory tmp appear at dst, replacing what was
// there, and removes the old content. With RENAME_EXCHANGE the switch is
// atomic; on file systems without it, dst is missing for an instant,
// which Open repairs after a crash.
func replaceDir(tmp, dst string) error {
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, dst, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		return os.RemoveAll(tmp) // now the old content
	case errors.Is(err, syscall.ENOENT):
		// dst does not exist yet.
		return os.Rename(tmp, dst)
	case errors.Is(err, syscall.EINVAL), errors.Is(err, syscall.ENOSYS), errors.Is(err, syscall.ENOTSUP):
		old := filepath.Join(filepath.Dir(dst), tempName(".old-"))
		if err := os.Rename(dst, old); err != nil {
			return fmt.Errorf("move %s aside: %w", dst, err)
		}
		if err := os.Rename(tmp, dst); err != nil {
			return err
		}
		return os.RemoveAll(old)
	}
	return err
}

// lockFile holds an exclusive flock on a file.
type lockFile struct{ f *os.File }

func tryLock(path string) (*lockFile, bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return &lockFile{f: f}, true, nil
}

func (l *lockFile) unlock() {
	_ = unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	l.f.Close()
}
