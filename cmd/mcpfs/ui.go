package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"net"
	"net/http"
	osexec "os/exec"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
	"github.com/mcpfs/mcpfs/cmd/internal/runlog"
	"github.com/mcpfs/mcpfs/cmd/internal/trust"
	"github.com/mcpfs/mcpfs/cmd/internal/ui"
	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/check"
	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/skills"
)

func newUICmd(g *globals) *cobra.Command {
	var (
		addr string
		open bool
	)
	cmd := &cobra.Command{
		Use:   "ui [--addr 127.0.0.1:0] [--open=false]",
		Short: "Open a local page: servers, tree, a snippet editor, runs and skills",
		Long: `Serve a page on this machine's loopback that shows what the engine sees:
every server with its state, transport, tool count and last error (live);
the tree, to browse servers/<server>/, read a tool's Go file and search; a
snippet editor that type-checks as you type and runs the snippet with its
output and tool calls streaming in, and saves it as a skill; the runs made
on the engine, from the page and by agents (serve's exec, mcpfs run, a
mount's run/), with their output, exit, calls (timings and sizes) and the
tokens their results kept out of the model's context; and the saved skills
with their versions, to view and restore.

The page listens on loopback only and needs the token in the URL this
command prints (a new one each time); the page keeps it in a cookie. Hosts
and origins other than the page's own are refused. Stop it with Ctrl-C.`,
		Example: "  mcpfs ui\n  mcpfs ui --addr 127.0.0.1:8780 --open=false",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return usagef("--addr wants host:port, got %q", addr)
			}
			if !isLoopbackHost(host) {
				return usagef("--addr %s: the page listens on loopback only (127.0.0.1, [::1] or localhost)", addr)
			}
			ctx := cmd.Context()
			e, release, err := g.useEngine(ctx, engine.Options{WarmRunner: true})
			if err != nil {
				return err
			}
			defer release()
			token, err := newUIToken()
			if err != nil {
				return err
			}
			srv, err := ui.New(uiEngine{e}, ui.Options{Token: token, Logger: g.log})
			if err != nil {
				return err
			}
			defer srv.Close()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen for the page: %w", err)
			}
			url := "http://" + ln.Addr().String() + "/?token=" + token
			fmt.Fprintf(g.stdout, "mcpfs: page at %s\n", url)
			fmt.Fprintf(g.stderr, "mcpfs: loopback only; the token in the URL is the key to it (new each time). Ctrl-C stops it.\n")
			if open {
				g.openBrowser(url)
			}
			return serveUI(ctx, g, srv, ln)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:0", "loopback `host:port` to listen on (port 0: any free port)")
	f.BoolVar(&open, "open", true, "open the page in the desktop's browser")
	return cmd
}

// newUIToken returns a random token for one run of the page.
func newUIToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a token for the page: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// serveUI serves the page on ln until ctx ends.
func serveUI(ctx context.Context, g *globals, h http.Handler, ln net.Listener) error {
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(g.log.Handler(), slog.LevelDebug),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve the page: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close() // event streams stay open until closed
	}
	<-served
	return nil
}

// openBrowser opens url with the desktop's opener, when there is a
// desktop; otherwise the printed URL is the way in.
func (g *globals) openBrowser(url string) {
	if g.getenv("DISPLAY") == "" && g.getenv("WAYLAND_DISPLAY") == "" {
		return
	}
	for _, opener := range []string{"xdg-open", "open"} {
		p, err := osexec.LookPath(opener)
		if err != nil {
			continue
		}
		c := osexec.Command(p, url)
		c.Env = g.environ()
		c.Dir = g.cwd
		if err := c.Start(); err != nil {
			g.log.Warn("open the page in a browser", "opener", p, "error", err)
			return
		}
		go c.Wait()
		return
	}
}

// uiEngine is the page's view of the engine.
type uiEngine struct{ e *engine.Engine }

var _ ui.Engine = uiEngine{}

// Servers are those of the current tree: as the tool policy lets snippets
// see them.
func (u uiEngine) Servers() []discovery.ServerSnapshot { return u.e.Catalog().Servers }

func (u uiEngine) Tree() iofs.FS { return u.e.Tree() }

func (u uiEngine) Follow(changed func()) func() {
	return u.e.Follow(u.e.Tree(), func(*mcpfs.Tree) { changed() })
}

func (u uiEngine) Search(query string, n int) string {
	return u.e.Search(u.e.Tree(), query, n)
}

func (u uiEngine) Check(filename string, src []byte) error {
	_, err := check.Check(filename, src, u.e.Tree(), u.e.Settings().Check())
	return err
}

func (u uiEngine) Run(ctx context.Context, filename, tag string, src []byte, stdout, stderr io.Writer, call func(exec.CallFunc) exec.CallFunc) (*exec.Result, error) {
	return u.e.RunWith(ctx, filename, src, engine.RunOptions{Face: "ui", Tag: tag, Stdout: stdout, Stderr: stderr, WrapCall: call})
}

func (u uiEngine) Runs(f func(runlog.Event)) ([]runlog.Run, func()) { return u.e.Runs().Follow(f) }

func (u uiEngine) Skills() *skills.Store { return u.e.Skills() }

func (u uiEngine) AuditFile() string { return u.e.AuditFile() }

func (u uiEngine) PinDiff(server string) (int, string) {
	changes, err := u.e.TrustView().Diff(u.e.Supervisor().Catalog(), server)
	if err != nil {
		return 0, err.Error()
	}
	return len(changes), trust.FormatDiff(server, changes)
}
