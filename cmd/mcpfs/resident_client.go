package main

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
)

// noEngineEnv, set to 1 (or true, yes, on), runs every command in process,
// as --no-engine does.
const noEngineEnv = "MCPFS_NO_ENGINE"

// readyFDEnv tells a starting engine which descriptor to write "ready" to.
const readyFDEnv = "MCPFS_ENGINE_READY_FD"

const (
	// engineStartTimeout bounds how long a client waits for an engine it
	// started to listen.
	engineStartTimeout = 15 * time.Second
	// cancelGrace is how long a client waits, after Ctrl-C, for the
	// engine to end the command before it hangs up.
	cancelGrace = 10 * time.Second
	// maxLogSize is the engine log's size past which a starting engine
	// moves it aside (one old copy is kept).
	maxLogSize = 8 << 20
)

// engineAddr names one resident engine: the one for a config file, a data
// dir and this build of mcpfs, in the user's private runtime folder.
type engineAddr struct {
	dir  string // the runtime folder, mode 0700
	name string // a hash of what the engine is for
}

func (a engineAddr) sock() string { return filepath.Join(a.dir, a.name+".sock") }
func (a engineAddr) lock() string { return filepath.Join(a.dir, a.name+".lock") }
func (a engineAddr) info() string { return filepath.Join(a.dir, a.name+".json") }
func (a engineAddr) log() string  { return filepath.Join(a.dir, a.name+".log") }

// runtimeDir is the user's private folder for engine sockets:
// $XDG_RUNTIME_DIR/mcpfs, or <temp dir>/mcpfs-<uid>. It is created mode
// 0700 and must belong to this user and be open to no one else.
func runtimeDir(getenv func(string) string) (string, error) {
	var dir string
	if d := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		if info, err := os.Stat(d); err == nil && info.IsDir() && ownedByMe(info) {
			dir = filepath.Join(d, "mcpfs")
		}
	}
	if dir == "" {
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("mcpfs-%d", os.Geteuid()))
	}
	// A socket path holds at most maxSocketPath bytes: the name and the
	// private folder it is bound in take about 40 of them.
	if len(dir)+40 > maxSocketPath {
		dir = fmt.Sprintf("/tmp/mcpfs-%d", os.Geteuid())
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, iofs.ErrExist) {
		return "", fmt.Errorf("engine folder: %w", err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("engine folder: %w", err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("engine folder %s is not a folder: remove it", dir)
	}
	if !ownedByMe(info) {
		return "", fmt.Errorf("engine folder %s belongs to another user: set $XDG_RUNTIME_DIR or $TMPDIR to a folder of yours", dir)
	}
	if info.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return "", fmt.Errorf("engine folder %s is open to other users (mode %04o) and cannot be made private: %w", dir, info.Mode().Perm(), err)
		}
	}
	return dir, nil
}

func ownedByMe(info iofs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// buildID identifies this mcpfs binary: an engine only serves clients of
// the same build, so an upgraded mcpfs never talks to an old engine.
func buildID() string { return cmp.Or(engine.Build(), "unknown") }

// engineAddrFor returns the address of the engine for the data dir of g:
// one engine process serves every config of a data dir (their servers
// share its cache, which one process at a time may open).
func (g *globals) engineAddrFor() (engineAddr, error) {
	dir, err := runtimeDir(g.getenv)
	if err != nil {
		return engineAddr{}, err
	}
	// The data dir as resolved: the same flag with another
	// $XDG_CACHE_HOME is another engine.
	dataDir, _, _ := g.dirs().CacheDir()
	if dataDir != "" {
		if abs, err := filepath.Abs(g.abs(dataDir)); err == nil {
			dataDir = abs
		}
	}
	h := sha256.Sum256([]byte(buildID() + "\x00" + dataDir))
	return engineAddr{dir: dir, name: "engine-" + hex.EncodeToString(h[:8])}, nil
}

// engineDisabled says whether commands run in process: --no-engine, or
// $MCPFS_NO_ENGINE.
func (g *globals) engineDisabled() bool {
	if g.noEngine {
		return true
	}
	switch strings.ToLower(g.getenv(noEngineEnv)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// errForwarded ends a command that the resident engine ran: code is its
// exit code, already reported.
type errForwarded struct{ code int }

func (e errForwarded) Error() string { return "exit status " + strconv.Itoa(e.code) }

// forward runs the command line args on the resident engine for g's
// config, starting the engine when none runs. handled is false when there
// is no engine to use (the command then runs in process); a config that
// does not load is an error here, before anything starts.
func (g *globals) forward(ctx context.Context, args []string) (handled bool, code int, err error) {
	cfg, err := g.findConfig()
	if err != nil {
		return false, 0, err
	}
	addr, err := g.engineAddrFor()
	if err != nil {
		g.log.Warn("running in process: no engine", "error", err)
		return false, 0, nil
	}
	c, err := g.dialOrStart(ctx, addr)
	if err != nil {
		g.log.Warn("running in process: the engine is not available", "error", err)
		return false, 0, nil
	}
	defer c.Close()
	code, err = g.runRemote(ctx, c, addr, cfg.Path, args)
	return true, code, err
}

// dialEngineAt connects to the engine listening at addr, if one does.
func dialEngineAt(addr engineAddr) (*net.UnixConn, error) {
	info, err := os.Lstat(addr.sock())
	if err != nil {
		return nil, err
	}
	if info.Mode().Type() != iofs.ModeSocket || !ownedByMe(info) {
		return nil, fmt.Errorf("%s is not an engine socket of this user", addr.sock())
	}
	nc, err := net.DialTimeout("unix", addr.sock(), 2*time.Second)
	if err != nil {
		return nil, err
	}
	c := nc.(*net.UnixConn)
	if uid, err := peerUID(c); err != nil || uid != os.Geteuid() {
		c.Close()
		return nil, fmt.Errorf("the engine socket %s is served by another user", addr.sock())
	}
	return c, nil
}

// dialOrStart connects to the engine at addr, starting it first when
// none listens. Starts are serialised by a lock file, so that clients
// starting at once share one engine.
func (g *globals) dialOrStart(ctx context.Context, addr engineAddr) (*net.UnixConn, error) {
	if c, err := dialEngineAt(addr); err == nil {
		return c, nil
	}
	lf, err := os.OpenFile(addr.lock(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("engine lock: %w", err)
	}
	defer lf.Close()
	deadline := time.Now().Add(engineStartTimeout)
	for {
		err := unix.Flock(int(lf.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) || time.Now().After(deadline) {
			return nil, fmt.Errorf("engine lock %s: %w", addr.lock(), err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	defer unix.Flock(int(lf.Fd()), unix.LOCK_UN)
	if c, err := dialEngineAt(addr); err == nil {
		return c, nil // another client started it meanwhile
	}
	if err := g.startEngineProcess(ctx, addr); err != nil {
		return nil, err
	}
	return dialEngineAt(addr)
}

// startEngineProcess starts `mcpfs engine serve` for addr in its own
// session, logging to addr's log file, and waits until it listens.
func (g *globals) startEngineProcess(ctx context.Context, addr engineAddr) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the mcpfs executable: %w", err)
	}
	if info, err := os.Stat(addr.log()); err == nil && info.Size() > maxLogSize {
		os.Rename(addr.log(), addr.log()+".1")
	}
	logf, err := os.OpenFile(addr.log(), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("engine log: %w", err)
	}
	defer logf.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pr.Close()
	args := []string{"engine", "serve", "--name", addr.name, "--connect-timeout", g.connectTimeout.String()}
	if g.dataDir != "" {
		dd, _ := filepath.Abs(g.abs(g.dataDir))
		args = append(args, "--data-dir", dd)
	}
	if g.engineIdle > 0 {
		args = append(args, "--idle", g.engineIdle.String())
	}
	cmd := osexec.Command(exe, args...)
	cmd.Env = append(os.Environ(), readyFDEnv+"=3")
	cmd.Dir = "/"
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{pw}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	fmt.Fprintf(logf, "---- %s: engine starting\n", time.Now().Format(time.RFC3339))
	if err := cmd.Start(); err != nil {
		pw.Close()
		return fmt.Errorf("start the engine: %w", err)
	}
	pw.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	ready := make(chan string, 1)
	go func() {
		// "ready\n", or EOF when the engine exits first.
		b, _ := bufio.NewReader(io.LimitReader(pr, 256)).ReadString('\n')
		ready <- b
	}()
	t := time.NewTimer(engineStartTimeout)
	defer t.Stop()
	select {
	case msg := <-ready:
		if strings.HasPrefix(msg, "ready") {
			g.log.Info("started the engine", "pid", cmd.Process.Pid, "log", addr.log())
			return nil
		}
		err := <-exited
		return fmt.Errorf("the engine did not start (%v): %s", err, logTail(addr.log()))
	case <-t.C:
		cmd.Process.Kill()
		return fmt.Errorf("the engine did not start within %v: %s", engineStartTimeout, logTail(addr.log()))
	case <-ctx.Done():
		return ctx.Err()
	}
}

// logTail returns the last lines of the engine log, for errors.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "see " + path
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, "\n") + "\n(log: " + path + ")"
}

// runRemote runs args on the engine connected by c and copies its
// output here. Ctrl-C (ctx ending) asks the engine to stop the command;
// if it has not ended within cancelGrace the client hangs up.
func (g *globals) runRemote(ctx context.Context, c *net.UnixConn, addr engineAddr, config string, args []string) (int, error) {
	fc := newFrameConn(c)
	hello := clientHello{
		Protocol:  residentProtocol,
		Build:     buildID(),
		Config:    config,
		Args:      args,
		Cwd:       g.cwd,
		Env:       g.environ(),
		StderrTTY: g.stderrTTY(),
	}
	if err := fc.writeJSON(frameHello, hello); err != nil {
		return 0, fmt.Errorf("the engine did not answer: %w", err)
	}
	var eh engineHello
	if err := fc.readJSON(frameHello, &eh); err != nil {
		return 0, fmt.Errorf("the engine did not answer: %w", err)
	}
	if eh.Error != "" {
		return 0, fmt.Errorf("the engine (pid %d) refused the command: %s", eh.PID, eh.Error)
	}
	stopCancel := context.AfterFunc(ctx, func() {
		fc.write(frameCancel, nil)
		time.AfterFunc(cancelGrace, func() { c.Close() })
	})
	defer stopCancel()
	stdinStarted := false
	for {
		kind, p, err := fc.read(maxFrame)
		if err != nil {
			if ctx.Err() != nil {
				return exitSignal, nil
			}
			return 0, withExit(exitEngine, fmt.Errorf("the mcpfs engine (pid %d) went away during the command (%v): run it again; its log is %s", eh.PID, err, addr.log()))
		}
		switch kind {
		case frameStdout:
			g.stdout.Write(p)
		case frameStderr:
			g.stderr.Write(p)
		case frameWantStdin:
			if !stdinStarted {
				stdinStarted = true
				go pumpStdin(g.stdin, fc)
			}
		case frameExit:
			var x struct{ Code int }
			if err := json.Unmarshal(p, &x); err != nil {
				return 0, fmt.Errorf("the engine sent a bad exit frame: %w", err)
			}
			return x.Code, nil
		}
	}
}

// pumpStdin copies r to the engine as stdin frames, then an EOF frame.
func pumpStdin(r io.Reader, fc *frameConn) {
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if fc.write(frameStdin, buf[:n]) != nil {
				return
			}
		}
		if err != nil {
			fc.write(frameStdinEOF, nil)
			return
		}
	}
}
