package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// The resident engine speaks a small framed protocol on its unix socket,
// one command per connection. A frame is a kind byte, a 4-byte big-endian
// length and that many bytes.
//
//	client: hello   {protocol, args, cwd, env, ttys}
//	engine: hello   {protocol, pid, build}          (or an error and close)
//	engine: stdout, stderr frames as the command prints
//	engine: want-stdin when the command first reads its stdin
//	client: stdin frames, then stdin-eof
//	client: cancel  (Ctrl-C: the command's context ends)
//	engine: exit    {code}
//
// The client hanging up cancels the command too; a command in progress is
// never left running for nobody.
const (
	frameHello     = 'H'
	frameStdout    = 'O'
	frameStderr    = 'E'
	frameWantStdin = 'W'
	frameStdin     = 'I'
	frameStdinEOF  = 'D'
	frameCancel    = 'C'
	frameExit      = 'X'

	// residentProtocol changes when the frames or hellos do.
	residentProtocol = 3
	// maxFrame bounds one frame; longer writes are split.
	maxFrame = 1 << 20
	// maxHello bounds a hello (it carries the client's environment).
	maxHello = 1 << 20
)

// clientHello is what a client sends first: the command to run and the
// context it runs in.
type clientHello struct {
	Protocol int    `json:"protocol"`
	Build    string `json:"build"`
	// Config is the config file the command reads, as the client found
	// it; "" for the built-in default.
	Config string   `json:"config"`
	Args   []string `json:"args"`
	Cwd    string   `json:"cwd"`
	Env    []string `json:"env"`
	// StderrTTY: the client's stderr is a terminal (progress lines).
	StderrTTY bool `json:"stderr_tty,omitempty"`
	// Control is set for requests to the engine itself ("status",
	// "stop") instead of a command.
	Control string `json:"control,omitempty"`
}

// engineHello answers a clientHello.
type engineHello struct {
	Protocol int    `json:"protocol"`
	Build    string `json:"build"`
	PID      int    `json:"pid"`
	// Error refuses the request (another protocol or build).
	Error string `json:"error,omitempty"`
	// Status answers Control "status".
	Status *engineStatus `json:"status,omitempty"`
}

// frameConn reads and writes frames on one connection. Writes are safe
// from several goroutines.
type frameConn struct {
	r  *bufio.Reader
	w  io.Writer
	mu sync.Mutex
}

func newFrameConn(rw io.ReadWriter) *frameConn {
	return &frameConn{r: bufio.NewReaderSize(rw, 64<<10), w: rw}
}

// write sends one frame of kind with p, split into frames of at most
// maxFrame bytes.
func (c *frameConn) write(kind byte, p []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		n := min(len(p), maxFrame)
		var hdr [5]byte
		hdr[0] = kind
		binary.BigEndian.PutUint32(hdr[1:], uint32(n))
		if _, err := c.w.Write(append(hdr[:], p[:n]...)); err != nil {
			return err
		}
		p = p[n:]
		if len(p) == 0 {
			return nil
		}
	}
}

func (c *frameConn) writeJSON(kind byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.write(kind, b)
}

// errFrameTooLong is the error of a frame over the reader's bound.
var errFrameTooLong = errors.New("frame too long")

// read returns the next frame. The payload is valid until the next read.
func (c *frameConn) read(limit int) (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(c.r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if int64(n) > int64(limit) {
		return 0, nil, fmt.Errorf("%w (%d bytes, at most %d)", errFrameTooLong, n, limit)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(c.r, p); err != nil {
		return 0, nil, err
	}
	return hdr[0], p, nil
}

func (c *frameConn) readJSON(want byte, v any) error {
	kind, p, err := c.read(maxHello)
	if err != nil {
		return err
	}
	if kind != want {
		return fmt.Errorf("unexpected frame %q, want %q", kind, want)
	}
	return json.Unmarshal(p, v)
}

// frameWriter is an io.Writer whose writes become frames of one kind.
type frameWriter struct {
	c    *frameConn
	kind byte
}

func (w frameWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if err := w.c.write(w.kind, p); err != nil {
		return 0, err
	}
	return len(p), nil
}
