// Package jobs is the job table of the mount's run/ folder, without the
// kernel: which files run/ holds, what writing, closing and removing them
// does, the jobs' queue and limits, and their output, which grows while a
// job runs. fs/fuse translates FUSE requests into calls on a Table; this
// package's tests run with no mount.
//
// What run/ does for an agent (the user's description is Readme, served
// as run/README.md):
//
//   - closing (or fsyncing) run/<job>.go after writing it starts a job
//     with what was written, once per write (Table.Start);
//   - run/<job>.status says queued, running (time, tool calls so far),
//     done or failed;
//   - run/<job>.out is what `mcpfs run` would print, then "exit status N";
//     it grows while the job prints (Job.Output), and a read past its end
//     waits for more or for the end (Output.Read);
//   - writing run/<job>.go again cancels a run still going and clears the
//     result at once: run/<job>.out never shows the old run;
//   - removing any of the job's files removes the job and cancels it.
//
// Jobs run in goroutines of their own, at most MaxRunning at once. No
// method waits on a job except Output.Read, which gives up when its
// context ends. The table's lock is never held while waiting.
//
// Package jobs imports nothing of mcpfs and no kernel, process or network
// code: the Runner it calls is supplied by whoever mounts.
package jobs
