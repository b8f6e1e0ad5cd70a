package jobs

// ReadmeText is run/README.md.
const ReadmeText = `# run/: run a program by writing a file

Write a Go program (package main, as for mcpfs run) to run/<job>.go. When
the file is closed, the job starts; its result appears next to it.

    run/count.go       write the program here
    run/count.status   queued, running (time, tool calls so far), done or failed
    run/count.out      the result; it grows as the job prints, until it ends

From a shell:

    cat > run/count.go <<'EOF'
    package main
    ...
    EOF
    cat run/count.out

- run/<job>.out is what mcpfs run prints: the program's stdout, then its
  stderr, check problems as <job>.go:LINE:COL, a timeout, panic or crash,
  and a last line "exit status N" (0: it succeeded). While the job runs it
  shows the stdout printed so far, and reading past its end waits for more
  or for the end, so cat shows lines as they come and ends with the job;
  an interrupted read (Ctrl-C) stops waiting, not the job.
- <job> is letters, digits, '_', '-' and '.' (not first), at most 64
  characters. Only run/<job>.go can be written; anything else is refused,
  and run/ERRORS.txt says why.
- Writing run/<job>.go again runs it again: the old result is cleared at
  once (a run still going is cancelled) and <job>.out waits for the new run.
- rm run/<job>.go (or any of its files) removes the job and its results,
  and cancels it if it is running.
- Up to 4 jobs run at once; the others are queued. Each has the time limit
  of mcpfs run (30 s by default). Long stdout or stderr is cut with a note
  naming a file that holds it whole; a .out holds at most 4 MiB.
- Jobs live in memory only: the 100 newest (64 MiB in all) are kept and the
  oldest finished ones are forgotten, their .go included. Nothing survives
  an unmount. Save reusable code as a skill (skills/<name>/).
`
