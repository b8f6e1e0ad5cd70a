package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/mcpfs/mcpfs/cmd/internal/audit"
	"github.com/mcpfs/mcpfs/cmd/internal/trust"
	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/policy"
	"github.com/mcpfs/mcpfs/exec"
)

// Faces a run comes from, as the audit log names them.
const (
	FaceCLI   = "cli"
	FaceMount = "mount"
	FaceServe = "serve"
)

// TrustDir is where an engine keeps name ("pins", "audit", "oauth"):
// <data dir>/name, or <user data dir>/mcpfs/name; "" when there is no
// such place.
func (d Dirs) TrustDir(name string) string {
	if d.Data != "" {
		return filepath.Join(d.Data, name)
	}
	data, ok, err := userDataDir()
	if err != nil || !ok {
		return ""
	}
	return filepath.Join(data, "mcpfs", name)
}

// startTrust sets up the tool policy, the pins and the audit log of cfg.
func (e *Engine) startTrust(d Dirs, cfg *discovery.Config) {
	pins := d.TrustDir("pins")
	if pins == "" {
		e.log.Info("tool definitions are pinned for this process only: no data dir (give --data-dir to keep them)")
	}
	e.trust = trust.New(pins, cfg.Settings.Tools, e.log)
	if dir := d.TrustDir("audit"); dir != "" {
		l, err := audit.Open(dir, auditOptions(cfg))
		if err != nil {
			e.log.Warn("tool calls are not audited", "error", err)
		} else {
			e.audit = l
		}
	} else {
		e.log.Info("tool calls are not audited: no data dir (give --data-dir to keep a log)")
	}
}

func auditOptions(cfg *discovery.Config) audit.Options {
	return audit.Options{MaxSize: cfg.Settings.Audit.MaxSize, Keep: cfg.Settings.Audit.Keep}
}

// applyTrust makes the policy and audit settings of an edited config
// current, publishing a new tree when the policy changed.
func (e *Engine) applyTrust(cfg *discovery.Config) {
	if e.audit != nil {
		e.audit.SetOptions(auditOptions(cfg))
	}
	if e.trust.SetPolicy(cfg.Settings.Tools) {
		e.log.Warn("config: tool policy changed; the tree and calls follow it")
		e.publish(e.sup.Catalog())
	}
}

// AuditFile is the current file of the audit log, "" when calls are not
// audited.
func (e *Engine) AuditFile() string {
	if e.audit == nil {
		return ""
	}
	return filepath.Join(e.audit.Dir(), audit.File)
}

// newRunID returns a short random id for a run.
func newRunID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// callFunc returns the function a run's tool calls go through: the
// snippet's nil lists sent empty where the schema wants a list (nulls.go),
// the policy refuses denied tools, every call is written to the audit
// log, and the rest goes to the supervisor.
func (e *Engine) callFunc(face, run string) exec.CallFunc {
	return func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
		if bytes.Contains(args, []byte("null")) {
			args = emptyNulls(e.inputSchema(server, tool), args)
		}
		res, err := e.trustedCall(ctx, face, run, server, tool, args)
		if err == nil {
			e.LearnFrom(server, tool, res)
		}
		return res, err
	}
}

// inputSchema returns the input schema of server's tool as the server
// lists it, nil when unknown.
func (e *Engine) inputSchema(server, tool string) json.RawMessage {
	s, ok := e.sup.Catalog().Server(server)
	if !ok {
		return nil
	}
	for _, t := range s.Tools {
		if t.Name == tool {
			var def struct {
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			json.Unmarshal(t.Raw, &def)
			return def.InputSchema
		}
	}
	return nil
}

// trustedCall makes one call as a run does: the policy may refuse it, it
// is written to the audit log, and the rest goes to the supervisor.
func (e *Engine) trustedCall(ctx context.Context, face, run, server, tool string, args json.RawMessage) (json.RawMessage, error) {
	start := time.Now()
	var res json.RawMessage
	err := e.trust.CheckCall(e.sup.Catalog(), server, tool)
	if err == nil {
		res, err = e.sup.CallTool(ctx, server, tool, args)
		if errors.Is(err, transport.ErrOAuthAuthorizationRequired) {
			key := server
			if s, ok := e.sup.Catalog().Server(server); ok {
				key = s.Key
			}
			err = fmt.Errorf("%w (needs login: mcpfs auth %s)", err, key)
		}
	}
	e.record(face, run, server, tool, args, res, err, start)
	return res, err
}

// record writes one call to the audit log.
func (e *Engine) record(face, run, server, tool string, args, res json.RawMessage, err error, start time.Time) {
	if e.audit == nil {
		return
	}
	r := audit.Record{
		Time: start.UTC(), Run: run, Face: face, Server: server, Tool: tool,
		ArgsBytes: len(args), ArgsHash: audit.HashArgs(args), ResultBytes: len(res),
		DurationMS: float64(time.Since(start).Microseconds()) / 1000,
		Outcome:    "ok",
	}
	cfg := e.Config()
	switch {
	case errors.Is(err, policy.ErrDenied):
		r.Outcome, r.Error = "denied", err.Error()
	case err != nil:
		r.Outcome, r.Error = "error", cfg.Redact(err.Error())
	case isToolError(res):
		r.Outcome = "tool error"
	}
	if cfg.Settings.Audit.Arguments && len(args) > 0 {
		r.Args = redactJSON(cfg, args)
	}
	if cfg.Settings.Audit.Results && len(res) > 0 {
		r.Result = redactJSON(cfg, res)
	}
	if err := e.audit.Append(r); err != nil {
		e.log.Warn("audit log", "error", err)
	}
}

// redactJSON returns v with the config's secrets replaced; as a JSON
// string when the replacement broke the JSON.
func redactJSON(cfg *discovery.Config, v json.RawMessage) json.RawMessage {
	s := cfg.Redact(string(v))
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// isToolError reports whether a CallToolResult has isError true.
func isToolError(res json.RawMessage) bool {
	if !strings.Contains(string(res), `"isError"`) {
		return false
	}
	var v struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(res, &v) == nil && v.IsError
}

// TrustView returns the tool policy and the pinned definitions the tree
// follows.
func (e *Engine) TrustView() *trust.View { return e.trust }

// Republish makes a tree of the newest catalog current, as after the
// policy or the pins changed.
func (e *Engine) Republish() { e.publish(e.sup.Catalog()) }
