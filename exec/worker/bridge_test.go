package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// testBridge returns a bridge over one end of a socket pair, set up as the
// worker sets up its control channel, and a Conn on the other end that
// plays the parent. exited receives the bridge's exit code.
func testBridge(t *testing.T) (b *bridge, parent *Conn, parentFile *os.File, exited chan int) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		t.Fatal(err)
	}
	w, p := os.NewFile(uintptr(fds[0]), "worker"), os.NewFile(uintptr(fds[1]), "parent")
	t.Cleanup(func() { w.Close(); p.Close() })
	exited = make(chan int, 1)
	b = newBridge(NewConn(w, w), w.SetReadDeadline, func(code int) { exited <- code })
	return b, NewConn(p, p), p, exited
}

// TestBridgeConcurrent: calls from many goroutines, answered in reverse
// order of arrival, each get their own result.
func TestBridgeConcurrent(t *testing.T) {
	b, parent, _, _ := testBridge(t)
	const goroutines, perGoroutine = 16, 25
	in := make(chan *Message, goroutines)
	go func() {
		for {
			m, err := parent.Read()
			if err != nil {
				close(in)
				return
			}
			in <- m
		}
	}()
	go func() {
		for m := range in {
			// Answer in batches of what arrived together, last first, so
			// that the reading call mostly delivers other calls' results.
			batch := []*Message{m}
		gather:
			for len(batch) < 4 {
				select {
				case m, ok := <-in:
					if !ok {
						break gather
					}
					batch = append(batch, m)
				case <-time.After(time.Millisecond):
					break gather
				}
			}
			for i := len(batch) - 1; i >= 0; i-- {
				m := batch[i]
				r := &Message{Type: TypeResult, ID: m.ID, Result: json.RawMessage(fmt.Sprintf(`{"echo":%s,"tool":%q}`, m.Args, m.Tool))}
				if m.Tool == "fail" {
					r = &Message{Type: TypeResult, ID: m.ID, Error: "failed " + string(m.Args)}
				}
				if err := parent.Write(r); err != nil {
					return
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perGoroutine {
				n := g*1000 + i
				tool := "ok"
				if n%7 == 0 {
					tool = "fail"
				}
				res, err := b.Call(context.Background(), "s", tool, json.RawMessage(fmt.Sprint(n)))
				if tool == "fail" {
					if err == nil || err.Error() != fmt.Sprintf("failed %d", n) {
						t.Errorf("call %d: got %s, %v; want error %q", n, res, err, fmt.Sprintf("failed %d", n))
					}
					continue
				}
				if want := fmt.Sprintf(`{"echo":%d,"tool":"ok"}`, n); err != nil || string(res) != want {
					t.Errorf("call %d: got %s, %v; want %s", n, res, err, want)
				}
			}
		}()
	}
	wg.Wait()
}

// TestBridgeCancel: a call whose context ends while it is the reader
// returns at once; the channel stays in step for the calls after it, even
// when the deadline cut a frame in half, and the late result is dropped.
func TestBridgeCancel(t *testing.T) {
	b, parent, parentFile, _ := testBridge(t)
	calls := make(chan *Message, 8)
	go func() {
		for {
			m, err := parent.Read()
			if err != nil {
				return
			}
			calls <- m
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := b.Call(ctx, "s", "slow", json.RawMessage(`{}`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want context.DeadlineExceeded", err)
	}
	slow := <-calls

	// The late result of the cancelled call, cut in two around the next
	// call's reader being interrupted by its own context.
	var frame writeBuffer
	if err := NewConn(nil, &frame).Write(&Message{Type: TypeResult, ID: slow.ID, Result: json.RawMessage(`{"late":true}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := parentFile.Write(frame[:9]); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	if _, err := b.Call(ctx2, "s", "slow2", json.RawMessage(`{}`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second call: got %v, want context.DeadlineExceeded", err)
	}
	<-calls
	if _, err := parentFile.Write(frame[9:]); err != nil {
		t.Fatal(err)
	}

	// A call after both: answered normally.
	done := make(chan error, 1)
	go func() {
		res, err := b.Call(context.Background(), "s", "fast", json.RawMessage(`{}`))
		if err == nil && string(res) != `{"fast":true}` {
			err = fmt.Errorf("got result %s", res)
		}
		done <- err
	}()
	m := <-calls
	if err := parent.Write(&Message{Type: TypeResult, ID: m.ID, Result: json.RawMessage(`{"fast":true}`)}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// A context that has already ended sends nothing.
	ctx3, cancel3 := context.WithCancel(context.Background())
	cancel3()
	if _, err := b.Call(ctx3, "s", "never", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("call with a cancelled context: got %v", err)
	}
	select {
	case m := <-calls:
		t.Errorf("a call with a cancelled context was sent: %+v", m)
	case <-time.After(20 * time.Millisecond):
	}
}

// TestBridgeWaitersTakeOver: when the reading call's context ends, a call
// still waiting becomes the reader and gets its result.
func TestBridgeWaitersTakeOver(t *testing.T) {
	b, parent, _, _ := testBridge(t)
	calls := make(chan *Message, 8)
	go func() {
		for {
			m, err := parent.Read()
			if err != nil {
				return
			}
			calls <- m
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 4)
	for _, tool := range []string{"a", "b", "c"} {
		go func() {
			c := context.Background()
			if tool == "a" {
				c = ctx
			}
			_, err := b.Call(c, "s", tool, nil)
			errs <- err
		}()
	}
	got := map[string]uint64{}
	for range 3 {
		m := <-calls
		got[m.Tool] = m.ID
	}
	cancel() // "a" may or may not be the reader: either way b and c go on
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("first to return: got %v, want the cancelled call", err)
	}
	for _, tool := range []string{"c", "b"} {
		if err := parent.Write(&Message{Type: TypeResult, ID: got[tool], Result: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		select {
		case err := <-errs:
			if err != nil {
				t.Errorf("got %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a waiting call did not get its result after the reader left")
		}
	}
}

// TestBridgeParentGone: a closed channel ends the worker.
func TestBridgeParentGone(t *testing.T) {
	b, parent, parentFile, exited := testBridge(t)
	go b.Call(context.Background(), "s", "t", nil)
	if _, err := parent.Read(); err != nil { // the call is out: its caller reads
		t.Fatal(err)
	}
	parentFile.Close()
	select {
	case code := <-exited:
		if code != exitProtocol {
			t.Errorf("exit code %d, want %d", code, exitProtocol)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the bridge did not exit when the parent closed the channel")
	}
}

type writeBuffer []byte

func (w *writeBuffer) Write(p []byte) (int, error) {
	*w = append(*w, p...)
	return len(p), nil
}
