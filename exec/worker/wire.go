package worker

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mcpfs/mcpfs/exec/sandbox"
)

// MaxMessage bounds one message on the control channel, in bytes: a job
// (the snippet and the tree packages it imports) or a tool result.
const MaxMessage = 64 << 20

// Message types.
const (
	TypeReady  = "ready"  // worker → parent: sandboxed and waiting; Layers set
	TypeJob    = "job"    // parent → worker: Job set
	TypeCall   = "call"   // worker → parent: ID, Server, Tool, Args
	TypeResult = "result" // parent → worker: ID, Result or Error
	TypeDone   = "done"   // worker → parent: main returned; Failure set if it failed
)

// Message is one frame of the control channel: a 4-byte big-endian length
// followed by this struct as JSON.
type Message struct {
	Type   string          `json:"type"`
	ID     uint64          `json:"id,omitempty"`
	Server string          `json:"server,omitempty"`
	Tool   string          `json:"tool,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`

	Layers  []sandbox.Layer `json:"layers,omitempty"`
	Job     *Job            `json:"job,omitempty"`
	Failure *Failure        `json:"failure,omitempty"`
}

// Job is one snippet to run.
type Job struct {
	// Filename names the snippet in positions (snippet.go).
	Filename string `json:"filename"`
	Source   []byte `json:"source"`
	// Files are the tree packages' sources by import path and file name:
	// "mcpfs/servers/docstore/search.go". The worker has no file access:
	// these are all the packages it can import besides the standard ones.
	Files map[string][]byte `json:"files"`
	// Unrestricted gives the snippet the symbols set in Unrestricted
	// instead of the allowlisted standard library. Tests of the sandbox
	// use it; a worker with no Unrestricted symbols refuses the job.
	Unrestricted bool `json:"unrestricted,omitempty"`
}

// Failure is why a snippet failed inside the worker.
type Failure struct {
	// Kind is "compile" (the interpreter refused the program) or "panic".
	Kind string `json:"kind"`
	// Msg is the interpreter's message; it starts with file:line:col when
	// the interpreter knows the position.
	Msg string `json:"msg"`
}

// Failure kinds.
const (
	FailCompile = "compile"
	FailPanic   = "panic"
)

// Conn reads and writes Messages; writes are safe for concurrent use.
type Conn struct {
	r  io.Reader
	wm sync.Mutex
	w  io.Writer
}

// NewConn returns a Conn over r and w.
func NewConn(r io.Reader, w io.Writer) *Conn { return &Conn{r: r, w: w} }

// ErrTooLarge is returned for a message over MaxMessage.
var ErrTooLarge = errors.New("control message too large")

// Write sends m.
func (c *Conn) Write(m *Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode %s message: %w", m.Type, err)
	}
	if len(b) > MaxMessage {
		return fmt.Errorf("send %s message of %d bytes: %w (limit %d)", m.Type, len(b), ErrTooLarge, MaxMessage)
	}
	buf := make([]byte, 4+len(b))
	binary.BigEndian.PutUint32(buf, uint32(len(b)))
	copy(buf[4:], b)
	c.wm.Lock()
	defer c.wm.Unlock()
	_, err = c.w.Write(buf)
	return err
}

// Read receives the next message. It returns io.EOF when the other side
// closed the channel between messages.
func (c *Conn) Read() (*Message, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(c.r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > MaxMessage {
		return nil, fmt.Errorf("receive message of %d bytes: %w (limit %d)", n, ErrTooLarge, MaxMessage)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(c.r, b); err != nil {
		return nil, fmt.Errorf("receive message: %w", io.ErrUnexpectedEOF)
	}
	m := new(Message)
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("decode message: %w", err)
	}
	return m, nil
}
