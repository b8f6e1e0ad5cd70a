//go:build !cgo

package sandbox

// PSX says whether Landlock confines the threads of this binary through
// libpsx (a cgo build), which reads /proc/<getpid()>/task: in a PID
// namespace it needs a /proc of that namespace (OwnProc) or it hangs.
// Without cgo the Go runtime does it (syscall.AllThreadsSyscall).
const PSX = false
