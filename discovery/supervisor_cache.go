package discovery

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"
)

// ToolCache keeps each server's last tool listing across runs, so that the
// tree is complete at once on start and while a server is down. Keys come
// from [ServerKey]. Implementations must be safe for concurrent use; they
// handle their own errors (a failed store is logged, a failed load is a
// miss).
type ToolCache interface {
	LoadTools(key string) (CachedTools, bool)
	StoreTools(key string, t CachedTools)
}

// ResultCache keeps results of read-only tool calls for servers whose
// config opts in (ServerConfig.CacheResults). Keys are opaque hashes; a
// stored result expires after ttl. Implementations bound what they keep and
// must be safe for concurrent use.
type ResultCache interface {
	LoadResult(key string) (json.RawMessage, bool)
	StoreResult(key string, result json.RawMessage, ttl time.Duration)
}

// Cache is both caches, as one store provides them.
type Cache interface {
	ToolCache
	ResultCache
}

type noResultCacheKey struct{}

// WithoutResultCache returns a context whose CallTool calls neither read
// nor fill the result cache: the call always reaches the server. A snippet
// runtime sets it when the snippet asks for fresh results.
func WithoutResultCache(ctx context.Context) context.Context {
	return context.WithValue(ctx, noResultCacheKey{}, true)
}

func resultCacheBypassed(ctx context.Context) bool {
	v, _ := ctx.Value(noResultCacheKey{}).(bool)
	return v
}

// ServerKey identifies a server for the caches: a SHA-256 over what
// decides which server process or endpoint it is (transport, command, args,
// cwd, the names of env variables, the URL without userinfo and query
// values, the names of headers, the built-in's name). It holds no secret
// value, and two configs that start the same server share it whatever the
// server is called.
func ServerKey(sc ServerConfig) string {
	h := sha256.New()
	field := func(k, v string) {
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write([]byte(v))
		h.Write([]byte{0})
	}
	field("transport", sc.Transport)
	switch sc.Transport {
	case "stdio":
		field("command", sc.Command)
		for _, a := range sc.Args {
			field("arg", a)
		}
		field("cwd", sc.Cwd)
		for _, k := range slices.Sorted(maps.Keys(sc.Env)) {
			field("env", k)
		}
	case "builtin":
		field("builtin", sc.Builtin)
	default:
		field("url", urlIdentity(sc.URL))
		for _, k := range slices.Sorted(maps.Keys(sc.Headers)) {
			field("header", strings.ToLower(k))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// urlIdentity is a URL without its userinfo, fragment and query values
// (the query's names stay, sorted).
func urlIdentity(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		sum := sha256.Sum256([]byte(raw))
		return "unparsable:" + hex.EncodeToString(sum[:])
	}
	names := slices.Sorted(maps.Keys(u.Query()))
	u.User, u.RawQuery, u.Fragment, u.RawFragment = nil, "", "", ""
	return u.String() + "?" + strings.Join(names, "&")
}

// resultKey is the cache key of one call: server, tool and the arguments
// in canonical form (object keys sorted), hashed.
func resultKey(serverKey, tool string, args json.RawMessage) string {
	canon := args
	var v any
	if err := json.Unmarshal(args, &v); err == nil {
		if b, err := json.Marshal(v); err == nil { // maps marshal with sorted keys
			canon = b
		}
	}
	h := sha256.New()
	h.Write([]byte(serverKey))
	h.Write([]byte{0})
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(canon)
	return hex.EncodeToString(h.Sum(nil))
}

// readOnlyTool reports whether snap lists tool with annotations.readOnlyHint
// true.
func readOnlyTool(snap ServerSnapshot, tool string) bool {
	for _, t := range snap.Tools {
		if t.Name != tool {
			continue
		}
		var v struct {
			Annotations struct {
				ReadOnlyHint *bool `json:"readOnlyHint"`
			} `json:"annotations"`
		}
		if json.Unmarshal(t.Raw, &v) != nil || v.Annotations.ReadOnlyHint == nil {
			return false
		}
		return *v.Annotations.ReadOnlyHint
	}
	return false
}

// isErrorResult reports whether a CallToolResult has isError true.
func isErrorResult(res json.RawMessage) bool {
	if !bytes.Contains(res, []byte(`"isError"`)) {
		return false
	}
	var v struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(res, &v) == nil && v.IsError
}

// loadCachedTools fills a connecting server's snapshot from the cache.
func (s *Supervisor) loadCachedTools(rt *serverRuntime) {
	if s.opts.Cache == nil {
		return
	}
	ct, ok := s.opts.Cache.LoadTools(rt.key)
	if !ok {
		return
	}
	rt.snap.Stale = true
	rt.snap.ListedAt = ct.ListedAt
	rt.snap.ServerName = ct.ServerName
	rt.snap.ServerTitle = ct.ServerTitle
	rt.snap.ServerVersion = ct.ServerVersion
	rt.snap.ProtocolVersion = ct.ProtocolVersion
	rt.snap.Instructions = ct.Instructions
	rt.snap.Tools = ct.Tools
	rt.snap.ToolsTruncated = ct.ToolsTruncated
}

// storeTools saves a live listing of snap in the cache.
func (s *Supervisor) storeTools(rt *serverRuntime, snap ServerSnapshot) {
	if s.opts.Cache == nil {
		return
	}
	s.opts.Cache.StoreTools(rt.key, CachedTools{
		ListedAt:        snap.ListedAt,
		ServerName:      snap.ServerName,
		ServerTitle:     snap.ServerTitle,
		ServerVersion:   snap.ServerVersion,
		ProtocolVersion: snap.ProtocolVersion,
		Instructions:    snap.Instructions,
		Tools:           snap.Tools,
		ToolsTruncated:  snap.ToolsTruncated,
	})
}
