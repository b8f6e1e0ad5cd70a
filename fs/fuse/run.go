package fuse

import "github.com/mcpfs/mcpfs/fs/internal/jobs"

// The run/ folder is live when Options.Run is set: an agent that can only
// read and write files runs a program by writing it and reading the
// result next to it. What its files do, the queue and the limits are the
// job table's (fs/internal/jobs); run_nodes.go translates FUSE requests
// into calls on it, and run/README.md (jobs.ReadmeText) tells the user.

// Runner runs the program of one job written to run/ and returns what
// `mcpfs run` would show for it. It is called from a goroutine of its own,
// never from a FUSE handler, and must honour ctx: a job is cancelled when
// its file is written again or removed, and when the mount ends. A panic
// in a Runner fails the job; it does not reach the mount. Output written
// to Job.Output shows in run/<job>.out at once.
type Runner = jobs.Runner

// Job is a program written to run/.
type Job = jobs.Job

// JobResult is how a job ended.
type JobResult = jobs.Result
