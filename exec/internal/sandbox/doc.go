// Package sandbox confines the process that calls it: CloseInherited
// closes descriptors it did not open on purpose; Apply sets resource
// limits, drops root to an unprivileged user with no capabilities
// (DropPrivileges), applies Landlock (no file access, no TCP/UDP, signals
// and abstract unix sockets scoped to the process) and a seccomp filter
// (no file opens, exec, fork, ptrace, sockets, mounts, namespaces,
// io_uring, metadata changes, SysV IPC, inotify, signals or scheduling of
// other processes, and no raising of its own limits). It is what a snippet worker calls on itself
// before it reads its first job; it must not import anything of mcpfs.
//
// Every layer is best effort: Apply reports which ones took hold, and the
// caller decides whether that is enough (see exec.Options.Strict).
package sandbox
