package discovery

import "syscall"

// sysProcAttr puts a stdio server in its own process group, so stopping it
// reaches everything it started (npx → node, uvx → python), and asks the
// kernel to SIGKILL it if mcpfs dies without stopping it. Pdeathsig fires
// when the thread that started the child exits; the Go runtime keeps its
// threads unless a goroutine exits while locked to one, which mcpfs never
// does. It reaches only the direct child, not its descendants.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
