package discovery

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"strings"
)

// redacted replaces a secret from the config wherever mcpfs would show it.
const redacted = "[redacted]"

// minSecretLen is the length from which a config value counts as a secret:
// shorter values ("1", "true", "debug") are words that text is full of, and
// replacing them would garble messages without protecting anything.
const minSecretLen = 6

// redactor removes a server's secrets from text: the values of its env
// variables and headers, and its URL's userinfo and query values. A server
// that echoes its environment on stderr, or a transport error quoting the
// URL, then shows none of them in logs, errors or generated files.
type redactor struct {
	r *strings.Replacer // nil when there is nothing to hide
}

func newRedactor(sc ServerConfig) *redactor {
	var secrets []string
	add := func(v string) {
		if len(v) < minSecretLen {
			return
		}
		secrets = append(secrets, v)
		if q := url.QueryEscape(v); q != v {
			secrets = append(secrets, q)
		}
		if q := url.PathEscape(v); q != v {
			secrets = append(secrets, q)
		}
	}
	for _, v := range sc.Env {
		if isExistingPath(v) {
			continue // a directory or file: shown in errors, and no secret
		}
		add(v)
	}
	for _, v := range sc.Headers {
		add(v)
		for _, f := range strings.Fields(v) { // "Bearer <token>"
			add(f)
		}
	}
	if u, err := url.Parse(sc.URL); err == nil {
		if u.User != nil {
			if p, ok := u.User.Password(); ok {
				add(p)
			}
			add(u.User.Username())
			add(u.User.String())
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
			}
		}
		for _, kv := range strings.Split(u.RawQuery, "&") { // as written
			if _, v, ok := strings.Cut(kv, "="); ok {
				add(v)
			}
		}
	}
	if len(secrets) == 0 {
		return &redactor{}
	}
	// Longest first, so that a secret containing another is replaced whole.
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	secrets = slices.Compact(secrets)
	pairs := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		pairs = append(pairs, s, redacted)
	}
	return &redactor{r: strings.NewReplacer(pairs...)}
}

func isExistingPath(v string) bool {
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \t\n") {
		return false
	}
	_, err := os.Stat(v)
	return err == nil
}

// String returns s without secrets.
func (r *redactor) String(s string) string {
	if r == nil || r.r == nil {
		return s
	}
	return r.r.Replace(s)
}

// Error returns err with a message without secrets; errors.Is and errors.As
// still see the original chain.
func (r *redactor) Error(err error) error {
	if err == nil || r == nil || r.r == nil {
		return err
	}
	msg := err.Error()
	clean := r.r.Replace(msg)
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactHandler is a slog.Handler that removes a server's secrets from the
// message and every attribute before passing a record on.
type redactHandler struct {
	next slog.Handler
	r    *redactor
}

func (h *redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.r.String(v.String()))
	case slog.KindGroup:
		as := v.Group()
		out := make([]slog.Attr, len(as))
		for i, g := range as {
			out[i] = h.attr(g)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}
	case slog.KindAny:
		return slog.String(a.Key, h.r.String(fmt.Sprint(v.Any())))
	default:
		return slog.Attr{Key: a.Key, Value: v}
	}
}

func (h *redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = h.attr(a)
	}
	return &redactHandler{next: h.next.WithAttrs(clean), r: h.r}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{next: h.next.WithGroup(name), r: h.r}
}

// redactLogger wraps log so that nothing it writes shows r's secrets.
func redactLogger(log *slog.Logger, r *redactor) *slog.Logger {
	if r == nil || r.r == nil {
		return log
	}
	return slog.New(&redactHandler{next: log.Handler(), r: r})
}
