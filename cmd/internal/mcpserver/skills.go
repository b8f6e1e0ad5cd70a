package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfs/mcpfs/skills"
)

// With Options.Skills, the server saves skills (the save_skill tool) and
// offers every skill with a Run entry point as a tool of its own,
// skill_<name>, whose input schema is Run's argument struct. The skill
// tools follow the store: a save, a removal, or a change another process
// made (found by the store's Refresh) adds, replaces or removes them, and
// clients are told with notifications/tools/list_changed.

// ToolSaveSkill is the name of the tool that saves a skill.
const ToolSaveSkill = "save_skill"

// SkillToolPrefix starts the name of the tool that runs a skill's Run:
// skill_<name>.
const SkillToolPrefix = "skill_"

// saveNote is the history note of a version saved with save_skill.
const saveNote = "mcp save_skill"

var saveSkillInput = `{"type":"object","properties":{` +
	`"name":{"type":"string","description":"Go package name"},` +
	`"files":{"type":"object","additionalProperties":{"type":"string"},"description":"name to content: SKILL.md (front matter: name, description) and .go files"},` +
	`"note":{"type":"string"}` +
	`},"required":["name","files"]}`

func (s *Server) saveSkillTool() server.ServerTool {
	f := false
	return server.ServerTool{
		Tool: mcp.Tool{
			Name:           ToolSaveSkill,
			Description:    "Save Go code as a new version of the skill mcpfs/skills/<name>, if it type-checks. Its func Run(args T) (R, error) becomes the tool skill_<name>.",
			RawInputSchema: json.RawMessage(saveSkillInput),
			Annotations:    mcp.ToolAnnotation{ReadOnlyHint: &f, DestructiveHint: &f, OpenWorldHint: &f},
		},
		Handler: s.handleSaveSkill,
	}
}

func (s *Server) handleSaveSkill(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := argsOf(req)
	name, err := a.str("name")
	if err != nil {
		return s.skillError("save_skill: %v", err), nil
	}
	if err := skills.CheckName(name); err != nil {
		return s.skillError("save_skill: %v", err), nil
	}
	note, err := a.str("note")
	if err != nil {
		return s.skillError("save_skill: %v", err), nil
	}
	files, err := a.files("files")
	if err != nil {
		return s.skillError("save_skill: %v", err), nil
	}
	if _, ok := files[skills.SkillFile]; !ok {
		return s.skillError("save_skill: files has no %s: give SKILL.md (front matter with name and description) and the Go files of package %s", skills.SkillFile, name), nil
	}
	if note != "" {
		note = saveNote + ": " + note
	} else {
		note = saveNote
	}
	st := s.opts.Skills
	// The skill is type-checked against the servers' packages: wait for
	// the servers still connecting, as search_tools does.
	s.engine.WaitReady(ctx)
	prev, hadPrev := st.Get(name)
	sk, err := st.Save(ctx, s.engine.Tree(), name, files, note)
	if err != nil {
		var ve *skills.ValidationError
		if !errors.As(err, &ve) {
			return s.skillError("save_skill %s: %v", name, err), nil
		}
		still := "no version is saved yet"
		if hadPrev {
			still = fmt.Sprintf("version %d is still the one snippets import", prev.Version)
		}
		return s.skillError("%v\nNot saved (%s): fix the files and save again.", ve, still), nil
	}
	s.syncSkillTools()
	s.log.Debug("save_skill", "skill", name, "version", sk.Version)
	var b strings.Builder
	if hadPrev && prev.Version == sk.Version {
		fmt.Fprintf(&b, "skill %s is unchanged (version %d)", sk.Name, sk.Version)
	} else {
		fmt.Fprintf(&b, "saved skill %s version %d (import %q)", sk.Name, sk.Version, sk.ImportPath())
	}
	if sk.HasRun() {
		fmt.Fprintf(&b, "; its Run is the tool %s", skillToolName(sk.Name))
	}
	b.WriteString("\n")
	return mcp.NewToolResultText(b.String()), nil
}

// files returns the object argument name as a file map; every value must
// be a string.
func (a args) files(name string) (map[string][]byte, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return nil, fmt.Errorf("argument %q is missing: give an object of file name to content", name)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("argument %q: want an object of file name to content, got %s", name, jsonType(v))
	}
	out := make(map[string][]byte, len(m))
	for fn, c := range m {
		text, ok := c.(string)
		if !ok {
			return nil, fmt.Errorf("argument %q: file %q: want its content as a string, got %s", name, fn, jsonType(c))
		}
		out[fn] = []byte(text)
	}
	return out, nil
}

func skillToolName(name string) string { return SkillToolPrefix + name }

// watchSkills keeps the skill tools in step with the store until Close.
func (s *Server) watchSkills() {
	changes, stop := s.opts.Skills.Watch()
	quit, done := make(chan struct{}), make(chan struct{})
	s.stopSkills = func() { close(quit); <-done; stop() }
	go func() {
		defer close(done)
		for {
			select {
			case <-changes:
				s.syncSkillTools()
			case <-quit:
				return
			}
		}
	}()
}

// syncSkillTools registers a tool for every current skill with a Run
// entry point, replaces the ones whose skill has a new version, and
// removes the ones whose skill is gone or has no Run any more.
func (s *Server) syncSkillTools() {
	s.skillMu.Lock()
	defer s.skillMu.Unlock()
	want := map[string]skills.Skill{}
	for _, sk := range s.opts.Skills.List() {
		if sk.HasRun() {
			want[skillToolName(sk.Name)] = sk
		}
	}
	var gone []string
	for name := range s.skillTools {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
			delete(s.skillTools, name)
		}
	}
	var add []server.ServerTool
	for name, sk := range want {
		if s.skillTools[name] != sk.Version {
			add = append(add, s.skillTool(sk))
			s.skillTools[name] = sk.Version
		}
	}
	sort.Strings(gone)
	sort.Slice(add, func(i, j int) bool { return add[i].Tool.Name < add[j].Tool.Name })
	if len(gone) > 0 {
		s.mcp.DeleteTools(gone...)
	}
	if len(add) > 0 {
		s.mcp.AddTools(add...)
	}
}

// skillTool is the tool that runs sk's Run.
func (s *Server) skillTool(sk skills.Skill) server.ServerTool {
	t := true
	desc := strings.TrimSpace(sk.Description)
	if doc := strings.TrimSpace(sk.Run.Doc); doc != "" {
		desc += "\n\n" + doc
	}
	desc += fmt.Sprintf("\n\n(Saved skill %q, version %d: %s)", sk.ImportPath(), sk.Version, sk.Run.Signature)
	return server.ServerTool{
		Tool: mcp.Tool{
			Name:           skillToolName(sk.Name),
			Description:    desc,
			RawInputSchema: sk.Run.InputSchema,
			Annotations:    mcp.ToolAnnotation{Title: "Skill " + sk.Name, OpenWorldHint: &t},
		},
		Handler: s.runSkill(sk.Name),
	}
}

// runSkill returns the handler of skill_<name>: it runs the current
// version's Run as a snippet, through the same check and sandbox as exec.
func (s *Server) runSkill(name string) server.ToolHandlerFunc {
	tool := skillToolName(name)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		sk, ok := s.opts.Skills.Get(name)
		if !ok || !sk.HasRun() {
			return s.skillError("%s: skill %s has no Run entry point any more (it was removed or changed); search_tools finds what there is", tool, name), nil
		}
		in := req.Params.Arguments
		if in == nil {
			in = map[string]any{}
		}
		raw, err := json.Marshal(in)
		if err != nil {
			return s.skillError("%s: encode the arguments: %v", tool, err), nil
		}
		src, err := skills.RunSnippet(sk, raw)
		if err != nil {
			return s.skillError("%s: %v", tool, err), nil
		}
		start := time.Now()
		res, runErr := s.engine.Run(ctx, tool+".go", src, 0, RunHooks{})
		if runErr != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", tool, ctx.Err())
		}
		s.log.Debug("skill run", "skill", name, "version", sk.Version, "ok", runErr == nil, "duration_ms", ms(time.Since(start)))
		if runErr != nil {
			out := s.execResult(res, runErr, time.Since(start))
			return s.skillError("%s failed:\n%s", tool, out.text()), nil
		}
		stdout := res.Stdout
		if res.StdoutFile != "" {
			if whole, err := os.ReadFile(res.StdoutFile); err == nil {
				stdout = whole
			}
		}
		ro, err := skills.DecodeRunOutput(stdout)
		if err != nil {
			return s.skillError("%s: %v\n%s", tool, err, s.printed(ro.Log)), nil
		}
		if ro.Err != "" {
			return s.skillError("%s: Run returned an error: %s\n%s", tool, ro.Err, s.printed(ro.Log)), nil
		}
		var b strings.Builder
		result := bytes.TrimSpace(ro.Result)
		if len(result) == 0 || string(result) == "null" {
			b.WriteString("[ok]\n")
		} else {
			head, size, file, next := s.cut("result", result, "")
			b.WriteString(head + "\n")
			if file != "" {
				fmt.Fprintf(&b, "[result cut: %d of %d bytes shown; the rest: read_file path=%q offset=%d]\n", len(head), size, file, next)
			}
		}
		b.WriteString(s.printed(ro.Log))
		return mcp.NewToolResultText(b.String()), nil
	}
}

// printed is what a skill printed besides its result, cut to MaxOutput,
// under a heading; "" when it printed nothing.
func (s *Server) printed(log string) string {
	if log == "" {
		return ""
	}
	head, size, file, next := s.cut("stdout", []byte(log), "")
	out := "[printed]\n" + head
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	if file != "" {
		out += fmt.Sprintf("[printed output cut: %d of %d bytes shown; the rest: read_file path=%q offset=%d]\n", len(head), size, file, next)
	}
	return out
}

// skillError is toolError for the skill tools, with the skills folder's
// path taken out: an agent has no use for where the data dir is, and a
// store error (a failed write, a held lock) names it. Saved output paths
// (another folder of the data dir) stay: read_file needs them.
func (s *Server) skillError(format string, a ...any) *mcp.CallToolResult {
	msg := fmt.Sprintf(format, a...)
	if st := s.opts.Skills; st != nil && st.Dir() != "" {
		msg = strings.ReplaceAll(msg, st.Dir(), "<skills dir>")
	}
	return mcp.NewToolResultError(msg)
}
