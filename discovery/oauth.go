package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// OAuthConfig is an HTTP server's "mcpfs": {"oauth": ...}: log in with
// OAuth 2.1 (the MCP authorization spec) instead of static headers. The
// authorization server is found from the server's protected resource
// metadata; a client is registered dynamically unless ClientID is given.
type OAuthConfig struct {
	ClientID     string
	ClientSecret string
	Scopes       []string
}

// ErrNeedsLogin is wrapped by the error of a server whose OAuth login is
// missing, expired past refreshing, or revoked.
var ErrNeedsLogin = errors.New("needs login")

// oauthKeys are the keys of a server's "oauth" object.
var oauthKeys = []string{"clientId", "clientSecret", "scopes"}

// oauth reads a server's "mcpfs": {"oauth": true | {...}}.
func (p *configParser) oauth(sc *ServerConfig, v *jsonValue, path string) error {
	if v.Kind == jsonBool {
		if v.Bool {
			sc.OAuth = &OAuthConfig{}
		}
		return nil
	}
	if err := p.wantKind(v, path, jsonObject, `true, or an object like {"clientId": "...", "scopes": ["read"]}`); err != nil {
		return err
	}
	if err := p.noDuplicateKeys(v, path); err != nil {
		return err
	}
	o := &OAuthConfig{}
	for _, f := range v.Members {
		fpath := jsonPathKey(path, f.Key)
		switch f.Key {
		case "clientId", "clientSecret":
			s, err := p.nonEmptyString(f.Value, fpath)
			if err != nil {
				return err
			}
			x := &expander{lookupEnv: p.lookupEnv, sc: sc, vsCode: p.format == keyServers, dir: p.dir}
			str := x.expand(s, fpath)
			if f.Key == "clientId" {
				o.ClientID = str
			} else {
				o.ClientSecret = str
			}
		case "scopes":
			elems, err := p.stringArray(f.Value, fpath)
			if err != nil {
				return err
			}
			for _, e := range elems {
				o.Scopes = append(o.Scopes, e.Str)
			}
		default:
			return p.unknownKey(f, fpath, oauthKeys)
		}
	}
	sc.OAuth = o
	return nil
}

// OAuthLogin is what is kept of one server's login, in
// <Options.OAuthDir>/<server>.json (0600): the tokens and the client
// registered for them. Nothing else of mcpfs holds a token.
type OAuthLogin struct {
	ClientID     string           `json:"clientId,omitempty"`
	ClientSecret string           `json:"clientSecret,omitempty"`
	Token        *transport.Token `json:"token,omitempty"`
}

// refreshEarly is how long before it expires a token is refreshed.
const refreshEarly = 30 * time.Second

// OAuthStore keeps one server's login in a file. It implements
// transport.TokenStore: tokens it returns expire refreshEarly sooner than
// they do, so that mcp-go refreshes them before the server refuses them.
type OAuthStore struct {
	path string
	mu   sync.Mutex
}

// NewOAuthStore returns the store of server (its normalised name) in dir.
func NewOAuthStore(dir, server string) *OAuthStore {
	return &OAuthStore{path: filepath.Join(dir, server+".json")}
}

// Load returns the login kept, a zero one when there is none.
func (s *OAuthStore) Load() (OAuthLogin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.load()
}

func (s *OAuthStore) load() (OAuthLogin, error) {
	var l OAuthLogin
	data, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, fmt.Errorf("read the OAuth login: %w", err)
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return l, fmt.Errorf("read the OAuth login %s: %w (log in again)", s.path, err)
	}
	return l, nil
}

// Save replaces the login kept, writing the file 0600.
func (s *OAuthStore) Save(l OAuthLogin) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.save(l)
}

func (s *OAuthStore) save(l OAuthLogin) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("save the OAuth login: %w", err)
	}
	data, _ := json.MarshalIndent(l, "", "  ")
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".login-*")
	if err != nil {
		return fmt.Errorf("save the OAuth login: %w", err)
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), s.path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save the OAuth login: %w", werr)
	}
	return nil
}

// GetToken returns the token kept, or transport.ErrNoToken.
func (s *OAuthStore) GetToken(ctx context.Context) (*transport.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, err := s.Load()
	if err != nil {
		return nil, err
	}
	if l.Token == nil || l.Token.AccessToken == "" {
		return nil, transport.ErrNoToken
	}
	t := *l.Token
	if !t.ExpiresAt.IsZero() {
		t.ExpiresAt = t.ExpiresAt.Add(-refreshEarly)
	}
	return &t, nil
}

// SaveToken keeps token with the client it was issued to.
func (s *OAuthStore) SaveToken(ctx context.Context, token *transport.Token) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l, err := s.load()
	if err != nil {
		l = OAuthLogin{}
	}
	t := *token
	if t.ExpiresAt.IsZero() && t.ExpiresIn > 0 {
		t.ExpiresAt = time.Now().Add(time.Duration(t.ExpiresIn) * time.Second)
	}
	l.Token = &t
	return s.save(l)
}

// OAuthClientConfig returns the mcp-go OAuth configuration of sc, its
// login kept in dir, redirecting to redirectURI.
func OAuthClientConfig(sc ServerConfig, dir, redirectURI string) (transport.OAuthConfig, *OAuthStore) {
	store := NewOAuthStore(dir, sc.Name)
	cfg := transport.OAuthConfig{
		RedirectURI: redirectURI,
		Scopes:      sc.OAuth.Scopes,
		TokenStore:  store,
		PKCEEnabled: true,
	}
	cfg.ClientID, cfg.ClientSecret = sc.OAuth.ClientID, sc.OAuth.ClientSecret
	if cfg.ClientID == "" && dir != "" {
		if l, err := store.Load(); err == nil {
			cfg.ClientID, cfg.ClientSecret = l.ClientID, l.ClientSecret
		}
	}
	return cfg, store
}

// oauthOption is the transport option that logs in to sc, nil when sc
// has no OAuth.
func (s *Supervisor) oauthOption(sc ServerConfig) transport.StreamableHTTPCOption {
	if sc.OAuth == nil {
		return nil
	}
	if s.opts.OAuthDir == "" {
		cfg, _ := OAuthClientConfig(sc, "", "")
		cfg.TokenStore = transport.NewMemoryTokenStore() // nowhere to keep a login
		return transport.WithHTTPOAuth(cfg)
	}
	cfg, _ := OAuthClientConfig(sc, s.opts.OAuthDir, "")
	return transport.WithHTTPOAuth(cfg)
}

// needsLogin turns the error of a server that must log in first into one
// that says how.
func needsLogin(sc ServerConfig, err error) error {
	if sc.OAuth == nil || !errors.Is(err, transport.ErrOAuthAuthorizationRequired) {
		return err
	}
	return fmt.Errorf("%w: mcpfs auth %s", ErrNeedsLogin, sc.Key)
}

// Retry starts server (its normalised name) again now if it failed:
// after a login, say. It reports whether there is such a server.
func (s *Supervisor) Retry(server string) bool {
	s.mu.Lock()
	rt := s.servers[server]
	s.mu.Unlock()
	if rt == nil {
		return false
	}
	select {
	case rt.kick <- struct{}{}:
	default:
	}
	return true
}
