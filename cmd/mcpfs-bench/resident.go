package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The resident engine as a user meets it: the real mcpfs binary, a new
// process per command as a shell starts it, beside a static Go binary that
// prints hello (the least any command can cost here).

// synthServerArg makes this program a stdio MCP server with synthetic
// tools: mcpfs-bench synth-server TEMPLATES TOOLS SEED.
const synthServerArg = "synth-server"

// synthServerMain serves the synthetic tools of one server over stdio when
// the arguments ask for it.
func synthServerMain(args []string) (code int, ran bool) {
	if len(args) != 4 || args[0] != synthServerArg {
		return 0, false
	}
	data, err := os.ReadFile(args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1, true
	}
	var templates []json.RawMessage
	if err := json.Unmarshal(data, &templates); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1, true
	}
	n, _ := strconv.Atoi(args[2])
	seed, _ := strconv.Atoi(args[3])
	// Server seed of a catalog of seed+1 servers: each server its own tools.
	cat, _, err := synthCatalog(templates, seed+1, n)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1, true
	}
	snap := cat.Servers[seed]
	s := server.NewMCPServer(snap.Name, "1.0.0", server.WithToolCapabilities(false))
	for _, t := range snap.Tools {
		var def struct {
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		json.Unmarshal(t.Raw, &def)
		tool := mcp.NewToolWithRawSchema(t.Name, def.Description, def.InputSchema)
		s.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		})
	}
	if err := server.ServeStdio(s); err != nil {
		return 1, true
	}
	return 0, true
}

// residentBench runs mcpfs commands against one config in a home of its
// own.
type residentBench struct {
	bin, hello string
	dir, home  string
	rt         string // the runtime folder of the engines' sockets
	env        []string
	// unregister drops close from the clean-ups of an interrupted bench.
	unregister func()
}

func newResidentBench(ctx context.Context, dir string) (*residentBench, error) {
	b := &residentBench{dir: dir, home: filepath.Join(dir, "home")}
	var err error
	if b.bin, err = buildMCPFS(ctx, dir); err != nil {
		return nil, err
	}
	src := filepath.Join(dir, "hello.go")
	if err := os.WriteFile(src, []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"), 0o644); err != nil {
		return nil, err
	}
	b.hello = filepath.Join(dir, "hello")
	cmd := osexec.CommandContext(ctx, "go", "build", "-o", b.hello, src)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GO111MODULE=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build the hello baseline: %w: %s", err, out)
	}
	rt, err := os.MkdirTemp("/tmp", "mcpfs-bench-rt-")
	if err != nil {
		return nil, err
	}
	b.rt = rt
	b.env = []string{
		"HOME=" + b.home, "PATH=" + os.Getenv("PATH"), "XDG_RUNTIME_DIR=" + rt,
		"XDG_CACHE_HOME=" + filepath.Join(b.home, ".cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(b.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(b.home, ".local", "share"),
	}
	// Interrupted, the bench stops the engines it started: that ends the
	// mounts they serve for its mount commands.
	b.unregister = onInterrupt(b.close)
	return b, os.MkdirAll(b.home, 0o755)
}

// useConfig makes the commands read config (JSON); "" is the built-in
// default.
func (b *residentBench) useConfig(name, config string) error {
	env := b.env[:0:0]
	for _, kv := range b.env {
		if !strings.HasPrefix(kv, "MCPFS_CONFIG=") {
			env = append(env, kv)
		}
	}
	b.env = env
	if config == "" {
		return nil
	}
	p := filepath.Join(b.dir, name+".json")
	if err := os.WriteFile(p, []byte(config), 0o644); err != nil {
		return err
	}
	b.env = append(b.env, "MCPFS_CONFIG="+p)
	return nil
}

func (b *residentBench) cmd(args ...string) *osexec.Cmd {
	c := osexec.Command(b.bin, args...)
	c.Env = b.env
	c.Dir = b.dir
	return c
}

// run runs mcpfs and returns how long it took and its stdout.
func (b *residentBench) run(args ...string) (time.Duration, string, error) {
	c := b.cmd(args...)
	var stderr strings.Builder
	c.Stderr = &stderr
	t0 := time.Now()
	out, err := c.Output()
	d := time.Since(t0)
	if err != nil {
		return d, string(out), fmt.Errorf("mcpfs %s: %w: %s", strings.Join(args, " "), err, lastLines(stderr.String(), 5))
	}
	return d, string(out), nil
}

// times runs args n times and returns each duration.
func (b *residentBench) times(n int, args ...string) ([]time.Duration, error) {
	var ds []time.Duration
	for range n {
		d, _, err := b.run(args...)
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	return ds, nil
}

func (b *residentBench) helloTimes(n int) ([]time.Duration, error) {
	var ds []time.Duration
	for range n {
		t0 := time.Now()
		if err := osexec.Command(b.hello).Run(); err != nil {
			return nil, err
		}
		ds = append(ds, time.Since(t0))
	}
	return ds, nil
}

// stop stops the engine of the current config and waits for it to go.
func (b *residentBench) stop() error {
	_, _, err := b.run("engine", "stop")
	return err
}

// status returns the engine's status JSON fields that the bench reads.
func (b *residentBench) status() (pid int, rss int64, err error) {
	_, out, err := b.run("engine", "status", "--json")
	if err != nil {
		return 0, 0, err
	}
	var st struct {
		PID int   `json:"pid"`
		RSS int64 `json:"rss_bytes"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		return 0, 0, fmt.Errorf("engine status: %w: %q", err, out)
	}
	return st.PID, st.RSS, nil
}

func (b *residentBench) close() {
	if b.unregister != nil {
		b.unregister()
	}
	b.cmd("engine", "stop", "--all").Run()
	os.RemoveAll(b.rt)
}

// slowConfig is a config of n servers, each started through a shell that
// first sleeps 5 s while the file slow exists; server(i) is the command
// line of server i.
func slowConfig(n int, slow string, server func(i int) string) string {
	servers := map[string]any{}
	for i := range n {
		servers[fmt.Sprintf("s%03d", i)] = map[string]any{
			"command": "sh",
			"args":    []string{"-c", fmt.Sprintf("if [ -e %s ]; then sleep 5; fi; exec %s", slow, server(i))},
			"timeout": 60000,
		}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	return string(data)
}

func p50p99(ds []time.Duration) string {
	return fmt.Sprintf("p50 %s, p99 %s", micros(median(ds)), micros(quantile(ds, 0.99)))
}

// residentSpeed measures the resident engine through the real binary.
func (e *env) residentSpeed(ctx context.Context, runs, coldReps int, mounts bool) ([]speedRow, error) {
	const group = "Resident engine"
	dir := filepath.Join(e.dir, "resident")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	b, err := newResidentBench(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer b.close()
	hello := filepath.Join(dir, "hello.go")
	var rows []speedRow
	// Others may share the machine: each row says how busy it was when
	// its figure was taken (the baseline is measured in the same minutes).
	stamped := 0
	stamp := func() {
		load := loadAverage()
		for ; stamped < len(rows); stamped++ {
			rows[stamped].Note = strings.TrimPrefix(rows[stamped].Note+"; load average "+load, "; ")
		}
	}

	// Warm: the engine of the built-in default runs.
	if _, _, err := b.run("run", hello); err != nil {
		return nil, err
	}
	base, err := b.helloTimes(runs)
	if err != nil {
		return nil, err
	}
	warm, err := b.times(runs, "run", hello)
	if err != nil {
		return nil, err
	}
	rows = append(rows, speedRow{Group: group, What: "`mcpfs run hello.go`, engine warm (target p50 ≤ 15 ms, p99 ≤ 40 ms)", Value: p50p99(warm), Baseline: p50p99(base),
		Ratio: ratio(float64(median(warm)), float64(median(base))), Note: fmt.Sprintf("baseline: a static Go binary printing hello; %d runs each, a new process per run", runs)})
	lsWarm, err := b.times(runs, "ls", "servers")
	if err != nil {
		return nil, err
	}
	rows = append(rows, speedRow{Group: group, What: "`mcpfs ls servers`, engine warm (target ≤ 20 ms)", Value: p50p99(lsWarm), Baseline: p50p99(base),
		Ratio: ratio(float64(median(lsWarm)), float64(median(base))), Note: "baseline: the hello binary"})
	stamp()
	if err := b.stop(); err != nil {
		return nil, err
	}

	// Cold, schemas cached, servers behind `sleep 5`.
	slow := filepath.Join(dir, "slow")
	os.Remove(slow)
	if err := b.useConfig("slow3", slowConfig(3, slow, func(int) string { return b.bin + " builtin docstore" })); err != nil {
		return nil, err
	}
	if _, _, err := b.run("export", filepath.Join(dir, "export3")); err != nil { // lists every server: the cache is filled
		return nil, err
	}
	if err := b.stop(); err != nil {
		return nil, err
	}
	if err := os.WriteFile(slow, nil, 0o644); err != nil {
		return nil, err
	}
	var coldRun, coldLs []time.Duration
	for range coldReps {
		d, _, err := b.run("run", hello)
		if err != nil {
			return nil, err
		}
		coldRun = append(coldRun, d)
		if err := b.stop(); err != nil {
			return nil, err
		}
		d, out, err := b.run("ls", "servers")
		if err != nil {
			return nil, err
		}
		if !strings.Contains(out, "6 tools") {
			return nil, fmt.Errorf("cold ls servers did not show the cached tools: %q", out)
		}
		coldLs = append(coldLs, d)
		if err := b.stop(); err != nil {
			return nil, err
		}
	}
	rows = append(rows,
		speedRow{Group: group, What: "`mcpfs run hello.go`, no engine running, schemas cached, 3 servers behind `sleep 5` (target ≤ 400 ms)", Value: p50p99(coldRun), Baseline: p50p99(base),
			Ratio: ratio(float64(median(coldRun)), float64(median(base))), Note: fmt.Sprintf("the engine's start included; %d runs", coldReps)},
		speedRow{Group: group, What: "`mcpfs ls servers`, no engine running, schemas cached, servers behind `sleep 5` (target ≤ 400 ms)", Value: p50p99(coldLs), Baseline: p50p99(base),
			Ratio: ratio(float64(median(coldLs)), float64(median(base))), Note: "every server shown with its cached tools while it starts"})
	stamp()

	// Mounts over many cached servers.
	if e.fuseWhy == "" && mounts {
		tmpl, err := json.Marshal(e.templates())
		if err != nil {
			return nil, err
		}
		tpath := filepath.Join(dir, "templates.json")
		if err := os.WriteFile(tpath, tmpl, 0o644); err != nil {
			return nil, err
		}
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		for _, size := range []struct{ servers, tools int }{{50, 20}, {100, 100}} {
			r, err := b.mountCached(ctx, slow, self, tpath, size.servers, size.tools)
			if err != nil {
				return nil, fmt.Errorf("mount %d × %d: %w", size.servers, size.tools, err)
			}
			rows = append(rows, r...)
			stamp()
		}
	}

	// Three AI clients at once.
	os.Remove(slow)
	if err := b.useConfig("shared", fmt.Sprintf(`{"mcpServers": {"docs": {"command": %q, "args": ["builtin", "docstore"]}, "more": {"command": %q, "args": ["builtin", "docstore"]}}}`, b.bin, b.bin)); err != nil {
		return nil, err
	}
	procs, err := b.threeClients()
	if err != nil {
		return nil, err
	}
	rows = append(rows, speedRow{Group: group, What: "three `mcpfs serve` clients over stdio at once, a config of 2 stdio servers", Value: fmt.Sprintf("%d server processes", procs), Baseline: "6 server processes",
		Note: "baseline: one mcpfs per client, each starting its own servers; the engine owns the cache, so every client has it"})
	stamp()
	return rows, nil
}

// mountCached measures `mcpfs mount` with servers × tools cached and every
// server behind `sleep 5`.
func (b *residentBench) mountCached(ctx context.Context, slow, self, templates string, servers, tools int) ([]speedRow, error) {
	const group = "Resident engine"
	os.Remove(slow)
	name := fmt.Sprintf("synth%dx%d", servers, tools)
	if err := b.useConfig(name, slowConfig(servers, slow, func(i int) string {
		return fmt.Sprintf("%s %s %s %d %d", self, synthServerArg, templates, tools, i)
	})); err != nil {
		return nil, err
	}
	export := filepath.Join(b.dir, "export-"+name)
	if _, _, err := b.run("--connect-timeout", "2m", "export", export); err != nil {
		return nil, err
	}
	var probes []string
	entries, err := os.ReadDir(filepath.Join(export, "servers"))
	if err != nil {
		return nil, err
	}
	for _, s := range entries {
		files, _ := os.ReadDir(filepath.Join(export, "servers", s.Name()))
		for _, f := range files {
			probes = append(probes, filepath.Join("servers", s.Name(), f.Name()))
		}
	}
	if err := b.stop(); err != nil {
		return nil, err
	}
	if err := os.WriteFile(slow, nil, 0o644); err != nil {
		return nil, err
	}
	mnt := filepath.Join(b.dir, "mnt-"+name)
	os.MkdirAll(mnt, 0o755)
	defer os.Remove(slow)
	// Each mount starts an engine of its own (the last one is stopped
	// first); the figures are medians, as one mount on a busy machine
	// says little. Every tool is found two ways, by turns: listed (each
	// server's folder read, as ls -R or find does) and stat'ed by path
	// (a lookup per file).
	var rows, heads []speedRow
	for _, walk := range []bool{true, false} {
		var listed, all, cpu []time.Duration
		for rep := range mountReps {
			l, a, c, more, err := b.mountOnce(mnt, servers, tools, probes, walk, !walk && rep == mountReps-1)
			if err != nil {
				return nil, err
			}
			listed, all, cpu = append(listed, l), append(all, a), append(cpu, c)
			rows = append(rows, more...)
		}
		what := fmt.Sprintf("`mcpfs mount` → every tool of %d × %d cached servers listed (`servers/` and each server's folder read, as `ls -R` does), servers behind `sleep 5`", servers, tools)
		how := fmt.Sprintf("%d files listed from this process", len(probes))
		if !walk {
			what = fmt.Sprintf("`mcpfs mount` → every tool file of %d × %d cached servers stat'ed by path, servers behind `sleep 5`", servers, tools)
			how = fmt.Sprintf("%d tool files stat'ed from this process, a lookup each", len(probes))
		}
		heads = append(heads, speedRow{Group: group, What: what,
			Value: micros(median(all)), Note: fmt.Sprintf("median of %d mounts (%s); `servers/` listed after %s (median; %s); from the command's start, engine start included; %s; the engine's CPU time by then %s (median; %s)",
				mountReps, durations(all), micros(median(listed)), durations(listed), how, micros(median(cpu)), durations(cpu))})
	}
	return append(heads, rows...), nil
}

// mountReps is how many times each cached mount is measured.
const mountReps = 3

// durations lists ds for a note.
func durations(ds []time.Duration) string {
	var out []string
	for _, d := range ds {
		out = append(out, micros(d))
	}
	return strings.Join(out, ", ")
}

// mountOnce runs `mcpfs mount mnt` with no engine running and measures
// when servers/ lists every server and when every probe is there: listed
// in its server's folder (walk) or stat'ed by path; with extra, the warm
// grep and the engine's RSS too (10,000 tools).
func (b *residentBench) mountOnce(mnt string, servers, tools int, probes []string, walk, extra bool) (listed, all, cpu time.Duration, rows []speedRow, err error) {
	const group = "Resident engine"
	t0 := time.Now()
	m := b.cmd("mount", mnt)
	var stderr strings.Builder
	m.Stderr = &stderr
	if err := m.Start(); err != nil {
		return 0, 0, 0, nil, err
	}
	// Interrupted: the mount command ends (its engine unmounts), and
	// whatever is left at the mount point is detached.
	unregister := onInterrupt(func() {
		m.Process.Signal(syscall.SIGINT)
		for end := time.Now().Add(10 * time.Second); mounted(mnt) && time.Now().Before(end); {
			time.Sleep(20 * time.Millisecond)
		}
		if mounted(mnt) {
			osexec.Command("umount", "-l", mnt).Run()
		}
	})
	defer func() {
		unregister()
		m.Process.Signal(syscall.SIGINT)
		m.Wait()
		b.stop()
	}()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if time.Now().After(deadline) {
			return 0, 0, 0, nil, fmt.Errorf("the mount did not show every server within 60 s: %s", lastLines(stderr.String(), 5))
		}
		if listed == 0 {
			if ents, err := os.ReadDir(filepath.Join(mnt, "servers")); err == nil && len(ents) >= servers {
				listed = time.Since(t0)
			}
		}
		ok := listed > 0
		if ok && walk {
			ok = everyFileListed(mnt, len(probes))
		}
		for _, p := range probes {
			if !ok || walk {
				break
			}
			if _, err := os.Stat(filepath.Join(mnt, p)); err != nil {
				ok = false
			}
		}
		if ok {
			break
		}
		time.Sleep(time.Millisecond)
	}
	all = time.Since(t0)
	// What the engine spent (every thread, since it started): the part of
	// the mount that other work on a busy machine does not change.
	pid, _, err := b.status()
	if err != nil {
		return 0, 0, 0, nil, err
	}
	if cpu, err = processCPU(pid); err != nil {
		return 0, 0, 0, nil, err
	}
	if extra && servers*tools >= 10000 {
		grep := func() (time.Duration, error) {
			t := time.Now()
			c := osexec.Command("grep", "-rl", "zzz-no-such-word", filepath.Join(mnt, "servers"))
			c.Dir = b.dir
			err := c.Run()
			var ee *osexec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() == 1 {
				err = nil // nothing found
			}
			return time.Since(t), err
		}
		if _, err := grep(); err != nil {
			return 0, 0, 0, nil, err
		}
		warm, err := grep()
		if err != nil {
			return 0, 0, 0, nil, err
		}
		_, rss, err := b.status()
		if err != nil {
			return 0, 0, 0, nil, err
		}
		rows = append(rows,
			speedRow{Group: group, What: "warm `grep -r` over the 10,000 tool files of the mount (target ≤ 1 s)", Value: micros(warm)},
			speedRow{Group: group, What: "engine RSS with the 10,000-tool mount read (target ≤ 150 MB)", Value: fmt.Sprintf("%.0f MB", float64(rss)/1e6)},
		)
	}
	return listed, all, cpu, rows, nil
}

// everyFileListed reads servers/ of the mount at mnt and each server's
// folder, and says whether they list want files in all.
func everyFileListed(mnt string, want int) bool {
	dir := filepath.Join(mnt, "servers")
	servers, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	n := 0
	for _, s := range servers {
		files, err := os.ReadDir(filepath.Join(dir, s.Name()))
		if err != nil {
			return false
		}
		n += len(files)
	}
	return n >= want
}

// processCPU returns the CPU time (user and system, every thread) that
// process pid has used, from /proc/<pid>/stat, in clock ticks of 10 ms.
func processCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which is in parentheses.
	i := strings.LastIndexByte(string(data), ')')
	f := strings.Fields(string(data)[i+1:])
	if i < 0 || len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q: unexpected form", pid, data)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q: unexpected form", pid, data)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// loadAverage returns the 1-minute load average ("?" when unknown).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// mounted reports whether something is mounted at dir.
func mounted(dir string) bool {
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[1] == dir {
			return true
		}
	}
	return false
}

// threeClients starts three `mcpfs serve` clients over stdio, initializes
// each, and counts the server processes the engine has then.
func (b *residentBench) threeClients() (int, error) {
	var cmds []*osexec.Cmd
	defer func() {
		for _, c := range cmds {
			c.Process.Signal(syscall.SIGINT)
			c.Wait()
		}
		b.stop()
	}()
	for i := range 3 {
		c := b.cmd("serve")
		in, _ := c.StdinPipe()
		out, _ := c.StdoutPipe()
		if err := c.Start(); err != nil {
			return 0, err
		}
		cmds = append(cmds, c)
		fmt.Fprintf(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c%d","version":"1"}}}`+"\n", i)
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || !strings.Contains(line, "serverInfo") {
			return 0, fmt.Errorf("serve client %d: %v %q", i, err, line)
		}
		go io.Copy(io.Discard, out)
	}
	pid, _, err := b.status()
	if err != nil {
		return 0, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		n := 0
		for _, l := range childCmdlines(pid) {
			if strings.Contains(l, "builtin docstore") {
				n++
			}
		}
		if n >= 2 || time.Now().After(deadline) {
			return n, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// childCmdlines returns the command lines of pid's child processes.
func childCmdlines(pid int) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(stat), ')')
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(pid) {
			continue
		}
		cl, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, strings.ReplaceAll(string(cl), "\x00", " "))
	}
	return out
}
