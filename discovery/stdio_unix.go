//go:build unix && !linux

package discovery

import "syscall"

// sysProcAttr puts a stdio server in its own process group, so stopping it
// reaches everything it started. Outside Linux there is no parent-death
// signal: a server outlives an mcpfs that was killed with SIGKILL.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// processState is not known outside Linux.
func processState(pid int) string { return "" }
