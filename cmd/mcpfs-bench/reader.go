package main

import (
	"fmt"
	"os"
	osexec "os/exec"
	"strconv"
	"strings"
	"time"
)

// readerEnv, when set, makes the bench binary a reader: it times an
// operation on one file and exits (see runReader). The mount is measured
// from another process, as an agent's shell or tool would use it: a
// process reading a FUSE mount that it serves itself pays for its own
// runtime's poller and scheduler on every open, which no user pays.
const readerEnv = "MCPFS_BENCH_READER"

// readerMain runs the reader when the environment asks for it and reports
// whether it did; main then exits with code.
func readerMain() (code int, ran bool) {
	spec := os.Getenv(readerEnv)
	if spec == "" {
		return 0, false
	}
	op, p, n, err := parseReaderSpec(spec)
	if err == nil {
		var d time.Duration
		if d, err = timeOp(op, p, n); err == nil {
			fmt.Println(d.Nanoseconds())
			return 0, true
		}
	}
	fmt.Fprintln(os.Stderr, "mcpfs-bench reader:", err)
	return 1, true
}

func parseReaderSpec(spec string) (op, p string, n int, err error) {
	parts := strings.SplitN(spec, "\n", 3)
	if len(parts) != 3 {
		return "", "", 0, fmt.Errorf("bad %s %q: want op, path and count on lines of their own", readerEnv, spec)
	}
	n, err = strconv.Atoi(parts[2])
	if err != nil || n <= 0 {
		return "", "", 0, fmt.Errorf("bad count %q in %s", parts[2], readerEnv)
	}
	return parts[0], parts[1], n, nil
}

// timeOp does op on p 200 times to warm up, then n times, and returns
// the mean time of one.
func timeOp(op, p string, n int) (time.Duration, error) {
	var f func() error
	switch op {
	case "stat":
		f = func() error { _, err := os.Stat(p); return err }
	case "read":
		f = func() error { _, err := os.ReadFile(p); return err }
	default:
		return 0, fmt.Errorf("unknown operation %q (stat or read)", op)
	}
	for range 200 {
		if err := f(); err != nil {
			return 0, err
		}
	}
	start := time.Now()
	for range n {
		if err := f(); err != nil {
			return 0, err
		}
	}
	return time.Since(start) / time.Duration(n), nil
}

// timeInChild runs timeOp in a child process (this binary as a reader).
func timeInChild(op, p string, n int) (time.Duration, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("find the bench binary: %w", err)
	}
	cmd := osexec.Command(self)
	cmd.Dir = os.TempDir() // never inside the mount this process serves
	cmd.Env = append(os.Environ(), readerEnv+"="+op+"\n"+p+"\n"+strconv.Itoa(n))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("reader process: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("reader process printed %q: %w", out, err)
	}
	return time.Duration(ns), nil
}
