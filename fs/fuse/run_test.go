package fuse

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/fs/internal/jobs"
)

// fakeRunner runs programs of a tiny line language instead of Go, so that
// tests decide when a job ends:
//
//	print TEXT   adds TEXT and a newline to the output
//	stream TEXT  writes TEXT and a newline to Job.Output, and to the output
//	calls N      reports N tool calls
//	wait GATE    waits until the test opens GATE, or the job is cancelled
//	fail MSG     fails the job with MSG
//	panic MSG    panics
type fakeRunner struct {
	mu        sync.Mutex
	gates     map[string]chan struct{}
	cancelled map[string]error // job name → cause
}

func newFakeRunner() *fakeRunner {
	return &fakeRunner{gates: map[string]chan struct{}{}, cancelled: map[string]error{}}
}

func (f *fakeRunner) gate(name string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.gates[name]
	if g == nil {
		g = make(chan struct{})
		f.gates[name] = g
	}
	return g
}

func (f *fakeRunner) open(name string) { close(f.gate(name)) }

func (f *fakeRunner) cause(job string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cancelled[job]
}

func (f *fakeRunner) run(ctx context.Context, job Job) JobResult {
	var out bytes.Buffer
	for _, line := range strings.Split(string(job.Source), "\n") {
		cmd, arg, _ := strings.Cut(line, " ")
		switch cmd {
		case "print":
			out.WriteString(arg + "\n")
		case "stream":
			job.Output.Write([]byte(arg + "\n"))
			out.WriteString(arg + "\n")
		case "calls":
			n, _ := strconv.Atoi(arg)
			for range n {
				job.ToolCall()
			}
		case "wait":
			select {
			case <-f.gate(arg):
			case <-ctx.Done():
				f.mu.Lock()
				f.cancelled[job.Name] = context.Cause(ctx)
				f.mu.Unlock()
				out.WriteString("stopped\n")
				return JobResult{Output: out.Bytes(), Err: ctx.Err()}
			}
		case "fail":
			out.WriteString("mcpfs: " + arg + "\n")
			return JobResult{Output: out.Bytes(), Err: errors.New(arg)}
		case "panic":
			panic(arg)
		}
	}
	return JobResult{Output: out.Bytes()}
}

// runMount mounts a tree with a live run/ served by runner.
func runMount(t *testing.T, runner Runner) *Mounted {
	t.Helper()
	skipWithoutFuse(t)
	dir := t.TempDir()
	m, err := Mount(dir, tree(server("alpha", "search")), Options{Run: runner})
	if err != nil {
		if errors.Is(err, syscall.EPERM) {
			t.Skipf("cannot mount FUSE here: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Unmount(); err != nil {
			t.Errorf("Unmount: %v", err)
		}
		m.Wait()
	})
	return m
}

// shellWrite writes src to the mount's file rel with shell redirection, as
// an agent's shell would.
func shellWrite(t *testing.T, m *Mounted, rel, src string) error {
	t.Helper()
	cmd := osexec.Command("/bin/sh", "-c", `cat > "$0"`, filepath.Join(m.Dir(), rel))
	cmd.Stdin = strings.NewReader(src)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

// catFile reads a file of the mount with cat(1).
func catFile(t *testing.T, m *Mounted, rel string) string {
	t.Helper()
	out, err := osexec.Command("cat", filepath.Join(m.Dir(), rel)).Output()
	if err != nil {
		t.Fatalf("cat %s: %v", rel, err)
	}
	return string(out)
}

func readRun(t *testing.T, m *Mounted, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(m.Dir(), "run", name))
	if err != nil {
		t.Fatalf("read run/%s: %v", name, err)
	}
	return string(data)
}

func runNames(t *testing.T, m *Mounted) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(m.Dir(), "run"))
	if err != nil {
		t.Fatalf("ReadDir(run): %v", err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestRunJobs writes jobs with shell redirection and reads their results
// with cat: success, failure, a runner that panics.
func TestRunJobs(t *testing.T) {
	f := newFakeRunner()
	m := runMount(t, f.run)
	tests := []struct {
		job, src   string
		wantOut    string
		wantStatus []string
	}{
		{"hello", "print hello\ncalls 2\nprint bye\n", "hello\nbye\nexit status 0\n",
			[]string{"done in ", "2 tool calls, exit status 0\n"}},
		{"no-output", "calls 1\n", "exit status 0\n",
			[]string{"done in ", "1 tool call, exit status 0\n"}},
		{"fails", "print partial\nfail the snippet panicked: fails.go:3:1: boom\n",
			"partial\nmcpfs: the snippet panicked: fails.go:3:1: boom\nexit status 1\n",
			[]string{"failed in ", "exit status 1: the snippet panicked: fails.go:3:1: boom\n"}},
		{"crash.v2", "panic oops\n",
			"mcpfs: internal error while running crash.v2.go: oops (the mount goes on; please report it)\nexit status 1\n",
			[]string{"failed in ", "internal error while running crash.v2.go: oops"}},
	}
	for _, tt := range tests {
		t.Run(tt.job, func(t *testing.T) {
			if err := shellWrite(t, m, "run/"+tt.job+".go", tt.src); err != nil {
				t.Fatalf("write run/%s.go: %v", tt.job, err)
			}
			if got := catFile(t, m, "run/"+tt.job+".out"); got != tt.wantOut {
				t.Errorf("run/%s.out:\n got %q\nwant %q", tt.job, got, tt.wantOut)
			}
			status := readRun(t, m, tt.job+".status")
			for _, want := range tt.wantStatus {
				if !strings.Contains(status, want) {
					t.Errorf("run/%s.status = %q, want it to contain %q", tt.job, status, want)
				}
			}
			if got := readRun(t, m, tt.job+".go"); got != tt.src {
				t.Errorf("run/%s.go reads back %q, want %q", tt.job, got, tt.src)
			}
			info, err := os.Stat(filepath.Join(m.Dir(), "run", tt.job+".out"))
			if err != nil || info.Size() != int64(len(tt.wantOut)) || info.Mode().Perm() != 0o444 {
				t.Errorf("stat run/%s.out: %v, %v; want size %d, mode 0444", tt.job, info, err, len(tt.wantOut))
			}
		})
	}
	want := []string{"README.md"}
	for _, tt := range tests {
		want = append(want, tt.job+".go", tt.job+".out", tt.job+".status")
	}
	slices.Sort(want)
	if got := runNames(t, m); !slices.Equal(got, want) {
		t.Errorf("ls run:\n got %v\nwant %v", got, want)
	}
	if readme := readRun(t, m, "README.md"); !strings.Contains(readme, "run/<job>.go") {
		t.Errorf("run/README.md does not explain run/:\n%s", readme)
	}
	// The mount still works after a job panicked.
	if _, err := os.Stat(filepath.Join(m.Dir(), "servers", "alpha", "search.go")); err != nil {
		t.Errorf("stat after a panicking job: %v", err)
	}
}

// TestRunReadWaits reads run/<job>.out while the job runs: the read waits
// for the end, and meanwhile lookups, getattr, listing and the status
// answer.
func TestRunReadWaits(t *testing.T) {
	f := newFakeRunner()
	m := runMount(t, f.run)
	if err := shellWrite(t, m, "run/slow.go", "calls 2\nwait slow\nprint finally\n"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "run/slow.status says running with 2 tool calls", func() error {
		if s := readRun(t, m, "slow.status"); !strings.HasPrefix(s, "running ") || !strings.Contains(s, "2 tool calls") {
			return fmt.Errorf("status %q", s)
		}
		return nil
	})
	var out bytes.Buffer
	cat := osexec.Command("cat", filepath.Join(m.Dir(), "run", "slow.out"))
	cat.Stdout = &out
	if err := cat.Start(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "cat waits in a read", func() error {
		if n := m.run.Waiting(); n != 1 {
			return fmt.Errorf("%d reads waiting", n)
		}
		return nil
	})
	if info, err := os.Stat(filepath.Join(m.Dir(), "run", "slow.out")); err != nil || info.Size() != 0 {
		t.Errorf("stat run/slow.out while running: %v, %v; want size 0", info, err)
	}
	if names := runNames(t, m); !slices.Contains(names, "slow.out") {
		t.Errorf("ls run while a read waits: %v", names)
	}
	if s := readRun(t, m, "slow.status"); !strings.HasPrefix(s, "running ") {
		t.Errorf("status while a read waits: %q", s)
	}
	f.open("slow")
	if err := cat.Wait(); err != nil {
		t.Fatalf("cat run/slow.out: %v", err)
	}
	if got, want := out.String(), "finally\nexit status 0\n"; got != want {
		t.Errorf("cat run/slow.out = %q, want %q", got, want)
	}
}

// TestRunStreams reads run/<job>.out while the job prints: cat shows the
// first line before the job ends, and ends with the job.
func TestRunStreams(t *testing.T) {
	f := newFakeRunner()
	m := runMount(t, f.run)
	if err := shellWrite(t, m, "run/live.go", "stream first\nwait live\nstream second\nprint last\n"); err != nil {
		t.Fatal(err)
	}
	cat := osexec.Command("cat", filepath.Join(m.Dir(), "run", "live.out"))
	stdout, err := cat.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	lines := make(chan string)
	go func() {
		for {
			l, err := r.ReadString('\n')
			if l != "" {
				lines <- l
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	select {
	case l := <-lines:
		if l != "first\n" {
			t.Errorf("first line of run/live.out = %q, want %q", l, "first\n")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cat run/live.out showed nothing within 10s of the job printing")
	}
	if s := readRun(t, m, "live.status"); !strings.HasPrefix(s, "running ") {
		t.Errorf("status after the first line: %q, want running", s)
	}
	if info, err := os.Stat(filepath.Join(m.Dir(), "run", "live.out")); err != nil || info.Size() != int64(len("first\n")) {
		t.Errorf("stat run/live.out while running: %v, %v; want the size of what was printed", info, err)
	}
	eventually(t, "cat waits for more", func() error {
		if n := m.run.Waiting(); n != 1 {
			return fmt.Errorf("%d reads waiting", n)
		}
		return nil
	})
	f.open("live")
	var rest strings.Builder
	for l := range lines {
		rest.WriteString(l)
	}
	if err := cat.Wait(); err != nil {
		t.Fatalf("cat run/live.out: %v", err)
	}
	if got, want := rest.String(), "second\nlast\nexit status 0\n"; got != want {
		t.Errorf("the rest of run/live.out = %q, want %q", got, want)
	}
	if got, want := readRun(t, m, "live.out"), "first\nsecond\nlast\nexit status 0\n"; got != want {
		t.Errorf("run/live.out after the end = %q, want %q", got, want)
	}
}

// TestRunReadInterrupted interrupts reads waiting for a job: a signal
// ends the read with EINTR, a killed cat leaves, and the job goes on.
func TestRunReadInterrupted(t *testing.T) {
	f := newFakeRunner()
	m := runMount(t, f.run)
	if err := shellWrite(t, m, "run/long.go", "wait long\nprint done\n"); err != nil {
		t.Fatal(err)
	}
	outPath := filepath.Join(m.Dir(), "run", "long.out")

	// A read on a thread of this process, sent a signal it handles.
	file, err := os.Open(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	fd := int(file.Fd())
	type result struct {
		n   int
		err error
	}
	tids, results := make(chan int, 1), make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tids <- syscall.Gettid()
		buf := make([]byte, 512)
		n, err := syscall.Read(fd, buf)
		results <- result{n, err}
	}()
	tid := <-tids
	eventually(t, "the read waits", func() error {
		if n := m.run.Waiting(); n != 1 {
			return fmt.Errorf("%d reads waiting", n)
		}
		return nil
	})
	// SIGURG: the Go runtime handles it and goes on.
	if err := syscall.Tgkill(os.Getpid(), tid, syscall.SIGURG); err != nil {
		t.Fatalf("tgkill: %v", err)
	}
	select {
	case res := <-results:
		if !errors.Is(res.err, syscall.EINTR) {
			t.Errorf("interrupted read: n=%d err=%v, want EINTR", res.n, res.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the interrupted read did not return within 10s")
	}

	// cat interrupted by Ctrl-C.
	cat := osexec.Command("cat", outPath)
	if err := cat.Start(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "cat waits", func() error {
		if n := m.run.Waiting(); n != 1 {
			return fmt.Errorf("%d reads waiting", n)
		}
		return nil
	})
	cat.Process.Signal(os.Interrupt)
	if err := cat.Wait(); err == nil {
		t.Error("cat interrupted while waiting exited 0")
	}
	eventually(t, "no read waits", func() error {
		if n := m.run.Waiting(); n != 0 {
			return fmt.Errorf("%d reads waiting", n)
		}
		return nil
	})
	if s := readRun(t, m, "long.status"); !strings.HasPrefix(s, "running ") {
		t.Errorf("the job after the interrupted reads: %q, want running", s)
	}
	f.open("long")
	if got := readRun(t, m, "long.out"); got != "done\nexit status 0\n" {
		t.Errorf("run/long.out = %q", got)
	}
}

// TestRunRewriteAndRemove writes a running job again, and removes jobs.
func TestRunRewriteAndRemove(t *testing.T) {
	f := newFakeRunner()
	m := runMount(t, f.run)
	dir := filepath.Join(m.Dir(), "run")
	if err := shellWrite(t, m, "run/a.go", "wait first\nprint one\n"); err != nil {
		t.Fatal(err)
	}
	old, err := os.Open(filepath.Join(dir, "a.out")) // opened on the first run
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if err := shellWrite(t, m, "run/a.go", "print two\n"); err != nil {
		t.Fatal(err)
	}
	if got := catFile(t, m, "run/a.out"); got != "two\nexit status 0\n" {
		t.Errorf("run/a.out after the rewrite = %q", got)
	}
	if cause := f.cause("a.go"); !errors.Is(cause, jobs.ErrRewritten) {
		t.Errorf("the first run was cancelled with %v, want %v", cause, jobs.ErrRewritten)
	}
	var oldOut bytes.Buffer
	if _, err := oldOut.ReadFrom(old); err != nil {
		t.Fatalf("read the first run's output: %v", err)
	}
	if s := oldOut.String(); !strings.Contains(s, "stopped\nmcpfs: run/a.go cancelled: its file was written again") || !strings.HasSuffix(s, "exit status 1\n") {
		t.Errorf("the first run's output = %q", s)
	}

	// rm of a running job cancels it; all its files go.
	if err := shellWrite(t, m, "run/b.go", "wait b\n"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b runs", func() error {
		if s := readRun(t, m, "b.status"); !strings.HasPrefix(s, "running") {
			return fmt.Errorf("status %q", s)
		}
		return nil
	})
	if err := os.Remove(filepath.Join(dir, "b.go")); err != nil {
		t.Fatalf("rm run/b.go: %v", err)
	}
	eventually(t, "b is cancelled", func() error {
		if cause := f.cause("b.go"); !errors.Is(cause, jobs.ErrRemoved) {
			return fmt.Errorf("cause %v", cause)
		}
		return nil
	})
	for _, name := range []string{"b.go", "b.out", "b.status"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stat run/%s after rm: %v, want not exist", name, err)
		}
	}

	// rm run/a.* removes the job through its first file and finds the
	// others gone, as rm -f expects.
	if out, err := osexec.Command("/bin/sh", "-c", `rm -f "$0"/a.*`, dir).CombinedOutput(); err != nil {
		t.Fatalf("rm -f run/a.*: %v: %s", err, out)
	}
	if got := runNames(t, m); !slices.Equal(got, []string{"README.md"}) {
		t.Errorf("ls run after removing every job: %v", got)
	}
	if err := os.Remove(filepath.Join(dir, "README.md")); !errors.Is(err, syscall.EPERM) {
		t.Errorf("rm run/README.md: %v, want EPERM", err)
	}
}

// TestRunRefusals writes what run/ does not take: bad names, other
// files, results, folders. Each is refused with a reason in ERRORS.txt.
func TestRunRefusals(t *testing.T) {
	f := newFakeRunner()
	m := runMount(t, f.run)
	dir := filepath.Join(m.Dir(), "run")
	tests := []struct {
		name string
		want syscall.Errno
		why  string
	}{
		{"bad name.go", syscall.EINVAL, `not ' '`},
		{".hidden.go", syscall.EINVAL, "must not start with a dot"},
		{".go", syscall.EINVAL, "empty"},
		{"ünï.go", syscall.EINVAL, `not 'ü'`},
		{strings.Repeat("x", jobs.MaxName+1) + ".go", syscall.EINVAL, "65 characters"},
		{"notes.txt", syscall.EPERM, "only run/<job>.go files can be created"},
		{"x.out", syscall.EPERM, "only run/<job>.go files can be created"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := os.WriteFile(filepath.Join(dir, tt.name), []byte("print x\n"), 0o644)
			if !errors.Is(err, tt.want) {
				t.Errorf("create run/%s: %v, want %v", tt.name, err, tt.want)
			}
			if msg := readRun(t, m, "ERRORS.txt"); !strings.Contains(msg, "create run/"+tt.name+": ") || !strings.Contains(msg, tt.why) {
				t.Errorf("ERRORS.txt does not say why run/%s was refused (%q):\n%s", tt.name, tt.why, msg)
			}
		})
	}
	// The shell reports it too.
	if err := shellWrite(t, m, "run/a b.go", "print x\n"); err == nil || !strings.Contains(err.Error(), "Invalid argument") {
		t.Errorf("sh: echo > 'run/a b.go': %v, want Invalid argument", err)
	}

	if err := shellWrite(t, m, "run/ok.go", "print ok\n"); err != nil {
		t.Fatal(err)
	}
	readRun(t, m, "ok.out")
	ops := []struct {
		name string
		op   func() error
		want syscall.Errno
	}{
		{"write a result", func() error { return os.WriteFile(filepath.Join(dir, "ok.out"), nil, 0o644) }, syscall.EACCES},
		{"truncate a status", func() error { return os.Truncate(filepath.Join(dir, "ok.status"), 0) }, syscall.EACCES},
		{"mkdir", func() error { return os.Mkdir(filepath.Join(dir, "sub"), 0o755) }, syscall.EPERM},
		{"rename", func() error { return os.Rename(filepath.Join(dir, "ok.go"), filepath.Join(dir, "ok2.go")) }, syscall.EPERM},
		{"symlink", func() error { return os.Symlink("ok.go", filepath.Join(dir, "link.go")) }, syscall.EPERM},
		{"write README.md", func() error { return os.WriteFile(filepath.Join(dir, "README.md"), nil, 0o644) }, syscall.EACCES},
	}
	for _, tt := range ops {
		if err := tt.op(); !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
	if msg := readRun(t, m, "ERRORS.txt"); !strings.Contains(msg, "rename run/ok.go: renaming is not supported") {
		t.Errorf("ERRORS.txt after a rename:\n%s", msg)
	}
	if err := os.Remove(filepath.Join(dir, "ERRORS.txt")); err != nil {
		t.Errorf("rm run/ERRORS.txt: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ERRORS.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ERRORS.txt after rm: %v", err)
	}
	if got := readRun(t, m, "ok.out"); got != "ok\nexit status 0\n" {
		t.Errorf("run/ok.out after the refusals = %q", got)
	}
}

// TestRunUnmountCancels unmounts while a job runs: the job is cancelled
// and Unmount returns.
func TestRunUnmountCancels(t *testing.T) {
	f := newFakeRunner()
	m := runMount(t, f.run)
	if err := shellWrite(t, m, "run/forever.go", "wait never\n"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the job runs", func() error {
		if s := readRun(t, m, "forever.status"); !strings.HasPrefix(s, "running") {
			return fmt.Errorf("status %q", s)
		}
		return nil
	})
	if err := m.Unmount(); err != nil {
		t.Fatalf("Unmount: %v", err)
	}
	if cause := f.cause("forever.go"); !errors.Is(cause, jobs.ErrClosed) {
		t.Errorf("the job was cancelled with %v, want %v", cause, jobs.ErrClosed)
	}
}

// BenchmarkRunJob measures the mount's own cost of a job: write
// run/<job>.go, close it, and read run/<job>.out, with a runner that
// returns at once.
func BenchmarkRunJob(b *testing.B) {
	skipWithoutFuse(b)
	m, err := Mount(b.TempDir(), tree(server("alpha", "search")), Options{Run: newFakeRunner().run})
	if err != nil {
		b.Skipf("cannot mount FUSE here: %v", err)
	}
	defer func() {
		m.Unmount()
		m.Wait()
	}()
	src := filepath.Join(m.Dir(), "run", "bench.go")
	out := filepath.Join(m.Dir(), "run", "bench.out")
	for b.Loop() {
		if err := os.WriteFile(src, []byte("print hello\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		if data, err := os.ReadFile(out); err != nil || string(data) != "hello\nexit status 0\n" {
			b.Fatalf("read run/bench.out: %q, %v", data, err)
		}
	}
}
