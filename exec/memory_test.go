package exec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// floodSnippet sends one shared 48 MiB argument from 40 goroutines to the
// server "slow", and a small call to "fast" once they are all sent.
const floodSnippet = `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"mcpfs/mcp"
)

func main() {
	big := json.RawMessage("{\"x\":\"" + strings.Repeat("a", 48<<20) + "\"}")
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := 0
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := mcp.Transport(context.Background(), "slow", "echo_size", big); err != nil {
				mu.Lock()
				failed++
				mu.Unlock()
			}
		}()
	}
	_, err := mcp.Transport(context.Background(), "fast", "ping", json.RawMessage("{}"))
	fmt.Println("fast:", err)
	wg.Wait()
	fmt.Println("failed:", failed)
}
`

// peakRSS resets the process's peak resident set size (clear_refs 5) and
// returns a function that reports the growth of the peak since, in bytes.
func peakRSS(t *testing.T) func() int64 {
	t.Helper()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak RSS: %v", err)
	}
	base := procStatus(t, "VmRSS:")
	return func() int64 { return procStatus(t, "VmHWM:") - base }
}

func procStatus(t *testing.T, key string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/self/status", key)
	return 0
}

// TestParentMemoryBounded runs the flood snippet against a server that
// holds every call for a while, and bounds the growth of the parent's peak
// RSS. Before the run budget the parent read every queued call's argument
// (40 × 48 MiB; its peak grew by 1,538 MiB here); now the worker holds a
// server's calls beyond its slots and its share of the budget, and the
// parent reads a call only when the run's budget has room (the peak grew
// by 96 MiB).
func TestParentMemoryBounded(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("moves gigabytes through the worker; the race detector's shadow memory would dwarf what is measured")
	}
	r := newRunner(t, Options{Timeout: time.Minute, PoolSize: -1})
	var slowCalls, bytesSeen atomic.Int64
	release := make(chan struct{})
	var once sync.Once
	call := func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
		switch server {
		case "fast":
			once.Do(func() { time.AfterFunc(2*time.Second, func() { close(release) }) })
			return json.RawMessage(`{"content":[]}`), nil
		default:
			slowCalls.Add(1)
			bytesSeen.Add(int64(len(args)))
			select { // a server that hangs until the fast call is in, plus a while
			case <-release:
			case <-ctx.Done():
			}
			return json.RawMessage(`{"content":[]}`), nil
		}
	}
	runtime.GC()
	debug.FreeOSMemory()
	peak := peakRSS(t)
	start := time.Now()
	res, err := r.Run(context.Background(), Request{Source: []byte(floodSnippet), Call: call})
	if err != nil {
		t.Fatalf("run: %v\nstdout: %s\nstderr: %.2000s", err, res.Stdout, res.Stderr)
	}
	grew := peak()
	t.Logf("parent peak RSS grew by %d MiB; %d calls reached the slow server (%d MiB of arguments) in %v; stdout:\n%s",
		grew>>20, slowCalls.Load(), bytesSeen.Load()>>20, time.Since(start).Round(time.Millisecond), res.Stdout)
	if !strings.Contains(string(res.Stdout), "fast: <nil>") {
		t.Errorf("the call to the fast server did not go through while the slow one held its calls: %s", res.Stdout)
	}
	if limit := int64(memoryTestBound); grew > limit {
		t.Errorf("parent peak RSS grew by %d MiB, want at most %d MiB", grew>>20, limit>>20)
	}
}

// memoryTestBound is the growth of the parent's peak RSS the flood may
// cause: twice the run budget (the garbage collector lets the heap reach
// twice what is live) plus 64 MiB for the run's other buffers.
const memoryTestBound = 2*DefaultMaxRunMemory + 64<<20

// TestRefusedOverShare: a worker that ignores its flow limits (a snippet
// writing call frames on the control channel itself) gets its calls to a
// server beyond the server's share of the budget refused at once, and the
// parent does not hold their arguments.
func TestRefusedOverShare(t *testing.T) {
	r := newRunner(t, Options{Timeout: 20 * time.Second, PoolSize: -1})
	release := make(chan struct{})
	defer close(release)
	call := func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
		select { // hangs
		case <-release:
		case <-ctx.Done():
		}
		return nil, ctx.Err()
	}
	src := `package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"syscall"
)

func frame(id uint64, arg string) []byte {
	b := []byte{0, 0, 0, 0, 'C'}
	b = binary.BigEndian.AppendUint64(b, id)
	b = binary.BigEndian.AppendUint16(b, 1)
	b = append(b, 'x')
	b = binary.BigEndian.AppendUint16(b, 1)
	b = append(b, 't')
	b = append(b, arg...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

func main() {
	syscall.SetNonblock(3, false) // read it here, not through the worker's poller
	ctl := os.NewFile(3, "control")
	arg := "\"" + strings.Repeat("a", 20<<20) + "\""
	ctl.Write(frame(1, arg))
	ctl.Write(frame(2, arg))
	hdr := make([]byte, 4)
	if _, err := ctl.Read(hdr); err != nil {
		fmt.Println(err)
		return
	}
	body := make([]byte, binary.BigEndian.Uint32(hdr))
	n := 0
	for n < len(body) {
		m, err := ctl.Read(body[n:])
		if err != nil {
			fmt.Println(err)
			return
		}
		n += m
	}
	fmt.Printf("kind %c id %d: %s\n", body[0], binary.BigEndian.Uint64(body[1:9]), body[9:])
}
`
	res, err := r.Run(context.Background(), Request{Source: []byte(src), Call: call, unrestricted: true})
	if res == nil {
		t.Fatalf("run: %v", err)
	}
	out := string(res.Stdout)
	t.Logf("%s (%v)", out, err)
	if !strings.Contains(out, "kind E id 2: ") || !strings.Contains(out, "its share of the run's 128 MiB") {
		t.Errorf("got %q, want call 2 refused for the server's share", out)
	}
}
