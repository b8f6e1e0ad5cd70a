package fuse

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// staleStatTimeout is how long a stat of a FUSE mount point may take before
// the mount is considered dead (its server gone, or stuck).
const staleStatTimeout = 2 * time.Second

// prepareMountPoint checks that dir can be mounted on: it removes dead FUSE
// mounts left there by killed processes, then requires an empty directory.
func prepareMountPoint(dir string, asRoot bool, logger *slog.Logger) error {
	// A killed process can leave several mounts stacked on dir.
	for range 8 {
		mounts, err := mountsAt(dir)
		if err != nil {
			logger.Debug("could not read the mount table", "error", err)
		}
		isFuse := false
		for _, mt := range mounts {
			if strings.HasPrefix(mt.fsType, "fuse") {
				isFuse = true
			}
		}
		err = statTimeout(dir, staleStatTimeout)
		dead := errors.Is(err, syscall.ENOTCONN) || errors.Is(err, syscall.ECONNABORTED) ||
			(isFuse && errors.Is(err, errStatTimeout))
		if !dead {
			if err == nil && len(mounts) > 0 {
				how := "umount " + dir
				if mounts[len(mounts)-1].fsType == "fuse.mcpfs" {
					// A live mcpfs mount has servers/ mounted inside it.
					how = "stop the mcpfs that serves it, or umount -R " + dir
				}
				return fmt.Errorf("%s is already a mount point (%s); unmount it first (%s) or choose another directory", dir, mounts[len(mounts)-1].fsType, how)
			}
			if isFuse && errors.Is(err, syscall.EACCES) {
				// The kernel keeps users out of other users' FUSE
				// mounts, dead or alive.
				return fmt.Errorf("%s holds a FUSE mount of another user that this user may not use or remove (%v); its owner or root must unmount it (umount -l %s), or choose another directory", dir, err, dir)
			}
			return checkEmptyDir(dir, err)
		}
		logger.Warn("removing a dead mount left by a process that was killed", "dir", dir, "error", err)
		if asRoot {
			abortConnections(dir, logger)
		}
		if derr := detach(dir, asRoot); derr != nil {
			return fmt.Errorf("%s holds a dead FUSE mount (%v) that could not be removed: %w (try: umount -l %s)", dir, err, derr, dir)
		}
	}
	return fmt.Errorf("%s still holds dead FUSE mounts after removing 8 of them; try: umount -l %s", dir, dir)
}

func checkEmptyDir(dir string, statErr error) error {
	switch {
	case errors.Is(statErr, iofs.ErrNotExist):
		return fmt.Errorf("mount point %s does not exist (create it: mkdir -p %s)", dir, dir)
	case statErr != nil:
		return fmt.Errorf("mount point: %w", statErr)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("mount point: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("mount point %s is not a directory", dir)
	}
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("mount point: %w", err)
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if len(names) > 0 {
		return fmt.Errorf("mount point %s is not empty (it holds %s); mounting would hide its files: use an empty directory", dir, names[0])
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("mount point %s: %w", dir, err)
	}
	return nil
}

var errStatTimeout = errors.New("stat timed out")

// statTimeout stats dir, giving up after d. A stat of a mount whose server
// is stuck never returns; its goroutine is then left behind.
func statTimeout(dir string, d time.Duration) error {
	done := make(chan error, 1)
	go func() {
		var st syscall.Stat_t
		err := syscall.Stat(dir, &st)
		if err != nil {
			err = &iofs.PathError{Op: "stat", Path: dir, Err: err}
		}
		done <- err
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		return fmt.Errorf("stat %s: %w after %v", dir, errStatTimeout, d)
	}
}

// detach lazily unmounts dir: it leaves the namespace at once, and the
// kernel drops it when the last user is gone.
func detach(dir string, asRoot bool) error {
	if asRoot {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			return fmt.Errorf("umount -l %s: %w", dir, err)
		}
		return nil
	}
	bin := fusermount()
	if bin == "" {
		return errors.New("fusermount3 is not installed (Debian/Ubuntu: apt-get install fuse3; Fedora: dnf install fuse3)")
	}
	out, err := osexec.Command(bin, "-u", "-z", dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s -u -z %s: %w: %s", bin, dir, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// abortConnections aborts the FUSE connections of the mounts at dir and
// below it (the connection of servers/ sits on the main one). A dead
// mount can still have a live connection when a process forked by the
// killed server holds a copy of /dev/fuse (between fork and exec); whoever
// waits on that mount then hangs until the connection is aborted.
func abortConnections(dir string, logger *slog.Logger) {
	all, err := readMountInfo()
	if err != nil {
		logger.Debug("could not read the mount table", "error", err)
	}
	var devs []string
	for _, mt := range all {
		if strings.HasPrefix(mt.fsType, "fuse") && (mt.point == dir || strings.HasPrefix(mt.point, dir+"/")) {
			devs = append(devs, mt.dev)
		}
	}
	if len(devs) == 0 {
		return
	}
	err = withFusectl(logger, func(ctl string) {
		for _, dev := range devs {
			abortConnection(ctl, dev, logger)
		}
	})
	if err != nil {
		logger.Debug("could not abort the connections of dead FUSE mounts", "dir", dir, "error", err)
	}
}

// abortConnection aborts the FUSE connection of device dev ("0:52"),
// shown by fusectl in the directory ctl.
func abortConnection(ctl, dev string, logger *slog.Logger) {
	_, minor, ok := strings.Cut(dev, ":")
	if !ok {
		return
	}
	abort := filepath.Join(ctl, minor, "abort")
	if err := os.WriteFile(abort, []byte("1"), 0); err != nil {
		// No such file: the connection is gone already.
		logger.Debug("could not abort the FUSE connection", "device", dev, "error", err)
		return
	}
	logger.Info("aborted the connection of a dead FUSE mount", "device", dev)
}

// withFusectl calls f with the directory where the fusectl file system
// shows FUSE connections. systemd mounts it at boot on most systems; when
// it is not mounted, withFusectl mounts it for the call and unmounts it
// again, leaving the mount table as it found it.
func withFusectl(logger *slog.Logger, f func(dir string)) error {
	if fusectlMounted() {
		f(fusectlDir)
		return nil
	}
	if err := syscall.Mount("fusectl", fusectlDir, "fusectl", 0, ""); err != nil {
		if errors.Is(err, syscall.EBUSY) { // mounted meanwhile by someone else
			f(fusectlDir)
			return nil
		}
		return fmt.Errorf("mount fusectl at %s: %w", fusectlDir, err)
	}
	defer func() {
		err := syscall.Unmount(fusectlDir, 0)
		if errors.Is(err, syscall.EBUSY) {
			err = syscall.Unmount(fusectlDir, syscall.MNT_DETACH)
		}
		if err != nil {
			logger.Warn("could not unmount fusectl after using it", "dir", fusectlDir, "error", err, "fix", "umount "+fusectlDir)
		}
	}()
	f(fusectlDir)
	return nil
}

// fusectlMounted reports whether fusectl is mounted at fusectlDir.
func fusectlMounted() bool {
	mounts, _ := mountsAt(fusectlDir)
	for _, mt := range mounts {
		if mt.fsType == "fusectl" {
			return true
		}
	}
	return false
}

// fusectlDir is where the fusectl file system shows FUSE connections.
const fusectlDir = "/sys/fs/fuse/connections"

// mountEntry is one line of /proc/self/mountinfo.
type mountEntry struct {
	dev    string // major:minor
	point  string
	fsType string
	source string
}

// mountsAt lists the mounts whose mount point is dir, oldest first.
func mountsAt(dir string) ([]mountEntry, error) {
	all, err := readMountInfo()
	var out []mountEntry
	for _, m := range all {
		if m.point == dir {
			out = append(out, m)
		}
	}
	return out, err
}

func readMountInfo() ([]mountEntry, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mountEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if m, ok := parseMountInfoLine(sc.Text()); ok {
			out = append(out, m)
		}
	}
	return out, sc.Err()
}

// parseMountInfoLine parses a line of proc(5)'s mountinfo:
//
//	36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
func parseMountInfoLine(line string) (mountEntry, bool) {
	fields := strings.Fields(line)
	if len(fields) < 7 {
		return mountEntry{}, false
	}
	sep := -1
	for i := 6; i < len(fields); i++ {
		if fields[i] == "-" {
			sep = i
			break
		}
	}
	if sep < 0 || sep+2 >= len(fields) {
		return mountEntry{}, false
	}
	return mountEntry{
		dev:    fields[2],
		point:  unescapeMountInfo(fields[4]),
		fsType: fields[sep+1],
		source: unescapeMountInfo(fields[sep+2]),
	}, true
}

// unescapeMountInfo undoes the octal escapes (\040 for a space) of
// mountinfo fields.
func unescapeMountInfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
