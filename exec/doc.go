// Package exec owns running agent-written Go snippets: it type-checks a
// `package main` snippet against the tree's generated packages and saved
// skills (exec/check), rewrites the modern Go the interpreter does not
// understand, and runs it in a sandboxed worker process (yaegi) whose tool
// calls travel back to the discovery layer over a pipe.
//
// A Runner starts workers by re-executing the running program
// (/proc/self/exe) with a marker argument; that program's main must hand
// over to exec/worker first (see worker.IsWorker). Each worker confines
// itself (exec/sandbox: inherited descriptors closed, resource limits, the
// switch from root to nobody with no capabilities, Landlock, seccomp; the
// Runner adds new network, IPC, UTS, PID and mount namespaces, in which
// the worker mounts a /proc of its own, its own process group and an
// empty environment), reports the layers in force, and waits in a warm
// pool for one job. A job carries the snippet and the sources of the
// tree packages it imports, since the worker can read no files. The worker
// runs it once and exits; tool calls are multiplexed by id over the control
// channel (fd 3) and served by the Runner concurrently, under the run's
// deadline, per-server call slots and a byte budget (the worker holds
// calls the budget has no room for). Standard output and error are
// separate pipes, cut at a limit with the rest saved to a file in a
// directory of the user's own (Options.OutputDir).
//
// Failures come back as *RunError wrapping ErrCompile, ErrPanic,
// ErrTimeout, ErrOutOfMemory, ErrStackOverflow or ErrCrashed; the Runner
// stays usable after any of them. docs/SECURITY.md describes the threat
// model.
//
// It reads packages from an io/fs tree and calls tools through a CallFunc
// (the discovery Supervisor's CallTool); it must not import cmd.
package exec
