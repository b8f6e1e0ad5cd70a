package exec

import (
	"fmt"
	"os"
	"sync"
)

// capture keeps the first limit bytes of a stream in memory. When the
// stream is longer it spills everything to a file in dir (up to fileLimit
// bytes) and remembers the last tailSize bytes for diagnosing crashes.
type capture struct {
	mu        sync.Mutex
	name      string // "stdout" or "stderr"
	dir       string
	limit     int
	fileLimit int64

	head  []byte
	total int64
	tail  []byte

	out     *outDir
	file    *os.File
	path    string
	dirFull bool // the directory's bound cut the file
	written int64
	fileErr error
}

const tailSize = 16 << 10

func newCapture(name, dir string, limit int, fileLimit int64) *capture {
	return &capture{name: name, dir: dir, limit: limit, fileLimit: fileLimit}
}

// Write never fails: the worker must never block or error on its output.
func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	if room := c.limit - len(c.head); room > 0 {
		c.head = append(c.head, p[:min(room, len(p))]...)
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*tailSize {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-tailSize:]...)
	}
	if c.total > int64(c.limit) {
		c.spill(p)
	}
	return len(p), nil
}

// spill writes p (and, the first time, the head) to the overflow file.
func (c *capture) spill(p []byte) {
	if c.fileErr != nil {
		return
	}
	if c.file == nil {
		c.out = openOutDir(c.dir)
		f, err := c.out.create(c.name)
		if err != nil {
			c.fileErr = err
			return
		}
		c.file, c.path = f, f.Name()
		// The head holds the first limit bytes; the rest of this write
		// starts after them.
		already := c.total - int64(len(p)) // bytes before this write
		c.write(c.head)
		if skip := int64(len(c.head)) - already; skip < int64(len(p)) {
			if skip < 0 {
				skip = 0
			}
			c.write(p[skip:])
		}
		return
	}
	c.write(p)
}

func (c *capture) write(p []byte) {
	if room := c.fileLimit - c.written; room < int64(len(p)) {
		p = p[:max(room, 0)]
	}
	if len(p) == 0 {
		return
	}
	// Room in the directory first, so that its bound holds while runs
	// write.
	if got := c.out.reserve(c.path, int64(len(p))); got < int64(len(p)) {
		p = p[:got]
		c.dirFull = true
		if got == 0 {
			return
		}
	}
	n, err := c.file.Write(p)
	c.written += int64(n)
	if err != nil {
		c.fileErr = err
	}
}

// finish closes the overflow file and returns the kept bytes, with a
// truncation marker when the stream was longer than the limit, and the
// file holding the full stream ("" when it was not needed).
func (c *capture) finish() ([]byte, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file != nil {
		c.file.Close()
		c.file = nil
		c.out.finish(c.path)
	}
	out := c.head
	if c.total <= int64(c.limit) {
		return out, ""
	}
	marker := fmt.Sprintf("\n[mcpfs: %s truncated: %d of %d bytes shown", c.name, len(c.head), c.total)
	switch {
	case c.fileErr != nil:
		marker += fmt.Sprintf("; the full output could not be saved: %v", c.fileErr)
	case c.written < c.total && c.dirFull:
		marker += fmt.Sprintf("; the first %d bytes are in %s (the saved output of recent runs is at its limit of %d MiB)", c.written, c.path, c.out.keep>>20)
	case c.written < c.total:
		marker += fmt.Sprintf("; the first %d bytes are in %s", c.written, c.path)
	default:
		marker += "; the full output is in " + c.path
	}
	marker += "]\n"
	return append(out, marker...), c.path
}

// lastBytes returns up to the last tailSize bytes written.
func (c *capture) lastBytes() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.tail
	if len(t) > tailSize {
		t = t[len(t)-tailSize:]
	}
	return string(t)
}

// headBytes returns the kept head of the stream.
func (c *capture) headBytes() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.head)
}
