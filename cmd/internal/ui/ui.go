package ui

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpfs/mcpfs/cmd/internal/audit"
	"github.com/mcpfs/mcpfs/cmd/internal/runlog"
	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/check"
	"github.com/mcpfs/mcpfs/skills"
)

// Engine is what the page needs of mcpfs's engine.
type Engine interface {
	// Servers returns every configured server as the engine sees it now.
	Servers() []discovery.ServerSnapshot
	// Tree returns the current tree (README.md, servers/<s>/, skills/).
	Tree() iofs.FS
	// Follow calls changed, from one goroutine, after each change of the
	// servers, the tree or the skills, until stop is called.
	Follow(changed func()) (stop func())
	// Search ranks tools and skills for query: the text `mcpfs search`
	// prints, at most n hits.
	Search(query string, n int) string
	// Check type-checks a snippet against the current tree: nil, a
	// check.ErrorList, or another error.
	Check(filename string, src []byte) error
	// Run checks and runs a snippet. Its output goes to stdout and
	// stderr as it is written; call, when set, wraps the function its
	// tool calls go through. A snippet that does not pass the check
	// returns a check.ErrorList and a nil Result. tag is kept with the
	// run in the engine's history, so the page knows its own runs there.
	Run(ctx context.Context, filename, tag string, src []byte, stdout, stderr io.Writer, call func(exec.CallFunc) exec.CallFunc) (*exec.Result, error)
	// Skills returns the skill store, nil when there is none.
	Skills() *skills.Store
	// AuditFile is the current file of the audit log of tool calls, ""
	// when calls are not audited.
	AuditFile() string
	// PinDiff says how many tools of server differ from their pinned
	// definitions (changed, new, removed), and how, as `mcpfs diff`
	// prints it.
	PinDiff(server string) (changes int, text string)
	// Runs follows the engine's history of runs, of every face (the
	// page's own runs, made through Run, are there too, as face "ui"
	// with the page's tag; another page's have another tag):
	// it returns the runs kept so far and calls f with each change from
	// then on, until stop is called. f must not block.
	Runs(f func(runlog.Event)) (past []runlog.Run, stop func())
}

// Options configure a Server. Token is required.
type Options struct {
	// Token is what every request must carry (see the package doc).
	Token string
	// Logger receives problems at debug and warn level; nil discards.
	Logger *slog.Logger
	// MaxRuns is how many runs the history keeps. Default 50. A run's
	// time limit is the engine's.
	MaxRuns int
}

// ErrNoToken is returned by New when Options.Token is empty.
var ErrNoToken = errors.New("the page needs a token")

//go:embed static
var static embed.FS

// snippetFile is the name snippets from the page are checked and run as.
const snippetFile = "snippet.go"

// maxBody bounds a request body: a snippet, JSON-escaped.
const maxBody = 1 << 20

// Server serves the page and its API. Close ends the event streams and
// the runs in progress.
type Server struct {
	eng     Engine
	opts    Options
	log     *slog.Logger
	handler http.Handler
	index   string // static/index.html
	events  *broker
	ctx     context.Context
	cancel  context.CancelFunc
	stop    func()

	mu     sync.Mutex
	runs   []*run         // oldest first
	audit  []audit.Record // the tail of the audit log, oldest first
	nextID int
	wg     sync.WaitGroup
	// queued is how many bytes of results wait in countQ to be counted.
	queued int
	countQ chan countJob
	// byEngine are the runs of other faces (and other pages), by the
	// engine's run id.
	byEngine map[uint64]*run
	stopRuns func()
	// tag marks this page's runs in the engine's history.
	tag string
}

// New returns the page's server over eng. It follows the engine until
// Close.
func New(eng Engine, opts Options) (*Server, error) {
	if opts.Token == "" {
		return nil, ErrNoToken
	}
	if opts.MaxRuns <= 0 {
		opts.MaxRuns = 50
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	index, csp, err := inlinePage()
	if err != nil {
		return nil, err
	}
	s := &Server{eng: eng, opts: opts, log: log, events: newBroker(), index: index, countQ: make(chan countJob, 1024), byEngine: map[uint64]*run{}, tag: rand.Text()}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.counter()
	}()
	mux := http.NewServeMux()
	sub, _ := iofs.Sub(static, "static")
	files := http.FileServerFS(sub)
	mux.Handle("GET /", noStore(files))
	mux.HandleFunc("GET /{$}", s.handleIndex)
	mux.HandleFunc("GET /index.html", s.handleIndex)
	mux.HandleFunc("GET /api/state", s.handleState)
	mux.HandleFunc("GET /api/events", s.handleEvents)
	mux.HandleFunc("GET /api/tree", s.handleTree)
	mux.HandleFunc("GET /api/search", s.handleSearch)
	mux.HandleFunc("GET /api/pins/{server}", s.handlePins)
	mux.HandleFunc("POST /api/check", s.handleCheck)
	mux.HandleFunc("POST /api/run", s.handleRun)
	mux.HandleFunc("GET /api/runs/{id}", s.handleGetRun)
	mux.HandleFunc("POST /api/runs/{id}/stop", s.handleStop)
	mux.HandleFunc("POST /api/skills", s.handleSaveSkill)
	mux.HandleFunc("GET /api/skills/{name}", s.handleSkill)
	mux.HandleFunc("GET /api/skills/{name}/{version}", s.handleSkillVersion)
	mux.HandleFunc("POST /api/skills/{name}/restore", s.handleRestore)
	s.handler = &guard{token: []byte(opts.Token), next: securityHeaders(csp, mux)}
	if p := eng.AuditFile(); p != "" {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.followAudit(p)
		}()
	}
	s.stop = eng.Follow(func() {
		s.events.publish("servers", s.servers())
		s.events.publish("skills", s.skillList())
	})
	s.followRuns()
	return s, nil
}

// ServeHTTP serves the page and its API, guarded.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Close stops following the engine, cancels the runs in progress and
// ends the event streams.
func (s *Server) Close() {
	s.stop()
	s.stopRuns()
	s.cancel()
	s.wg.Wait()
	s.events.close()
}

func noStore(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		h.ServeHTTP(w, r)
	})
}

// inlinePage returns index.html with app.css and app.js in it (one
// response: no request waits for another before the page shows), and the
// content security policy that allows exactly those two inline blocks.
func inlinePage() (page, csp string, err error) {
	var files [3][]byte
	for i, name := range []string{"index.html", "app.css", "app.js"} {
		if files[i], err = static.ReadFile("static/" + name); err != nil {
			return "", "", err
		}
	}
	css, js := string(files[1]), string(files[2])
	page = string(files[0])
	for _, r := range []struct{ old, new string }{
		{`<link rel="stylesheet" href="app.css">`, "<style>" + css + "</style>"},
		{`<script src="app.js" defer></script>`, ""},
		{`</body>`, "<script>" + js + "</script>\n</body>"},
	} {
		if !strings.Contains(page, r.old) {
			return "", "", fmt.Errorf("static/index.html has no %s", r.old)
		}
		page = strings.Replace(page, r.old, r.new, 1)
	}
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	csp = "default-src 'self'; style-src 'self' " + hash(css) + "; script-src 'self' " + hash(js) +
		"; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
	return page, csp, nil
}

// securityHeaders keeps the page to its own code and out of frames.
func securityHeaders(csp string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", csp)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("X-Frame-Options", "DENY")
		h.ServeHTTP(w, r)
	})
}

// serverInfo is one server as the page shows it.
type serverInfo struct {
	Name      string    `json:"name"`
	Key       string    `json:"key"`
	Transport string    `json:"transport"`
	State     string    `json:"state"`
	Err       string    `json:"err,omitempty"`
	Since     time.Time `json:"since"`
	Version   string    `json:"version,omitempty"`
	Title     string    `json:"title,omitempty"`
	Tools     int       `json:"tools"`
	// Stale: the tools are a cached or last-known listing, not a live one.
	Stale     bool      `json:"stale,omitempty"`
	Restarts  int       `json:"restarts,omitempty"`
	NextRetry time.Time `json:"nextRetry,omitzero"`
	// PinChanges counts the tools whose definitions differ from their pins.
	PinChanges int `json:"pinChanges,omitempty"`
}

func (s *Server) servers() []serverInfo {
	list := s.eng.Servers()
	out := make([]serverInfo, 0, len(list))
	for _, sv := range list {
		title := sv.ServerTitle
		if title == "" {
			title = sv.ServerName
		}
		pins, _ := s.eng.PinDiff(sv.Name)
		out = append(out, serverInfo{
			Name: sv.Name, Key: sv.Key, Transport: sv.Transport, State: string(sv.State),
			Err: sv.Err, Since: sv.Since, Version: sv.ServerVersion, Title: title, Tools: len(sv.Tools),
			Stale: sv.Stale, Restarts: sv.Restarts, NextRetry: sv.NextRetry, PinChanges: pins,
		})
	}
	return out
}

// skillInfo is one saved skill as the page lists it.
type skillInfo struct {
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Version     int       `json:"version"`
	Saved       time.Time `json:"saved"`
	Files       []string  `json:"files"`
	Run         string    `json:"run,omitempty"`
}

func (s *Server) skillList() []skillInfo {
	st := s.eng.Skills()
	out := []skillInfo{}
	if st == nil {
		return out
	}
	for _, sk := range st.List() {
		out = append(out, infoOf(sk))
	}
	return out
}

func infoOf(sk skills.Skill) skillInfo {
	si := skillInfo{Name: sk.Name, Description: sk.Description, Version: sk.Version, Saved: sk.Saved, Files: sk.FileNames()}
	if sk.Run != nil {
		si.Run = sk.Run.Signature
	}
	return si
}

// state is what the page shows first: the servers, the skills, the runs
// and the listing of servers/.
func (s *Server) state() map[string]any {
	s.mu.Lock()
	runs := make([]runSummary, 0, len(s.runs))
	for i := len(s.runs) - 1; i >= 0; i-- {
		runs = append(runs, s.runs[i].summary())
	}
	s.mu.Unlock()
	tree, _, _ := s.treeAt("servers")
	return map[string]any{
		"servers":  s.servers(),
		"skills":   s.skillList(),
		"runs":     runs,
		"skillsOn": s.eng.Skills() != nil,
		"tree":     tree,
		"audit":    s.auditRecords(),
		"auditOn":  s.eng.AuditFile() != "",
	}
}

func (s *Server) handleState(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.state())
}

// stateMark is where index.html gets the state, so that the page shows it
// without a request of its own.
const stateMark = "<!--STATE-->"

// handleIndex serves index.html with the state in it, as a JSON data
// block (not a script: the content security policy allows no inline
// script). json.Marshal escapes <, > and &, so the data cannot end the
// element.
func (s *Server) handleIndex(w http.ResponseWriter, r *http.Request) {
	data, err := json.Marshal(s.state())
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	page := strings.Replace(s.index, stateMark, `<script type="application/json" id="state">`+string(data)+`</script>`, 1)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	io.WriteString(w, page)
}

// handleTree lists a directory of the tree or returns a file's text.
func (s *Server) handleTree(w http.ResponseWriter, r *http.Request) {
	v, code, err := s.treeAt(r.URL.Query().Get("path"))
	if err != nil {
		writeError(w, code, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// treeEntry is one entry of a directory of the tree.
type treeEntry struct {
	Name string `json:"name"`
	Dir  bool   `json:"dir"`
	Size int64  `json:"size"`
}

// treeAt returns the listing of the directory p of the tree, or the text
// of the file p; on error, the HTTP status to answer with.
func (s *Server) treeAt(p string) (any, int, error) {
	if p == "" || p == "/" {
		p = "."
	}
	p = strings.Trim(path.Clean(p), "/")
	if p == "" {
		p = "."
	}
	if !iofs.ValidPath(p) {
		return nil, http.StatusBadRequest, fmt.Errorf("%q is not a path in the tree", p)
	}
	tree := s.eng.Tree()
	fi, err := iofs.Stat(tree, p)
	if err != nil {
		return nil, http.StatusNotFound, fmt.Errorf("%s: no such file or directory in the tree", p)
	}
	if !fi.IsDir() {
		data, err := iofs.ReadFile(tree, p)
		if err != nil {
			return nil, http.StatusInternalServerError, err
		}
		return map[string]any{"path": p, "text": string(data), "size": len(data)}, 0, nil
	}
	entries, err := iofs.ReadDir(tree, p)
	if err != nil {
		return nil, http.StatusInternalServerError, err
	}
	list := make([]treeEntry, 0, len(entries))
	for _, e := range entries {
		en := treeEntry{Name: e.Name(), Dir: e.IsDir()}
		if info, err := e.Info(); err == nil && !e.IsDir() {
			en.Size = info.Size()
		}
		list = append(list, en)
	}
	return map[string]any{"path": p, "entries": list}, 0, nil
}

// handlePins says how a server's tools differ from their pins.
func (s *Server) handlePins(w http.ResponseWriter, r *http.Request) {
	n, text := s.eng.PinDiff(r.PathValue("server"))
	writeJSON(w, http.StatusOK, map[string]any{"changes": n, "text": text})
}

func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if q == "" {
		writeError(w, http.StatusBadRequest, "give a query: what you need, in your own words")
		return
	}
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	if n <= 0 || n > 100 {
		n = 10
	}
	writeJSON(w, http.StatusOK, map[string]any{"query": q, "text": s.eng.Search(q, n)})
}

// problem is one positioned problem of a snippet or a skill.
type problem struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
	Msg  string `json:"msg"`
	Hint string `json:"hint,omitempty"`
}

// problemsOf turns an error of Check or Run into problems; ok is false
// when err is of another kind.
func problemsOf(err error) (probs []problem, ok bool) {
	var el check.ErrorList
	if errors.As(err, &el) {
		for _, e := range el {
			probs = append(probs, problem{File: e.Pos.Filename, Line: e.Pos.Line, Col: e.Pos.Column, Msg: e.Msg, Hint: e.Hint})
		}
		return probs, true
	}
	var ce *check.Error
	if errors.As(err, &ce) {
		return []problem{{File: ce.Pos.Filename, Line: ce.Pos.Line, Col: ce.Pos.Column, Msg: ce.Msg, Hint: ce.Hint}}, true
	}
	var ve *skills.ValidationError
	if errors.As(err, &ve) {
		for _, p := range ve.Problems {
			probs = append(probs, problem{File: p.Pos.Filename, Line: p.Pos.Line, Col: p.Pos.Column, Msg: p.Msg, Hint: p.Hint})
		}
		return probs, true
	}
	return nil, false
}

type sourceReq struct {
	Source string `json:"source"`
}

func (s *Server) handleCheck(w http.ResponseWriter, r *http.Request) {
	var req sourceReq
	if !readJSON(w, r, &req) {
		return
	}
	start := time.Now()
	err := s.eng.Check(snippetFile, []byte(req.Source))
	resp := map[string]any{"ok": err == nil, "problems": []problem{}, "ms": float64(time.Since(start).Microseconds()) / 1000}
	if err != nil {
		if probs, ok := problemsOf(err); ok {
			resp["problems"] = probs
		} else {
			resp["error"] = err.Error()
		}
	}
	writeJSON(w, http.StatusOK, resp)
}

type saveReq struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"`
}

func (s *Server) handleSaveSkill(w http.ResponseWriter, r *http.Request) {
	var req saveReq
	if !readJSON(w, r, &req) {
		return
	}
	st := s.eng.Skills()
	if st == nil {
		writeError(w, http.StatusConflict, "skills are not available: mcpfs has no data dir to keep them in (give --data-dir)")
		return
	}
	files, err := SkillFiles(req.Name, req.Description, []byte(req.Source))
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	sk, err := st.Save(r.Context(), s.eng.Tree(), req.Name, files, "ui")
	if err != nil {
		if probs, ok := problemsOf(err); ok {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"error": "not saved: fix the problems and save again", "problems": probs})
			return
		}
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.events.publish("skills", s.skillList())
	writeJSON(w, http.StatusOK, infoOf(sk))
}

func (s *Server) handleSkill(w http.ResponseWriter, r *http.Request) {
	st := s.eng.Skills()
	if st == nil {
		writeError(w, http.StatusNotFound, "skills are not available")
		return
	}
	name := r.PathValue("name")
	log, err := st.Log(name)
	if err != nil {
		writeError(w, http.StatusNotFound, err.Error())
		return
	}
	sort.Slice(log, func(i, j int) bool { return log[i].Version > log[j].Version })
	resp := map[string]any{"name": name, "versions": log}
	if sk, ok := st.Get(name); ok {
		resp["current"] = infoOf(sk)
		resp["files"] = textFiles(sk.Files)
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) handleSkillVersion(w http.ResponseWriter, r *http.Request) {
	st := s.eng.Skills()
	v, err := strconv.Atoi(r.PathValue("version"))
	if st == nil || err != nil {
		writeError(w, http.StatusNotFound, "no such skill version")
		return
	}
	sk, err := st.Version(r.PathValue("name"), v)
	if err != nil {
		writeError(w, http.StatusNotFound, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"skill": infoOf(sk), "files": textFiles(sk.Files)})
}

func (s *Server) handleRestore(w http.ResponseWriter, r *http.Request) {
	st := s.eng.Skills()
	if st == nil {
		writeError(w, http.StatusNotFound, "skills are not available")
		return
	}
	var req struct {
		Version int `json:"version"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	sk, err := st.Restore(r.Context(), s.eng.Tree(), r.PathValue("name"), req.Version)
	if err != nil {
		if probs, ok := problemsOf(err); ok {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"error": "not restored", "problems": probs})
			return
		}
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.events.publish("skills", s.skillList())
	writeJSON(w, http.StatusOK, infoOf(sk))
}

func textFiles(files map[string][]byte) map[string]string {
	out := make(map[string]string, len(files))
	for n, b := range files {
		out[n] = string(b)
	}
	return out
}

func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeError(w, http.StatusUnsupportedMediaType, "send JSON (Content-Type: application/json)")
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "read the request: "+err.Error())
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}
