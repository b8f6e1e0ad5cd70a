package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/mcpfs/mcpfs/cache"
	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/cmd/internal/mcpserver"
	"github.com/mcpfs/mcpfs/cmd/internal/ui"
	"github.com/mcpfs/mcpfs/exec"
	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/fs/fuse"
)

// tokenEnv names the environment variable that may hold the HTTP bearer
// token.
const tokenEnv = "MCPFS_TOKEN"

// serveOptions are the flags of mcpfs serve.
type serveOptions struct {
	http         string
	token        string
	allowHosts   []string
	allowOrigins []string
	mount        string
	timeout      time.Duration
	sandbox      string
	flags        engine.Flags // --timeout and --sandbox when given: they beat the config
}

func newServeCmd(g *globals) *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve [--http ADDR] [--mount DIR]",
		Short: "Serve every server's tools to an agent as one MCP server",
		Long: `Serve one MCP server that gives an agent every configured server through
code. Its tools: exec runs a Go snippet that imports mcpfs/servers/<server>
packages (only what it prints comes back); search_tools ranks every tool for
a query; list_dir and read_file read the tree; save_skill saves Go code as
a skill (mcpfs/skills/<name>), and every skill with a func Run is offered as
the tool skill_<name>. A few small tool schemas replace every server's
schemas in the agent's context.

By default it speaks MCP over stdio: stdout carries protocol messages only,
and logs go to stderr. With --http it serves streamable HTTP at ADDR
(host:port, :port or port; the host defaults to 127.0.0.1) under /mcp, and
every request needs "Authorization: Bearer <token>". The token is --token,
or $MCPFS_TOKEN, or else the one in <data dir>/http-token (created, mode
0600, on first use; its path is printed). Requests with a Host or Origin
that is not loopback (or allowed with --allow-host / --allow-origin) are
refused with 403, bodies over 4 MiB with 413.

--mount DIR also mounts the tree at DIR from the same process: one set of
server connections for both. Like every command, serve runs on the
resident engine (see mcpfs engine --help): clients that each start mcpfs
serve share one set of server processes and the cache.`,
		Example: `  mcpfs serve                                  # stdio, for an agent's MCP config
  mcpfs serve --http 8765                      # http://127.0.0.1:8765/mcp
  mcpfs serve --http 8765 --mount /tmp/mcp     # and the tree as files`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("timeout") {
				o.flags.Timeout = o.timeout
			}
			if cmd.Flags().Changed("sandbox") {
				o.flags.Sandbox = o.sandbox
			}
			return runServe(cmd.Context(), g, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.http, "http", "", "serve streamable HTTP at `addr` (host:port, :port or port) instead of stdio")
	f.StringVar(&o.token, "token", "", "the HTTP bearer `token` (visible to other local users in ps: prefer $"+tokenEnv+" or the token file)")
	f.StringArrayVar(&o.allowHosts, "allow-host", nil, "accept this Host `name` besides loopback ones (repeatable)")
	f.StringArrayVar(&o.allowOrigins, "allow-origin", nil, "accept this browser `origin` besides loopback ones (repeatable)")
	f.StringVar(&o.mount, "mount", "", "also mount the tree at `dir`")
	f.DurationVar(&o.timeout, "timeout", 30*time.Second, "a snippet's run time when exec gives none (default: the config's mcpfs.limits.timeout, or 30s)")
	f.StringVar(&o.sandbox, "sandbox", "auto", "auto: run snippets with the sandbox layers available; strict: refuse unless all are")
	return cmd
}

func runServe(ctx context.Context, g *globals, o serveOptions) error {
	var strict bool
	switch o.sandbox {
	case "auto":
	case "strict":
		strict = true
	default:
		return usagef("--sandbox must be auto or strict, got %q", o.sandbox)
	}
	if o.timeout <= 0 {
		return usagef("--timeout must be positive, got %v", o.timeout)
	}
	if o.http == "" && (o.token != "" || len(o.allowHosts) > 0 || len(o.allowOrigins) > 0) {
		return usagef("--token, --allow-host and --allow-origin need --http")
	}
	addr := ""
	if o.http != "" {
		var err error
		if addr, err = listenAddr(o.http); err != nil {
			return err
		}
	}
	if o.mount != "" {
		o.mount = g.abs(o.mount)
		if err := fuse.Check(o.mount, fuse.Options{Logger: g.log}); err != nil {
			return err
		}
	}

	// Everything that can fail fast does so before servers start.
	var (
		ln          net.Listener
		token, from string
		err         error
	)
	if addr != "" {
		if token, from, err = g.httpToken(o.token); err != nil {
			return err
		}
		if ln, err = net.Listen("tcp", addr); err != nil {
			return fmt.Errorf("serve HTTP: %w", err)
		}
		defer ln.Close()
	}
	var out io.Writer = g.stdout
	if addr == "" {
		if out, err = protectStdout(g.stdout); err != nil {
			return err
		}
	}

	e, release, err := g.useEngine(ctx, engine.Options{WarmRunner: true, Timeout: o.timeout, Strict: strict, Flags: o.flags})
	if err != nil {
		return err
	}
	defer release()
	if _, err := engine.SettingsFor(e.Config(), o.flags); err != nil {
		return err // --timeout beyond the config's maxTimeout
	}
	if o.mount != "" {
		m, err := mountEngine(g, e, o.mount)
		if err != nil {
			return err
		}
		fmt.Fprintf(g.stderr, "mcpfs: mounted at %s\n", o.mount)
		defer func() {
			if err := m.Unmount(); err != nil {
				g.log.Warn("unmount", "dir", o.mount, "error", err)
			}
		}()
	} else {
		states := &stateReporter{w: g.stderr, last: map[string]string{}}
		t := e.Tree()
		states.report(t.Catalog())
		defer e.Follow(t, func(t *mcpfs.Tree) { states.report(t.Catalog()) })()
	}

	srv := mcpserver.New(serveEngine{e, o.flags.Timeout, strict}, mcpserver.Options{
		Logger:     g.log,
		Version:    versionString(),
		OutputDir:  e.OutputDir(),
		Skills:     e.Skills(),
		MaxTimeout: e.Settings().Options.MaxTimeout,
	})
	defer srv.Close()
	if addr == "" {
		g.log.Info("serving MCP over stdio")
		err := srv.ServeStdio(ctx, g.stdin, out)
		if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("serve stdio: %w", err)
		}
		return nil
	}
	page, err := ui.New(uiEngine{e}, ui.Options{Token: token, Logger: g.log})
	if err != nil {
		return err
	}
	defer page.Close()
	return serveHTTP(ctx, g, srv, ln, mcpserver.HTTPOptions{
		Token:          token,
		AllowedHosts:   append(boundHosts(addr), o.allowHosts...),
		AllowedOrigins: o.allowOrigins,
	}, from, page)
}

// serveEngine is the engine as the MCP server face sees it, with the
// run options of this serve.
type serveEngine struct {
	*engine.Engine
	timeout time.Duration // --timeout when given: a run's time when exec gives none
	strict  bool          // --sandbox=strict
}

func (s serveEngine) Tree() iofs.FS { return s.Engine.Tree() }

func (s serveEngine) Run(ctx context.Context, filename string, src []byte, timeout time.Duration, hooks mcpserver.RunHooks) (*exec.Result, error) {
	if timeout == 0 {
		timeout = s.timeout
	}
	return s.Engine.RunWith(ctx, filename, src, engine.RunOptions{Timeout: timeout, Strict: s.strict, Face: engine.FaceServe, Stdout: hooks.Stdout, Waiting: hooks.Waiting})
}

// serveHTTP serves srv on ln until ctx ends.
func serveHTTP(ctx context.Context, g *globals, srv *mcpserver.Server, ln net.Listener, opts mcpserver.HTTPOptions, tokenFrom string, page http.Handler) error {
	h, err := srv.Handler(opts)
	if err != nil {
		return err
	}
	if page != nil {
		// The page of mcpfs ui, behind its own guard (loopback Host and
		// Origin, the same token as a bearer header or a cookie).
		mux := http.NewServeMux()
		mux.Handle("/ui/", http.StripPrefix("/ui", page))
		mux.Handle("/", h)
		h = mux
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(g.log.Handler(), slog.LevelDebug),
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	fmt.Fprintf(g.stderr, "mcpfs: serving MCP at %s\n", url)
	if page != nil {
		fmt.Fprintf(g.stderr, "mcpfs: the page (mcpfs ui) at http://%s/ui/?token=<the bearer token>\n", ln.Addr().String())
	}
	fmt.Fprintf(g.stderr, "mcpfs: bearer token: %s (send Authorization: Bearer <token>)\n", tokenFrom)
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !isLoopbackHost(host) {
		fmt.Fprintf(g.stderr, "mcpfs: warning: listening on %s, not only on this machine: anyone who reaches it with the token runs code with your servers' access\n", host)
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve HTTP: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	<-served
	return nil
}

// listenAddr turns --http's value into host:port: "8765" and ":8765" bind
// 127.0.0.1; a host binds as given.
func listenAddr(s string) (string, error) {
	if strings.Trim(s, "0123456789") == "" && s != "" {
		if _, err := strconv.ParseUint(s, 10, 16); err != nil {
			return "", usagef("--http: port %q is not a number from 0 to 65535", s)
		}
		return net.JoinHostPort("127.0.0.1", s), nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", usagef("--http wants host:port, :port or port, got %q", s)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", usagef("--http: port %q is not a number from 0 to 65535", port)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// boundHosts are the Host names accepted because the server was told to
// bind them: a specific address or name other than loopback.
func boundHosts(addr string) []string {
	host, _, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); host == "" || isLoopbackHost(host) || (ip != nil && ip.IsUnspecified()) {
		return nil
	}
	return []string{host}
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// tokenFile is where a generated HTTP token is kept: <data dir>/http-token,
// or <user cache dir>/mcpfs/http-token.
func (g *globals) tokenFile() (string, error) {
	if g.dataDir != "" {
		return filepath.Join(g.dataDir, "http-token"), nil
	}
	dir, err := cache.DefaultDir()
	if err != nil {
		return "", fmt.Errorf("find a place for the HTTP token: %w (give --data-dir, --token or $%s)", err, tokenEnv)
	}
	return filepath.Join(filepath.Dir(dir), "http-token"), nil
}

// minToken is the shortest token accepted from the user.
const minToken = 16

// httpToken returns the bearer token and a phrase saying where it is:
// --token, $MCPFS_TOKEN, or the token file, which is created with a new
// random token when missing.
func (g *globals) httpToken(flag string) (token, from string, err error) {
	switch {
	case flag != "":
		if len(flag) < minToken {
			return "", "", usagef("--token is too short: use at least %d characters (or leave it out for a generated one)", minToken)
		}
		return flag, "from --token", nil
	case g.getenv(tokenEnv) != "":
		t := g.getenv(tokenEnv)
		if len(t) < minToken {
			return "", "", usagef("$%s is too short: use at least %d characters (or unset it for a generated one)", tokenEnv, minToken)
		}
		return t, "from $" + tokenEnv, nil
	}
	path, err := g.tokenFile()
	if err != nil {
		return "", "", err
	}
	t, err := readOrCreateToken(path)
	if err != nil {
		return "", "", err
	}
	return t, "in " + path, nil
}

// readOrCreateToken reads the token in path, or writes a new random one
// there (mode 0600) when the file does not exist. A token file that others
// can read is refused.
func readOrCreateToken(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		info, err := os.Stat(path)
		if err != nil {
			return "", err
		}
		if perm := info.Mode().Perm(); perm&0o077 != 0 {
			return "", fmt.Errorf("token file %s can be read by other users (mode %04o): chmod 600 it, or delete it for a new token", path, perm)
		}
		t := strings.TrimSpace(string(data))
		if len(t) < minToken {
			return "", fmt.Errorf("token file %s holds a token shorter than %d characters: delete it for a new one", path, minToken)
		}
		return t, nil
	}
	if !errors.Is(err, iofs.ErrNotExist) {
		return "", fmt.Errorf("read token file: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("create token file: %w", err)
	}
	b := make([]byte, 32)
	rand.Read(b)
	t := base64.RawURLEncoding.EncodeToString(b)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, iofs.ErrExist) {
		return readOrCreateToken(path) // another mcpfs made it first
	}
	if err != nil {
		return "", fmt.Errorf("create token file: %w", err)
	}
	_, err = f.WriteString(t + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("write token file: %w", err)
	}
	return t, nil
}

// protectStdout keeps stray writes off the stdio protocol channel: when w
// is this process's file descriptor 1, the protocol gets a duplicate of it
// and descriptor 1 is pointed at stderr, so that anything else writing to
// os.Stdout (a library, a panic handler) lands in the log instead of
// corrupting the channel. Any other writer is returned as is.
func protectStdout(w io.Writer) (io.Writer, error) {
	f, ok := w.(*os.File)
	if !ok || f.Fd() != 1 {
		return w, nil
	}
	fd, err := unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, fmt.Errorf("keep stdout for the protocol: %w", err)
	}
	if err := unix.Dup3(2, 1, 0); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("point stdout at stderr: %w", err)
	}
	return os.NewFile(uintptr(fd), "mcp-stdout"), nil
}
