package audit

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// File is the name of the current log file in its directory.
const File = "calls.jsonl"

// Defaults of Options.
const (
	DefaultMaxSize = 16 << 20
	DefaultKeep    = 3
)

// Record is one tool call.
type Record struct {
	Time   time.Time `json:"time"`
	Run    string    `json:"run,omitempty"`  // the run's id
	Face   string    `json:"face,omitempty"` // "cli", "mount", "serve"
	Server string    `json:"server"`
	Tool   string    `json:"tool"`
	// ArgsBytes and ResultBytes are the sizes of the arguments and of the
	// result as sent; ArgsHash is "sha256:" and the first 16 bytes of the
	// hash of the arguments, in hex.
	ArgsBytes   int    `json:"argsBytes"`
	ArgsHash    string `json:"argsHash"`
	ResultBytes int    `json:"resultBytes"`
	// DurationMS is how long the call took, in milliseconds.
	DurationMS float64 `json:"durationMs"`
	// Outcome is "ok", "tool error" (the result has isError), "denied"
	// or "error".
	Outcome string `json:"outcome"`
	// Error says why a call was denied or failed.
	Error string `json:"error,omitempty"`
	// Args and Result are kept only when the config asks, redacted.
	Args   json.RawMessage `json:"args,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

// HashArgs returns the ArgsHash of args.
func HashArgs(args []byte) string {
	sum := sha256.Sum256(args)
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// Options configure a Log. The zero value is ready to use.
type Options struct {
	// MaxSize is the size from which the current file is rotated.
	// Default DefaultMaxSize.
	MaxSize int64
	// Keep is how many rotated files are kept; 0 means DefaultKeep,
	// negative none.
	Keep int
}

// Log appends records to the files of a directory. It is safe for
// concurrent use; one process should write a directory.
type Log struct {
	dir string

	mu   sync.Mutex
	opts Options
	f    *os.File
	size int64
}

// Open returns the log in dir, creating dir (0700) when needed.
func Open(dir string, opts Options) (*Log, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open the audit log: %w", err)
	}
	l := &Log{dir: dir}
	l.SetOptions(opts)
	return l, nil
}

// Dir returns the log's directory.
func (l *Log) Dir() string { return l.dir }

// SetOptions changes the bounds of the log.
func (l *Log) SetOptions(opts Options) {
	if opts.MaxSize <= 0 {
		opts.MaxSize = DefaultMaxSize
	}
	if opts.Keep == 0 {
		opts.Keep = DefaultKeep
	}
	l.mu.Lock()
	l.opts = opts
	l.mu.Unlock()
}

// Append writes r as one line, rotating first when the line would take
// the file over its bound.
func (l *Log) Append(r Record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	l.follow()
	if l.f == nil {
		if err := l.open(); err != nil {
			return err
		}
	}
	if l.size > 0 && l.size+int64(len(line)) > l.opts.MaxSize {
		if err := l.rotate(); err != nil {
			return err
		}
	}
	n, err := l.f.Write(line)
	l.size += int64(n)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// follow closes the current file when it is no longer calls.jsonl or
// has grown (another process, a --no-engine command, appended to it or
// rotated it), so that the next append opens the file anew and knows its
// size. l.mu is held.
func (l *Log) follow() {
	if l.f == nil {
		return
	}
	cur, err1 := l.f.Stat()
	named, err2 := os.Stat(filepath.Join(l.dir, File))
	if err1 != nil || err2 != nil || !os.SameFile(cur, named) {
		l.f.Close()
		l.f = nil
		return
	}
	l.size = cur.Size()
}

func (l *Log) open() error {
	f, err := os.OpenFile(filepath.Join(l.dir, File), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit: %w", err)
	}
	l.f, l.size = f, st.Size()
	return nil
}

// rotate shifts calls.N.jsonl up by one, dropping what is beyond Keep,
// and starts a new current file. l.mu is held.
func (l *Log) rotate() error {
	l.f.Close()
	l.f = nil
	keep := l.opts.Keep
	if keep < 0 {
		keep = 0
	}
	for i := keep; i >= 1; i-- { // the oldest kept is replaced
		os.Rename(rotated(l.dir, i-1), rotated(l.dir, i))
	}
	if keep == 0 {
		os.Remove(rotated(l.dir, 0))
	}
	// Files beyond a smaller Keep than before.
	for i := keep + 1; ; i++ {
		if os.Remove(rotated(l.dir, i)) != nil {
			break
		}
	}
	return l.open()
}

// rotated is the path of the log file i rotations back (0: the current).
func rotated(dir string, i int) string {
	if i == 0 {
		return filepath.Join(dir, File)
	}
	return filepath.Join(dir, "calls."+strconv.Itoa(i)+".jsonl")
}

// Close closes the current file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// Filter selects records. The zero value selects all.
type Filter struct {
	Server, Tool string
	Since        time.Time
}

func (f Filter) match(r Record) bool {
	return (f.Server == "" || r.Server == f.Server) &&
		(f.Tool == "" || r.Tool == f.Tool) &&
		(f.Since.IsZero() || !r.Time.Before(f.Since))
}

// Read returns the records of dir's files that f selects, oldest first.
// Lines that are not records (a line cut by a crash) are skipped.
func Read(dir string, f Filter) ([]Record, error) {
	var files []string
	for i := 1; ; i++ {
		p := rotated(dir, i)
		if _, err := os.Stat(p); err != nil {
			break
		}
		files = append([]string{p}, files...)
	}
	files = append(files, rotated(dir, 0))
	var out []Record
	for _, p := range files {
		fh, err := os.Open(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("read the audit log: %w", err)
		}
		err = scan(fh, func(r Record) {
			if f.match(r) {
				out = append(out, r)
			}
		})
		fh.Close()
		if err != nil {
			return out, fmt.Errorf("read the audit log %s: %w", p, err)
		}
	}
	return out, nil
}

func scan(r io.Reader, f func(Record)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 512<<20)
	for sc.Scan() {
		var rec Record
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Tool != "" {
			f(rec)
		}
	}
	return sc.Err()
}
