package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// lineRunner runs programs of a tiny line language instead of Go, so that
// tests decide when a job ends:
//
//	print TEXT   adds TEXT and a newline to the result
//	stream TEXT  writes TEXT and a newline to Job.Output and the result
//	calls N      reports N tool calls
//	wait GATE    waits until the test opens GATE, or the job is cancelled
//	fail MSG     fails the job with MSG
//	panic MSG    panics
type lineRunner struct {
	mu        sync.Mutex
	gates     map[string]chan struct{}
	running   int
	maxSeen   int
	cancelled map[string]error // job file → cause
}

func newLineRunner() *lineRunner {
	return &lineRunner{gates: map[string]chan struct{}{}, cancelled: map[string]error{}}
}

func (f *lineRunner) gate(name string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.gates[name]
	if g == nil {
		g = make(chan struct{})
		f.gates[name] = g
	}
	return g
}

func (f *lineRunner) open(name string) { close(f.gate(name)) }

func (f *lineRunner) cause(file string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cancelled[file]
}

func (f *lineRunner) run(ctx context.Context, job Job) Result {
	f.mu.Lock()
	f.running++
	f.maxSeen = max(f.maxSeen, f.running)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.running--
		f.mu.Unlock()
	}()
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
				return Result{Output: out.Bytes(), Err: ctx.Err()}
			}
		case "fail":
			out.WriteString("mcpfs: " + arg + "\n")
			return Result{Output: out.Bytes(), Err: errors.New(arg)}
		case "panic":
			panic(arg)
		}
	}
	return Result{Output: out.Bytes()}
}

func newTable(t *testing.T, r Runner) *Table {
	t.Helper()
	tb := New(r, nil)
	t.Cleanup(tb.Close)
	return tb
}

// write creates run/<job>.go with src and closes it, as a shell's
// redirection does.
func write(t *testing.T, tb *Table, job, src string) {
	t.Helper()
	if err := tb.Create(job + ".go"); err != nil {
		t.Fatalf("create %s.go: %v", job, err)
	}
	if err := tb.WriteAt(job, []byte(src), 0); err != nil {
		t.Fatalf("write %s.go: %v", job, err)
	}
	tb.Start(job)
}

// readAll reads the job's current run to its end, as cat does.
func readAll(t *testing.T, tb *Table, job string) string {
	t.Helper()
	o, ok := tb.OpenOutput(job)
	if !ok {
		t.Fatalf("open %s.out: no such run", job)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var b []byte
	for {
		p, err := o.Read(ctx, int64(len(b)), 7) // small reads: offsets move
		if err != nil {
			t.Fatalf("read %s.out at %d: %v", job, len(b), err)
		}
		if len(p) == 0 {
			return string(b)
		}
		b = append(b, p...)
	}
}

func status(t *testing.T, tb *Table, job string) string {
	t.Helper()
	s, ok := tb.Snapshot(job + ".status")
	if !ok {
		t.Fatalf("no %s.status", job)
	}
	return string(s)
}

func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after 10s: %v", what, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestJobs(t *testing.T) {
	tb := newTable(t, newLineRunner().run)
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
			write(t, tb, tt.job, tt.src)
			if got := readAll(t, tb, tt.job); got != tt.wantOut {
				t.Errorf("%s.out:\n got %q\nwant %q", tt.job, got, tt.wantOut)
			}
			s := status(t, tb, tt.job)
			for _, want := range tt.wantStatus {
				if !strings.Contains(s, want) {
					t.Errorf("%s.status = %q, want it to contain %q", tt.job, s, want)
				}
			}
			if src, _ := tb.Source(tt.job); string(src) != tt.src {
				t.Errorf("%s.go reads back %q, want %q", tt.job, src, tt.src)
			}
			info, ok := tb.Stat(tt.job + ".out")
			if !ok || info.Size != len(tt.wantOut) || info.Writable || info.Kind != KindOut || info.Job != tt.job {
				t.Errorf("Stat(%s.out) = %+v, %v; want size %d, read only", tt.job, info, ok, len(tt.wantOut))
			}
		})
	}
	want := []string{ReadmeFile}
	for _, tt := range tests {
		want = append(want, tt.job+".go", tt.job+".out", tt.job+".status")
	}
	slices.Sort(want)
	if got := tb.Names(); !slices.Equal(got, want) {
		t.Errorf("Names:\n got %v\nwant %v", got, want)
	}
}

// TestStream reads a running job's output: what it wrote shows at once, a
// read past it waits for more, and the result only adds to it.
func TestStream(t *testing.T) {
	r := newLineRunner()
	tb := newTable(t, r.run)
	write(t, tb, "live", "stream one\nwait a\nstream two\nprint three\n")
	o, _ := tb.OpenOutput("live")
	ctx := context.Background()
	eventually(t, "the first line shows", func() error {
		if info, _ := tb.Stat("live.out"); info.Size != 4 {
			return fmt.Errorf("size %d", info.Size)
		}
		return nil
	})
	if p, err := o.Read(ctx, 0, 100); err != nil || string(p) != "one\n" {
		t.Fatalf("Read(0) while running = %q, %v; want %q", p, err, "one\n")
	}
	got := make(chan string, 1)
	go func() {
		p, err := o.Read(ctx, 4, 100)
		got <- fmt.Sprintf("%q %v", p, err)
	}()
	eventually(t, "a read past the end waits", func() error {
		if n := tb.Waiting(); n != 1 {
			return fmt.Errorf("%d waiting", n)
		}
		return nil
	})
	r.open("a")
	select {
	case s := <-got:
		if s != `"two\n" <nil>` && s != `"two\nthree\nexit status 0\n" <nil>` {
			t.Errorf("the waiting read returned %s", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting read did not return")
	}
	if s := readAll(t, tb, "live"); s != "one\ntwo\nthree\nexit status 0\n" {
		t.Errorf("live.out = %q", s)
	}
	if n := tb.Waiting(); n != 0 {
		t.Errorf("%d reads still counted as waiting", n)
	}

	// A read interrupted by its context ends with the context's error.
	write(t, tb, "quiet", "wait b\n")
	o, _ = tb.OpenOutput("quiet")
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := o.Read(cctx, 0, 10); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("interrupted read: %v, want the context's error", err)
	}
	r.open("b")
}

// TestStreamNotRepeated: a Runner whose result does not start with what it
// streamed keeps both, so that the output only grows.
func TestStreamNotRepeated(t *testing.T) {
	tb := newTable(t, func(ctx context.Context, job Job) Result {
		job.Output.Write([]byte("live"))
		return Result{Output: []byte("summary\n")}
	})
	write(t, tb, "x", "")
	if got, want := readAll(t, tb, "x"), "live\nsummary\nexit status 0\n"; got != want {
		t.Errorf("x.out = %q, want %q", got, want)
	}
}

// TestRewriteAndRemove writes a running job again, and removes jobs.
func TestRewriteAndRemove(t *testing.T) {
	r := newLineRunner()
	tb := newTable(t, r.run)
	write(t, tb, "a", "wait first\nprint one\n")
	old, _ := tb.OpenOutput("a")
	eventually(t, "a runs", func() error {
		if s := status(t, tb, "a"); !strings.HasPrefix(s, "running") {
			return fmt.Errorf("status %q", s)
		}
		return nil
	})
	write(t, tb, "a", "print two\n")
	if got := readAll(t, tb, "a"); got != "two\nexit status 0\n" {
		t.Errorf("a.out after the rewrite = %q", got)
	}
	eventually(t, "the first run is cancelled", func() error {
		if cause := r.cause("a.go"); !errors.Is(cause, ErrRewritten) {
			return fmt.Errorf("cause %v", cause)
		}
		return nil
	})
	p, err := old.Read(context.Background(), 0, 1000)
	if err != nil || !strings.Contains(string(p), "stopped\nmcpfs: run/a.go cancelled: its file was written again") || !strings.HasSuffix(string(p), "exit status 1\n") {
		t.Errorf("the first run's output = %q, %v", p, err)
	}

	write(t, tb, "b", "wait b\n")
	eventually(t, "b runs", func() error {
		if s := status(t, tb, "b"); !strings.HasPrefix(s, "running") {
			return fmt.Errorf("status %q", s)
		}
		return nil
	})
	if err := tb.Remove("b.status"); err != nil {
		t.Fatalf("Remove(b.status): %v", err)
	}
	eventually(t, "b is cancelled", func() error {
		if cause := r.cause("b.go"); !errors.Is(cause, ErrRemoved) {
			return fmt.Errorf("cause %v", cause)
		}
		return nil
	})
	for _, name := range []string{"b.go", "b.out", "b.status"} {
		if _, ok := tb.Stat(name); ok {
			t.Errorf("%s is still there after the job was removed", name)
		}
		if err := tb.Remove(name); !errors.Is(err, ErrNotExist) {
			t.Errorf("Remove(%s) again: %v, want ErrNotExist", name, err)
		}
	}
	if err := tb.Create("c.go"); err != nil {
		t.Fatal(err)
	}
	if err := tb.Remove("c.out"); !errors.Is(err, ErrNotExist) {
		t.Errorf("Remove(c.out) of a job never run: %v, want ErrNotExist", err)
	}
	if err := tb.Remove(ReadmeFile); !errors.Is(err, ErrRefused) {
		t.Errorf("Remove(README.md): %v, want ErrRefused", err)
	}
}

// TestRefusals: what run/ does not take is refused with a reason in
// ERRORS.txt, which Remove clears.
func TestRefusals(t *testing.T) {
	tb := newTable(t, newLineRunner().run)
	tests := []struct {
		name string
		want error
		why  string
	}{
		{"bad name.go", ErrBadName, `not ' '`},
		{".hidden.go", ErrBadName, "must not start with a dot"},
		{".go", ErrBadName, "empty"},
		{"ünï.go", ErrBadName, `not 'ü'`},
		{strings.Repeat("x", MaxName+1) + ".go", ErrBadName, "65 characters"},
		{"notes.txt", ErrRefused, "only run/<job>.go files can be created"},
		{"x.out", ErrRefused, "only run/<job>.go files can be created"},
	}
	for _, tt := range tests {
		if err := tb.Create(tt.name); !errors.Is(err, tt.want) {
			t.Errorf("Create(%q): %v, want %v", tt.name, err, tt.want)
		}
		if msg, _ := tb.Snapshot(ErrorsFile); !strings.Contains(string(msg), "create run/"+tt.name+": ") || !strings.Contains(string(msg), tt.why) {
			t.Errorf("ERRORS.txt does not say why %s was refused (%q):\n%s", tt.name, tt.why, msg)
		}
	}
	if err := tb.Refuse("rename", "a.go"); !errors.Is(err, ErrRefused) {
		t.Errorf("Refuse: %v", err)
	}
	if msg, _ := tb.Snapshot(ErrorsFile); !strings.Contains(string(msg), "rename run/a.go: renaming is not supported") {
		t.Errorf("ERRORS.txt after a rename:\n%s", msg)
	}
	if n := strings.Count(string(must(tb.Snapshot(ErrorsFile))), "\n20"); n > maxRefusals {
		t.Errorf("ERRORS.txt keeps %d lines, want at most %d", n, maxRefusals)
	}
	if err := tb.Remove(ErrorsFile); err != nil {
		t.Errorf("Remove(ERRORS.txt): %v", err)
	}
	if _, ok := tb.Stat(ErrorsFile); ok || slices.Contains(tb.Names(), ErrorsFile) {
		t.Error("ERRORS.txt is still there after Remove")
	}
	if err := tb.Remove(ErrorsFile); !errors.Is(err, ErrNotExist) {
		t.Errorf("Remove(ERRORS.txt) when empty: %v, want ErrNotExist", err)
	}

	// Programs only are written, within MaxSource.
	if err := tb.Create("ok.go"); err != nil {
		t.Fatal(err)
	}
	if err := tb.WriteAt("ok", []byte("x"), MaxSource); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a write past MaxSource: %v, want ErrTooLarge", err)
	}
	if err := tb.Truncate("ok", MaxSource+1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a truncate past MaxSource: %v, want ErrTooLarge", err)
	}
	if err := tb.WriteAt("gone", []byte("x"), 0); !errors.Is(err, ErrNotExist) {
		t.Errorf("a write to no job: %v, want ErrNotExist", err)
	}
}

func must(b []byte, _ bool) []byte { return b }

// TestConcurrent starts more jobs than may run at once: MaxRunning run,
// the others are queued, and all end with their own output.
func TestConcurrent(t *testing.T) {
	r := newLineRunner()
	tb := newTable(t, r.run)
	n := MaxRunning + 2
	for i := range n {
		write(t, tb, fmt.Sprintf("job%d", i), fmt.Sprintf("wait all\nprint job %d\n", i))
	}
	eventually(t, "jobs running and queued", func() error {
		var running, queued int
		for i := range n {
			s := status(t, tb, fmt.Sprintf("job%d", i))
			switch {
			case strings.HasPrefix(s, "running "):
				running++
			case strings.HasPrefix(s, "queued "):
				queued++
			}
		}
		if running != MaxRunning || queued != n-MaxRunning {
			return fmt.Errorf("%d running, %d queued", running, queued)
		}
		return nil
	})
	r.open("all")
	for i := range n {
		if got, want := readAll(t, tb, fmt.Sprintf("job%d", i)), fmt.Sprintf("job %d\nexit status 0\n", i); got != want {
			t.Errorf("job%d.out = %q, want %q", i, got, want)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.maxSeen > MaxRunning {
		t.Errorf("%d jobs ran at once, want at most %d", r.maxSeen, MaxRunning)
	}
}

// TestKeepsNewest writes more jobs than the table keeps: the oldest
// finished ones are forgotten. Full of unfinished jobs, a new one is
// refused.
func TestKeepsNewest(t *testing.T) {
	r := newLineRunner()
	tb := newTable(t, r.run)
	extra := 3
	for i := range MaxJobs + extra {
		name := fmt.Sprintf("j%03d", i)
		write(t, tb, name, "print "+name+"\n")
		readAll(t, tb, name) // waits for the end
	}
	names := tb.Names()
	if got := len(names); got != 1+3*MaxJobs {
		t.Errorf("run/ lists %d files, want %d", got, 1+3*MaxJobs)
	}
	for i := range extra {
		if slices.Contains(names, fmt.Sprintf("j%03d.go", i)) {
			t.Errorf("j%03d.go, among the oldest, was kept", i)
		}
	}
	for i := range MaxJobs {
		write(t, tb, fmt.Sprintf("w%03d", i), "wait full\n")
	}
	if err := tb.Create("one-more.go"); !errors.Is(err, ErrFull) {
		t.Errorf("a job over the limit: %v, want ErrFull", err)
	}
	if msg, _ := tb.Snapshot(ErrorsFile); !strings.Contains(string(msg), "jobs that have not finished") {
		t.Errorf("ERRORS.txt:\n%s", msg)
	}
	r.open("full")
}

// TestClose cancels running jobs, and refuses new ones.
func TestClose(t *testing.T) {
	r := newLineRunner()
	tb := New(r.run, nil)
	write(t, tb, "forever", "wait never\n")
	eventually(t, "the job runs", func() error {
		if s := status(t, tb, "forever"); !strings.HasPrefix(s, "running") {
			return fmt.Errorf("status %q", s)
		}
		return nil
	})
	tb.Close()
	if cause := r.cause("forever.go"); !errors.Is(cause, ErrClosed) {
		t.Errorf("the job was cancelled with %v, want %v", cause, ErrClosed)
	}
	if err := tb.Create("late.go"); !errors.Is(err, ErrFull) {
		t.Errorf("Create after Close: %v, want ErrFull", err)
	}
}

// TestReadmeLimits keeps run/README.md in step with the limits.
func TestReadmeLimits(t *testing.T) {
	for _, want := range []string{
		fmt.Sprintf("Up to %d jobs run at once", MaxRunning),
		fmt.Sprintf("at most %d\n  characters", MaxName),
		fmt.Sprintf("the %d newest (%d MiB in all)", MaxJobs, MaxBytes>>20),
		fmt.Sprintf("a .out holds at most %d MiB", MaxOutput>>20),
	} {
		if !strings.Contains(ReadmeText, want) {
			t.Errorf("run/README.md does not say %q", want)
		}
	}
}

// TestCapOutput cuts a long output and keeps the exit status.
func TestCapOutput(t *testing.T) {
	tests := []struct {
		name    string
		out     []byte
		wantLen int
		cut     bool
	}{
		{"empty", nil, len("exit status 0\n"), false},
		{"no newline", []byte("x"), len("x\nexit status 0\n"), false},
		{"long", bytes.Repeat([]byte("y"), MaxOutput+10), -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := capOutput(tt.out, "exit status 0\n")
			if !bytes.HasSuffix(got, []byte("exit status 0\n")) {
				t.Errorf("no trailer: %q", got[max(0, len(got)-40):])
			}
			if tt.wantLen >= 0 && len(got) != tt.wantLen {
				t.Errorf("len = %d, want %d", len(got), tt.wantLen)
			}
			if tt.cut && (len(got) > MaxOutput || !bytes.Contains(got, []byte("[mcpfs: output cut: "))) {
				t.Errorf("cut output: len %d, note missing or too long", len(got))
			}
		})
	}
}

// TestLongStream: a stream longer than a .out keeps stops growing at the
// cut, and the cut result extends what was shown.
func TestLongStream(t *testing.T) {
	line := bytes.Repeat([]byte("z"), 1<<16)
	tb := newTable(t, func(ctx context.Context, job Job) Result {
		var all []byte
		for range MaxOutput/len(line) + 2 {
			job.Output.Write(line)
			all = append(all, line...)
		}
		return Result{Output: all}
	})
	write(t, tb, "big", "")
	got := readAll(t, tb, "big")
	if len(got) > MaxOutput || !strings.Contains(got, "[mcpfs: output cut: ") || !strings.HasSuffix(got, "exit status 0\n") {
		t.Errorf("big.out: %d bytes, ends %q", len(got), got[max(0, len(got)-120):])
	}
}

func TestParseName(t *testing.T) {
	tests := []struct {
		name string
		job  string
		kind Kind
		ok   bool
	}{
		{"a.go", "a", KindSource, true},
		{"a.b.out", "a.b", KindOut, true},
		{"x.status", "x", KindStatus, true},
		{"README.md", "", KindReadme, true},
		{"ERRORS.txt", "", KindErrors, true},
		{"notes.txt", "", 0, false},
	}
	for _, tt := range tests {
		job, kind, ok := ParseName(tt.name)
		if job != tt.job || kind != tt.kind || ok != tt.ok {
			t.Errorf("ParseName(%q) = %q, %v, %v; want %q, %v, %v", tt.name, job, kind, ok, tt.job, tt.kind, tt.ok)
		}
		if ok && FileName(job, kind) != tt.name {
			t.Errorf("FileName(%q, %v) = %q, want %q", job, kind, FileName(job, kind), tt.name)
		}
	}
}
