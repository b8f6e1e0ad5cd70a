package worker

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"testing"
)

func TestConnRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	c := NewConn(&buf, &buf)
	msgs := []*Message{
		{Type: TypeCall, ID: 1, Server: "docstore", Tool: "search", Args: json.RawMessage(`{"query":"x"}`)},
		{Type: TypeResult, ID: 1, Result: json.RawMessage(`{"content":[]}`)},
		{Type: TypeResult, ID: 2, Error: "server gone"},
		{Type: TypeDone, Failure: &Failure{Kind: FailPanic, Msg: "boom"}},
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
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if !bytes.Equal(gb, wb) {
			t.Errorf("got %s, want %s", gb, wb)
		}
	}
	if _, err := c.Read(); !errors.Is(err, io.EOF) {
		t.Errorf("read past the end: got %v, want io.EOF", err)
	}
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
		{"not json", frame(3, "abc"), nil},
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
