package ui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/mcpfs/mcpfs/cmd/internal/audit"
)

// The page shows the tail of the engine's audit log: every tool call of
// every face (an agent's snippets through serve or the mount, the CLI, the
// page), newest last. The log is a file other processes append to; the
// page's server looks at its size every auditPoll and pushes new records
// as "audit" events.

// auditPoll is how often the audit log is looked at.
var auditPoll = time.Second

// maxAudit is how many records the page keeps and first shows.
const maxAudit = 200

// auditTail follows an audit log file.
type auditTail struct {
	path    string
	off     int64       // bytes of the file read so far
	file    os.FileInfo // the file they were read from
	started bool        // the first look is done
}

// readNew returns the complete records appended since the last call; the
// first call returns those of the last 256 KB. Another file at the path,
// or one that shrank, was rotated: it is read from its start.
func (a *auditTail) readNew() []audit.Record {
	f, err := os.Open(a.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	size := fi.Size()
	if size < a.off || (a.file != nil && !os.SameFile(a.file, fi)) {
		a.off = 0
	}
	a.file = fi
	start := a.off
	// The first look reads only the tail of a long log.
	first := !a.started && size > 256<<10
	a.started = true
	if first {
		start = size - 256<<10
	}
	if start == size {
		return nil
	}
	data, err := io.ReadAll(io.NewSectionReader(f, start, size-start))
	if err != nil {
		return nil
	}
	if first {
		// Skip the line cut by starting mid-file.
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data, start = data[i+1:], start+int64(i+1)
		}
	}
	// Only complete lines: a record being written stays for next time.
	end := bytes.LastIndexByte(data, '\n') + 1
	a.off = start + int64(end)
	var out []audit.Record
	sc := bufio.NewScanner(bytes.NewReader(data[:end]))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var r audit.Record
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Tool != "" {
			out = append(out, r)
		}
	}
	if len(out) > maxAudit {
		out = out[len(out)-maxAudit:]
	}
	return out
}

// followAudit keeps s.audit up to date with the engine's audit log and
// pushes what is new, until the server closes.
func (s *Server) followAudit(path string) {
	a := &auditTail{path: path}
	s.addAudit(a.readNew())
	tick := time.NewTicker(auditPoll)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if recs := a.readNew(); len(recs) > 0 {
				s.addAudit(recs)
				s.events.publish("audit", recs)
			}
		case <-s.ctx.Done():
			return
		}
	}
}

func (s *Server) addAudit(recs []audit.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.audit = append(s.audit, recs...)
	if len(s.audit) > maxAudit {
		s.audit = append([]audit.Record(nil), s.audit[len(s.audit)-maxAudit:]...)
	}
}

// auditRecords returns the records the page shows, oldest first.
func (s *Server) auditRecords() []audit.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]audit.Record{}, s.audit...)
}
