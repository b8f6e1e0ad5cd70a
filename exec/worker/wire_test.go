package worker

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcpfs/mcpfs/exec/internal/sandbox"
)

func TestConnRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	c := NewConn(&buf, &buf)
	msgs := []*Message{
		{Type: TypeReady, Layers: []sandbox.Layer{{Name: "seccomp", Active: true}}},
		{Type: TypeJob, Job: &Job{Filename: "s.go", Source: []byte("package main"), Files: map[string][]byte{"mcpfs/x/x.go": []byte("package x")}}},
		{Type: TypeCall, ID: 1, Server: "docstore", Tool: "search", Args: json.RawMessage(`{"query":"x"}`)},
		{Type: TypeCall, ID: 1<<64 - 1, Server: "", Tool: "t\x00ü", Args: json.RawMessage(`{}`)},
		{Type: TypeCall, ID: 3, Server: "s", Tool: "no args"},
		{Type: TypeCall, ID: 4, Server: strings.Repeat("s", maxName), Tool: strings.Repeat("t", maxName), Args: json.RawMessage(`[` + strings.Repeat(`"x",`, 100000) + `"y"]`)},
		{Type: TypeResult, ID: 1, Result: json.RawMessage(`{"content":[]}`)},
		{Type: TypeResult, ID: 2, Error: "server gone"},
		{Type: TypeResult, ID: 5},
		{Type: TypeResult, ID: 6, Result: json.RawMessage(`not json: passed as it is`)},
		{Type: TypeDone, Failure: &Failure{Kind: FailPanic, Msg: "boom"}},
		{Type: TypeDone},
	}
	for _, m := range msgs {
		if err := c.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range msgs {
		got, err := c.Read()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			t.Errorf("got %.300s, want %.300s", gb, wb)
		}
	}
	if _, err := c.Read(); !errors.Is(err, io.EOF) {
		t.Errorf("read past the end: got %v, want io.EOF", err)
	}
}

// TestConnFrames pins down the binary frames of calls and results: the
// arguments and result travel as their own bytes, not as JSON strings.
func TestConnFrames(t *testing.T) {
	tests := []struct {
		m    *Message
		want string
	}{
		{&Message{Type: TypeCall, ID: 7, Server: "ds", Tool: "wc", Args: json.RawMessage(`{"a":1}`)},
			"\x00\x00\x00\x18C\x00\x00\x00\x00\x00\x00\x00\x07\x00\x02ds\x00\x02wc{\"a\":1}"},
		{&Message{Type: TypeResult, ID: 7, Result: json.RawMessage(`{}`)}, "\x00\x00\x00\x0bR\x00\x00\x00\x00\x00\x00\x00\x07{}"},
		{&Message{Type: TypeResult, ID: 7, Error: "no"}, "\x00\x00\x00\x0bE\x00\x00\x00\x00\x00\x00\x00\x07no"},
		{&Message{Type: TypeDone}, "\x00\x00\x00\x10J{\"type\":\"done\"}"},
		// A message with fields a binary frame does not carry goes as JSON.
		{&Message{Type: TypeResult, ID: 1, Result: json.RawMessage(`1`), Error: "both"}, "\x00\x00\x00\x33J{\"type\":\"result\",\"id\":1,\"result\":1,\"error\":\"both\"}"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := NewConn(nil, &buf).Write(tt.m); err != nil {
			t.Fatal(err)
		}
		if got := buf.String(); got != tt.want {
			t.Errorf("frame of %+v:\n got  %q\n want %q", tt.m, got, tt.want)
		}
	}
	var buf bytes.Buffer
	long := &Message{Type: TypeCall, ID: 1, Server: strings.Repeat("s", maxName+1), Tool: "t"}
	if err := NewConn(nil, &buf).Write(long); err == nil || buf.Len() != 0 {
		t.Errorf("call with a %d-byte server name: got %v, %d bytes written; want an error and nothing written", maxName+1, err, buf.Len())
	}
}

// TestConnWriteReusesBuffer checks that a message written after a larger
// one is not corrupted by the reused buffer, and that concurrent writers
// never interleave frames.
func TestConnWriteReusesBuffer(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	c := NewConn(&buf, writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				args := strings.Repeat("x", (g*50+i)%300)
				if err := c.Write(&Message{Type: TypeCall, ID: uint64(g*1000 + i), Server: "s", Tool: "t", Args: json.RawMessage(`"` + args + `"`)}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	seen := 0
	for {
		m, err := c.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		g, i := int(m.ID/1000), int(m.ID%1000)
		if want := `"` + strings.Repeat("x", (g*50+i)%300) + `"`; string(m.Args) != want {
			t.Fatalf("call %d: args %.40q..., want %.40q...", m.ID, m.Args, want)
		}
		seen++
	}
	if seen != 200 {
		t.Errorf("read %d messages, want 200", seen)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// FuzzConnRead feeds arbitrary bytes to Read: it must return messages or
// errors, never panic, and a message it returns must survive a round trip.
func FuzzConnRead(f *testing.F) {
	for _, m := range []*Message{
		{Type: TypeCall, ID: 1, Server: "s", Tool: "t", Args: json.RawMessage(`{}`)},
		{Type: TypeResult, ID: 2, Result: json.RawMessage(`{"content":[]}`)},
		{Type: TypeResult, ID: 3, Error: "e"},
		{Type: TypeDone},
	} {
		var buf bytes.Buffer
		NewConn(nil, &buf).Write(m)
		f.Add(buf.Bytes())
	}
	body := `J{"type":"call","id":1,"layers":[]}`
	f.Add(append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...))
	f.Fuzz(func(t *testing.T, in []byte) {
		c := NewConn(bytes.NewReader(in), io.Discard)
		for {
			m, err := c.Read()
			if err != nil {
				return
			}
			var buf bytes.Buffer
			if err := NewConn(nil, &buf).Write(m); err != nil {
				continue // a JSON message with, say, invalid raw JSON inside
			}
			back, err := NewConn(&buf, nil).Read()
			if err != nil {
				t.Fatalf("round trip of %+v: %v", m, err)
			}
			gb, _ := json.Marshal(back)
			wb, _ := json.Marshal(m)
			if !bytes.Equal(gb, wb) {
				t.Fatalf("round trip: got %s, want %s", gb, wb)
			}
		}
	})
}

func TestConnRejects(t *testing.T) {
	frame := func(n uint32, body string) []byte {
		b := binary.BigEndian.AppendUint32(nil, n)
		return append(b, body...)
	}
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"too large", frame(MaxMessage+1, ""), ErrTooLarge},
		{"cut short", frame(10, "{}"), io.ErrUnexpectedEOF},
		{"not json", frame(3, "Jab"), nil},
		{"unknown kind", frame(3, "abc"), nil},
		{"empty frame", frame(0, ""), nil},
		{"short call", frame(5, "C1234"), nil},
		{"call name past the end", frame(13, "C12345678\x00\x09ab"), nil},
		{"short result", frame(3, "R12"), nil},
		{"header cut short", []byte{0, 0}, io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewConn(bytes.NewReader(tt.in), io.Discard).Read()
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}
