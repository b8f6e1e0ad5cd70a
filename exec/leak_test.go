package exec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestNoLeaks runs many snippets (succeeding, panicking, calling tools,
// timing out) and checks that no goroutine, file descriptor or child
// process outlives the runner. MCPFS_LEAK_RUNS raises the count.
func TestNoLeaks(t *testing.T) {
	runs := 200
	if n, err := strconv.Atoi(os.Getenv("MCPFS_LEAK_RUNS")); err == nil && n > 0 {
		runs = n
	}
	if testing.Short() || raceEnabled {
		runs = 20
	}
	e := newEngine(t)
	baseG, baseFD := settle(t, -1, -1)
	r := NewRunner(Options{OutputDir: t.TempDir(), PoolSize: 2, Timeout: 2 * time.Second, MaxOutput: 1024})
	snippets := []string{
		`fmt.Println("ok")`,
		`panic("boom")`,
		`out, err := docstore.ListDocuments(docstore.ListDocumentsArgs{}); fmt.Println(len(out.Documents), err)`,
		`for i := 0; i < 2000; i++ { fmt.Println(strings.Repeat("y", 100)) }`,
		`go func() { panic("goroutine") }(); select {}`,
	}
	for i := 0; i < runs; i++ {
		body := snippets[i%len(snippets)]
		src := "package main\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n\t\"mcpfs/servers/docstore\"\n)\n\nvar _ = fmt.Sprint\nvar _ = strings.Repeat\nvar _ = docstore.ListDocuments\n\nfunc main() {\n\t" + body + "\n}\n"
		res, err := r.Run(context.Background(), e.request(t, src))
		if res == nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	// One run that times out is enough: it takes the full timeout, its own.
	sleeper := e.request(t, "package main\n\nimport \"time\"\n\nfunc main() { time.Sleep(time.Hour) }\n")
	sleeper.Timeout = 300 * time.Millisecond
	if _, err := r.Run(context.Background(), sleeper); !errors.Is(err, ErrTimeout) {
		t.Fatalf("sleeping snippet: got %v, want it to time out", err)
	}
	r.Close()
	g, fd := settle(t, baseG, baseFD)
	if g > baseG {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d before, %d after %d runs\n%s", baseG, g, runs, buf[:runtime.Stack(buf, true)])
	}
	if fd > baseFD {
		t.Errorf("file descriptors: %d before, %d after %d runs", baseFD, fd, runs)
	}
	if kids := children(); kids != "" {
		t.Errorf("child processes left: %s", kids)
	}
	t.Logf("%d runs and one timeout: goroutines %d → %d, file descriptors %d → %d, no child process left", runs, baseG, g, baseFD, fd)
}

// settle waits up to 10 s for the goroutine and descriptor counts to come
// down to the given ones (-1: just let them settle) and returns them.
func settle(t *testing.T, wantG, wantFD int) (int, int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g, fd := runtime.NumGoroutine(), openFDs(t)
		if (wantG < 0 || (g <= wantG && fd <= wantFD)) || time.Now().After(deadline) {
			if wantG < 0 {
				time.Sleep(50 * time.Millisecond) // let start-up goroutines finish
				return runtime.NumGoroutine(), openFDs(t)
			}
			return g, fd
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func openFDs(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count file descriptors: %v", err)
	}
	return len(entries)
}

// children lists the pids of this process's children.
func children() string {
	var out []string
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		if s := strings.TrimSpace(string(b)); s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}
