package worker

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mcpfs/mcpfs/exec/internal/sandbox"
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

// Message is one message of the control channel. Calls and results, the
// messages of a run's hot path, travel as binary frames whose arguments and
// result are the raw JSON bytes, not re-encoded; the others as JSON.
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
	// Kind is "compile" (the interpreter refused the program), "panic",
	// or "exit" (the snippet called mcp.Exit with Code).
	Kind string `json:"kind"`
	// Msg is the interpreter's message; it starts with file:line:col when
	// the interpreter knows the position.
	Msg string `json:"msg"`
	// Code is the exit status the snippet asked for (Kind "exit").
	Code int `json:"code,omitempty"`
}

// Failure kinds.
const (
	FailCompile = "compile"
	FailPanic   = "panic"
	FailExit    = "exit"
)

// A frame is a 4-byte big-endian length n, then n bytes: a kind byte and
// its body.
//
//	frameJSON:   the Message as JSON
//	frameCall:   id (8 bytes), len(Server) (2), Server, len(Tool) (2), Tool, Args
//	frameResult: id (8 bytes), Result
//	frameError:  id (8 bytes), Error
//
// Integers are big-endian.
const (
	frameJSON   = 'J'
	frameCall   = 'C'
	frameResult = 'R'
	frameError  = 'E'
)

// maxName bounds a server or tool name in a call frame.
const maxName = 1<<16 - 1

// readBuffer is the size of a Conn's read buffer: one read system call
// brings in a whole small frame, header and body.
const readBuffer = 64 << 10

// Conn reads and writes Messages; writes are safe for concurrent use,
// reads are not.
type Conn struct {
	r    *bufio.Reader
	body []byte // frame being read: its length is known, have bytes are in
	have int

	wm  sync.Mutex
	w   io.Writer
	buf []byte // frame being written, reused; guarded by wm
}

// NewConn returns a Conn over r and w.
func NewConn(r io.Reader, w io.Writer) *Conn {
	return &Conn{r: bufio.NewReaderSize(r, readBuffer), w: w}
}

// ErrTooLarge is returned for a message over MaxMessage.
var ErrTooLarge = errors.New("control message too large")

// Write sends m: with one write to the underlying writer, or two for a
// large call or result, whose payload is then written from where it is
// rather than copied.
func (c *Conn) Write(m *Message) error {
	c.wm.Lock()
	defer c.wm.Unlock()
	head, payload, err := appendFrame(c.buf[:0], m)
	if err != nil {
		return err
	}
	if len(payload) <= readBuffer {
		head, payload = append(head, payload...), nil
	}
	if n := len(head) - 4 + len(payload); n > MaxMessage {
		return fmt.Errorf("send %s message of %d bytes: %w (limit %d)", m.Type, n, ErrTooLarge, MaxMessage)
	}
	binary.BigEndian.PutUint32(head, uint32(len(head)-4+len(payload)))
	_, err = c.w.Write(head)
	if err == nil && len(payload) > 0 {
		_, err = c.w.Write(payload)
	}
	if cap(head) <= 2*readBuffer {
		c.buf = head // keep small buffers for the next call; let big ones go
	}
	return err
}

// appendFrame appends m's frame to b, with room for the length in front,
// up to the call's arguments or the result, which it returns as payload.
func appendFrame(b []byte, m *Message) (head, payload []byte, err error) {
	b = append(b, 0, 0, 0, 0)
	switch {
	case m.Type == TypeCall && isCall(m):
		if len(m.Server) > maxName || len(m.Tool) > maxName {
			return nil, nil, fmt.Errorf("send call of %.100q.%.100q: the server or tool name is over %d bytes", m.Server, m.Tool, maxName)
		}
		b = append(b, frameCall)
		b = binary.BigEndian.AppendUint64(b, m.ID)
		b = binary.BigEndian.AppendUint16(b, uint16(len(m.Server)))
		b = append(b, m.Server...)
		b = binary.BigEndian.AppendUint16(b, uint16(len(m.Tool)))
		b = append(b, m.Tool...)
		return b, m.Args, nil
	case m.Type == TypeResult && isResult(m) && m.Error != "":
		b = append(b, frameError)
		b = binary.BigEndian.AppendUint64(b, m.ID)
		return b, []byte(m.Error), nil
	case m.Type == TypeResult && isResult(m):
		b = append(b, frameResult)
		b = binary.BigEndian.AppendUint64(b, m.ID)
		return b, m.Result, nil
	}
	b = append(b, frameJSON)
	j, err := json.Marshal(m)
	if err != nil {
		return nil, nil, fmt.Errorf("encode %s message: %w", m.Type, err)
	}
	return append(b, j...), nil, nil
}

// isCall reports whether m has only the fields of a call frame.
func isCall(m *Message) bool {
	return len(m.Result) == 0 && m.Error == "" && len(m.Layers) == 0 && m.Job == nil && m.Failure == nil
}

// isResult reports whether m has only the fields of a result frame.
func isResult(m *Message) bool {
	return m.Server == "" && m.Tool == "" && len(m.Args) == 0 && len(m.Layers) == 0 && m.Job == nil && m.Failure == nil &&
		(m.Error == "" || len(m.Result) == 0)
}

// Read receives the next message. It returns io.EOF when the other side
// closed the channel between messages. The Args or Result of a message
// are its own: a later Read does not overwrite them.
//
// A Read that fails with a timeout (a read deadline on a pollable file)
// can be retried: the part of a frame read so far is kept.
func (c *Conn) Read() (*Message, error) {
	if c.body == nil {
		hdr, err := c.r.Peek(4)
		if err != nil {
			if len(hdr) > 0 && errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("receive message: %w", err)
			}
			return nil, err
		}
		n := binary.BigEndian.Uint32(hdr)
		if n > MaxMessage {
			return nil, fmt.Errorf("receive message of %d bytes: %w (limit %d)", n, ErrTooLarge, MaxMessage)
		}
		c.r.Discard(4)
		c.body, c.have = make([]byte, n), 0
	}
	for c.have < len(c.body) {
		n, err := c.r.Read(c.body[c.have:])
		c.have += n
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("receive message: %w", err)
		}
	}
	b := c.body
	c.body = nil
	m, err := parseFrame(b)
	if err != nil {
		return nil, fmt.Errorf("decode message: %w", err)
	}
	return m, nil
}

// NextSize returns the size of the next message's frame without reading
// its body, so that a reader can make room for it first (or wait until it
// has room: the writer then blocks on a full channel). It returns what
// Read would for a closed channel or an oversized frame.
func (c *Conn) NextSize() (int, error) {
	if c.body != nil {
		return len(c.body), nil
	}
	hdr, err := c.r.Peek(4)
	if err != nil {
		if len(hdr) > 0 && errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, fmt.Errorf("receive message: %w", err)
		}
		return 0, err
	}
	n := binary.BigEndian.Uint32(hdr)
	if n > MaxMessage {
		return 0, fmt.Errorf("receive message of %d bytes: %w (limit %d)", n, ErrTooLarge, MaxMessage)
	}
	return int(n), nil
}

var errShortFrame = errors.New("frame cut short")

// parseFrame decodes the body of one frame; the message's byte fields
// share b.
func parseFrame(b []byte) (*Message, error) {
	if len(b) == 0 {
		return nil, errors.New("empty frame")
	}
	kind, b := b[0], b[1:]
	switch kind {
	case frameJSON:
		m := new(Message)
		if err := json.Unmarshal(b, m); err != nil {
			return nil, err
		}
		return m, nil
	case frameCall:
		if len(b) < 8 {
			return nil, errShortFrame
		}
		m := &Message{Type: TypeCall, ID: binary.BigEndian.Uint64(b)}
		b = b[8:]
		var ok bool
		if m.Server, b, ok = cutName(b); !ok {
			return nil, errShortFrame
		}
		if m.Tool, b, ok = cutName(b); !ok {
			return nil, errShortFrame
		}
		if len(b) > 0 {
			m.Args = json.RawMessage(b)
		}
		return m, nil
	case frameResult, frameError:
		if len(b) < 8 {
			return nil, errShortFrame
		}
		m := &Message{Type: TypeResult, ID: binary.BigEndian.Uint64(b)}
		if kind == frameError {
			m.Error = string(b[8:])
			if m.Error == "" {
				m.Error = "the call failed"
			}
		} else if len(b) > 8 {
			m.Result = json.RawMessage(b[8:])
		}
		return m, nil
	}
	return nil, fmt.Errorf("unknown frame kind %q", kind)
}

// cutName cuts a 2-byte length and that many bytes off the front of b.
func cutName(b []byte) (string, []byte, bool) {
	if len(b) < 2 {
		return "", nil, false
	}
	n := int(binary.BigEndian.Uint16(b))
	b = b[2:]
	if len(b) < n {
		return "", nil, false
	}
	return string(b[:n]), b[n:], true
}
