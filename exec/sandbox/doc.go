// Package sandbox confines the process that calls Apply: resource limits,
// Landlock (no file access, no TCP/UDP, signals and abstract unix sockets
// scoped to the process) and a seccomp filter (no exec, fork, ptrace,
// sockets, mounts, namespaces, io_uring, signals to other processes, and no
// raising of its own limits). It is what a snippet worker calls on itself
// before it reads its first job; it must not import anything of mcpfs.
//
// Every layer is best effort: Apply reports which ones took hold, and the
// caller decides whether that is enough (see exec.Options.Strict).
package sandbox
