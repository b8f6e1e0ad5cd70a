package discovery

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
)

// sysProcAttr puts a stdio server in its own process group, so stopping it
// reaches everything it started (npx → node, uvx → python), and asks the
// kernel to SIGKILL it if mcpfs dies without stopping it. Pdeathsig fires
// when the thread that started the child exits; the Go runtime keeps its
// threads unless a goroutine exits while locked to one, which mcpfs never
// does. It reaches only the direct child, not its descendants.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// processState describes a process that is not running normally, from
// /proc/<pid>/stat (", the process is stopped (SIGSTOP)"), or "".
func processState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return ""
	}
	switch b[i+2] {
	case 'T':
		return "; the process is stopped (SIGSTOP or a terminal stop)"
	case 't':
		return "; the process is stopped by a debugger"
	case 'D':
		return "; the process is in uninterruptible sleep (waiting on a disk or a network file system)"
	case 'Z':
		return "; the process is a zombie"
	}
	return ""
}
