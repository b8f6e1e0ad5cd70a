package discovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"
)

// MaxJSONDepth bounds how deep a message from a server may nest (arrays
// and objects). Real answers nest a few dozen levels; a deeper one is a
// depth bomb: Go's JSON decoder refuses past 10,000 levels, and the
// transport would then drop the answer and leave its call waiting. A
// stdio server's message deeper than this is refused before it is
// decoded: an answer fails its request at once, with this reason; anything
// else is dropped with a note.
const MaxJSONDepth = 1000

// Notifications other than tools/list_changed (log lines, progress,
// resource updates, anything a server invents) pass at most
// chattyPerSecond a second per server and method (methods mcpfs does not
// know share one allowance); the rest are dropped before they are
// decoded, and noted at most once every floodNoteEvery. mcpfs only logs
// them (at debug level) or ignores them. tools/list_changed always
// passes: a burst of them is gathered into one listing (conn.go).
// Past that, reading itself slows down: dropped notifications are read
// at most floodReadPerSecond a second, so a flooding server waits on its
// full pipe instead of taking mcpfs's CPU (an answer behind the flood
// waits for the pipe's few hundred lines, a few milliseconds).
const (
	chattyPerSecond    = 50
	floodNoteEvery     = 10 * time.Second
	floodReadPerSecond = 50000
)

// lineHead is what one pass over a line tells of a JSON-RPC message
// without decoding it: how deep it nests, and its top-level "method" and
// "id" (raw JSON), when they are a string or a number.
type lineHead struct {
	depth  int
	method string
	id     []byte
}

// scanHead scans line, which starts with '{', in one pass with no
// recursion. It does not validate: json.Valid does that for the lines that
// pass.
func scanHead(line []byte) lineHead {
	var h lineHead
	depth := 0
	var key []byte     // the last key read at depth 1
	expectKey := false // at depth 1, the next string is a key
	valueOf := ""      // the key whose value comes next at depth 1
	valueStart := -1   // where a number value of "id" started
	for i := 0; i < len(line); i++ {
		c := line[i]
		if valueStart >= 0 && (c == ',' || c == '}' || c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			h.id = line[valueStart:i]
			valueStart = -1
		}
		switch c {
		case '"':
			start := i
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' {
					i++
				}
			}
			if depth != 1 {
				continue
			}
			switch {
			case expectKey:
				key, expectKey = line[start+1:min(i, len(line))], false
			case valueOf == "method":
				h.method = string(line[start+1 : min(i, len(line))])
				valueOf = ""
			case valueOf == "id":
				h.id = line[start:min(i+1, len(line))]
				valueOf = ""
			}
		case '{', '[':
			depth++
			h.depth = max(h.depth, depth)
			expectKey = depth == 1 && c == '{'
			if depth == 2 {
				valueOf = ""
			}
		case '}', ']':
			depth--
		case ',':
			expectKey = depth == 1
		case ':':
			if depth == 1 {
				valueOf = string(key)
			}
		case ' ', '\t', '\r', '\n':
		default:
			if depth == 1 && valueOf == "id" && valueStart < 0 {
				valueStart = i
				valueOf = ""
			}
		}
	}
	if valueStart >= 0 {
		h.id = line[valueStart:]
	}
	if string(h.id) == "null" {
		h.id = nil
	}
	return h
}

// knownNotifications have an allowance each; the others share one.
var knownNotifications = map[string]bool{
	notifyMessage:                          true,
	"notifications/progress":               true,
	"notifications/resources/updated":      true,
	"notifications/resources/list_changed": true,
	"notifications/prompts/list_changed":   true,
	notifyCancelled:                        true,
}

// floodGate passes at most chattyPerSecond chatty notifications a second
// per method and notes what it drops. Not safe for concurrent use (the
// stdout reader alone uses it).
type floodGate struct {
	log      *slog.Logger
	windows  map[string]*floodWindow
	debt     time.Duration // reading time owed by dropped lines
	lastDrop time.Time     // when a line was last dropped
	sleep    func(time.Duration)
}

type floodWindow struct {
	start   time.Time
	passed  int
	dropped int       // since the last note
	noted   time.Time // when the last note was written
}

// pass reports whether a notification of method may go on at now.
func (g *floodGate) pass(method string, now time.Time) bool {
	if method == notifyToolsListChanged {
		return true
	}
	if !knownNotifications[method] {
		method = "other notifications"
	}
	if g.windows == nil {
		g.windows = map[string]*floodWindow{}
	}
	w := g.windows[method]
	if w == nil {
		w = &floodWindow{}
		g.windows[method] = w
	}
	if now.Sub(w.start) >= time.Second {
		w.start, w.passed = now, 0
	}
	if w.passed < chattyPerSecond {
		w.passed++
		return true
	}
	w.dropped++
	// Each dropped line owes 1/floodReadPerSecond of a second; the debt
	// is paid in sleeps of a few milliseconds, and forgiven after a
	// second without drops.
	if now.Sub(g.lastDrop) > time.Second {
		g.debt = 0
	}
	g.lastDrop = now
	g.debt += time.Second / floodReadPerSecond
	if g.debt >= 5*time.Millisecond {
		sleep := g.sleep
		if sleep == nil {
			sleep = time.Sleep
		}
		sleep(g.debt)
		g.debt = 0
	}
	if now.Sub(w.noted) >= floodNoteEvery {
		g.log.Warn(fmt.Sprintf("the server floods %s: dropped %d of them (mcpfs passes at most %d a second)", method, w.dropped, chattyPerSecond),
			"method", method, "dropped", w.dropped)
		w.noted, w.dropped = now, 0
	}
	return false
}

// refusal is the error answer that replaces an answer with id that nests
// depth levels deep: its request fails at once, saying why.
func refusal(id []byte, depth int) []byte {
	return errorAnswer(id, "mcpfs refused the server's answer: it nests deeper than "+strconv.Itoa(MaxJSONDepth)+
		" levels of JSON arrays and objects ("+strconv.Itoa(depth)+"); a message that deep is not decoded")
}

// errorAnswer is a JSON-RPC error answer to id, one line.
func errorAnswer(id []byte, msg string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	b.WriteString(`,"error":{"code":-32603,"message":`)
	m, _ := json.Marshal(msg)
	b.Write(m)
	b.WriteString("}}\n")
	return b.Bytes()
}
