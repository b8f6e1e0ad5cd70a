package exec

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpfs/mcpfs/exec/sandbox"
)

// escape is a snippet that tries to leave the sandbox. The unrestricted
// ones bypass the checker and get the whole standard library, syscall and
// unsafe, to show that the process layers hold on their own.
type escape struct {
	name         string
	unrestricted bool
	imports      string
	body         string
	want         error  // the run's error; nil when the snippet reports the refusal itself
	wantOut      string // in stdout: the refusal the snippet printed
	notOut       string // never in stdout
}

func escapes(addr string) []escape {
	parent := strconv.Itoa(os.Getpid())
	return []escape{
		{name: "read /etc/passwd", unrestricted: true, imports: `"os"`,
			body: `b, err := os.ReadFile("/etc/passwd"); fmt.Println(len(b), err)`, wantOut: "permission denied", notOut: "root:"},
		{name: "read own binary", unrestricted: true, imports: `"os"`,
			body: `_, err := os.ReadFile("/proc/self/exe"); fmt.Println(err)`, wantOut: "permission denied"},
		{name: "write a file", unrestricted: true, imports: `"os"`,
			body: `err := os.WriteFile(os.TempDir()+"/mcpfs-escape", []byte("x"), 0o644); fmt.Println(err)`, wantOut: "permission denied"},
		{name: "list a directory", unrestricted: true, imports: `"os"`,
			body: `e, err := os.ReadDir("/"); fmt.Println(len(e), err)`, wantOut: "permission denied"},
		{name: "dial loopback", unrestricted: true, imports: `"net"`,
			body: `_, err := net.Dial("tcp", "` + addr + `"); fmt.Println(err)`, wantOut: "operation not permitted"},
		{name: "listen", unrestricted: true, imports: `"net"`,
			body: `_, err := net.Listen("tcp", "127.0.0.1:0"); fmt.Println(err)`, wantOut: "operation not permitted"},
		{name: "unix socket", unrestricted: true, imports: `"net"`,
			body: `_, err := net.Dial("unix", "/run/systemd/private"); fmt.Println(err)`, wantOut: "operation not permitted"},
		{name: "exec a program", unrestricted: true, imports: `"os/exec"`,
			body: `out, err := exec.Command("/bin/echo", "escaped").Output(); fmt.Println(string(out), err)`, wantOut: "permission denied", notOut: "escaped"},
		{name: "raw execve", unrestricted: true, imports: `"syscall"`,
			body: `err := syscall.Exec("/bin/echo", []string{"echo", "escaped"}, nil); fmt.Println(err)`, wantOut: "operation not permitted", notOut: "escaped"},
		{name: "signal the parent", unrestricted: true, imports: `"os"; "syscall"`,
			body: `fmt.Println(syscall.Kill(os.Getppid(), syscall.SIGKILL))`, wantOut: "operation not permitted"},
		{name: "signal every process", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.Kill(-1, syscall.SIGTERM))`, wantOut: "operation not permitted"},
		{name: "signal the parent by its pid", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.Kill(` + parent + `, syscall.SIGTERM))`, wantOut: "operation not permitted"},
		{name: "fork bomb", unrestricted: true, imports: `"syscall"`,
			body:    `for i := 0; i < 100; i++ { pid, _, e := syscall.RawSyscall(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0); if pid == 0 && e == 0 { syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0) }; if e != 0 { fmt.Println(e); return } }; fmt.Println("forked")`,
			wantOut: "operation not permitted", notOut: "forked"},
		{name: "ptrace the parent", unrestricted: true, imports: `"os"; "syscall"`,
			body: `fmt.Println(syscall.PtraceAttach(os.Getppid()))`, wantOut: "operation not permitted"},
		{name: "raise own limits", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 1 << 20, Max: 1 << 20}))`, wantOut: "operation not permitted"},
		{name: "new namespace", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.Unshare(syscall.CLONE_NEWNS | syscall.CLONE_NEWUSER))`, wantOut: "operation not permitted"},
		{name: "mount", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.Mount("proc", "/tmp", "proc", 0, ""))`, wantOut: "operation not permitted"},
		{name: "forge control messages", unrestricted: true, imports: `"os"`,
			body: `f := os.NewFile(3, "ctl"); f.Write([]byte{0xff, 0xff, 0xff, 0xff, '{'}); select {}`, want: ErrCrashed},
		{name: "exit early", unrestricted: true, imports: `"os"`,
			body: `fmt.Println("bye"); os.Exit(7)`, want: ErrCrashed, wantOut: "bye"},
		// Root's powers: the worker runs as another user with no
		// capabilities, and seccomp refuses metadata and cross-process
		// calls whoever it runs as.
		{name: "runs as root", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println("euid 0:", syscall.Geteuid() == 0, "egid 0:", syscall.Getegid() == 0)`, wantOut: "euid 0: false egid 0: false"},
		{name: "capabilities", unrestricted: true, imports: `"syscall"; "unsafe"`,
			body:    `hdr := [2]uint32{0x20080522, 0}; var d [6]uint32; _, _, e := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&d)), 0); fmt.Printf("caps %x %x %x %x %v\n", d[0], d[1], d[3], d[4], e)`,
			wantOut: "caps 0 0 0 0 errno 0"},
		{name: "chmod a root file", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.Chmod("/etc/passwd", 0o666))`, wantOut: "operation not permitted"},
		{name: "fchmod an open descriptor", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.Fchmod(1, 0o666))`, wantOut: "operation not permitted"},
		{name: "chown a root file", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.Chown("/etc/passwd", 65534, 65534))`, wantOut: "operation not permitted"},
		{name: "fchown an open descriptor", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.Fchown(1, 65534, 65534))`, wantOut: "operation not permitted"},
		{name: "setxattr", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.Setxattr("/etc/passwd", "user.mcpfs", []byte("x"), 0))`, wantOut: "operation not permitted"},
		{name: "utimes", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.UtimesNano("/etc/passwd", []syscall.Timespec{{}, {}}))`, wantOut: "operation not permitted"},
		{name: "futimes an open descriptor", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.Futimes(1, []syscall.Timeval{{}, {}}))`, wantOut: "operation not permitted"},
		{name: "sethostname", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.Sethostname([]byte("escaped")))`, wantOut: "operation not permitted"},
		{name: "setdomainname", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.Setdomainname([]byte("escaped")))`, wantOut: "operation not permitted"},
		{name: "SysV shared memory", unrestricted: true, imports: `"syscall"`,
			body:    `_, _, e1 := syscall.Syscall(syscall.SYS_SHMGET, 0, 4096, 0o1600); _, _, e2 := syscall.Syscall(syscall.SYS_SHMAT, 0, 0, 0); fmt.Println(e1, e2)`,
			wantOut: "operation not permitted operation not permitted"},
		{name: "SysV semaphores and queues", unrestricted: true, imports: `"syscall"`,
			body:    `_, _, e1 := syscall.Syscall(syscall.SYS_SEMGET, 0, 1, 0o1600); _, _, e2 := syscall.Syscall(syscall.SYS_MSGGET, 0, 0o1600, 0); fmt.Println(e1, e2)`,
			wantOut: "operation not permitted operation not permitted"},
		{name: "renice the parent", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.Setpriority(syscall.PRIO_PROCESS, ` + parent + `, 19))`, wantOut: "operation not permitted"},
		{name: "renice every process of the user", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.Setpriority(syscall.PRIO_USER, 0, 19))`, wantOut: "operation not permitted"},
		{name: "scheduler of the parent", unrestricted: true, imports: `"syscall"; "unsafe"`,
			body: `mask := uint64(1); _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, ` + parent + `, 8, uintptr(unsafe.Pointer(&mask))); fmt.Println(e)`, wantOut: "operation not permitted"},
		{name: "inotify", unrestricted: true, imports: `"syscall"`,
			body: `_, err := syscall.InotifyInit1(0); fmt.Println(err)`, wantOut: "operation not permitted"},
		{name: "fanotify", unrestricted: true, imports: `"syscall"`,
			body: `_, _, e := syscall.Syscall(syscall.SYS_FANOTIFY_INIT, 0, 0, 0); fmt.Println(e)`, wantOut: "operation not permitted"},
		// The allowlist: the checker refuses these; the worker refuses them
		// again when the checker is bypassed.
		{name: "os without unrestricted", imports: `"os"`,
			body: `os.ReadFile("/etc/passwd")`, want: ErrCompile},
		{name: "yaegi symbol table", imports: `"github.com/traefik/yaegi/stdlib"`,
			body: `_ = stdlib.Symbols`, want: ErrCompile},
		{name: "reflect", imports: `"reflect"`,
			body: `fmt.Println(reflect.TypeOf(1))`, want: ErrCompile},
		{name: "the bridge offers only Call", imports: `bridge "mcpfs/internal/bridge"`,
			body: `fmt.Println(bridge.conn)`, want: ErrCompile},
		{name: "unsafe", imports: `"unsafe"`,
			body: `var x int; fmt.Println(*(*int)(unsafe.Pointer(uintptr(unsafe.Pointer(&x)) + 1<<40)))`, want: ErrCompile},
	}
}

// TestEscapes runs the escape corpus: each attempt fails with a clear
// error within its limits, and the runner serves a normal run afterwards.
func TestEscapes(t *testing.T) {
	runEscapes(t, Options{Timeout: 5e9})
}

// TestEscapesAsNobody runs the corpus with the worker started as the user
// nobody, as mcpfs does when run by root with Options.User set.
func TestEscapesAsNobody(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to start workers as another user")
	}
	// nobody must be able to execute the worker: copy the test binary out
	// of the build's private directory.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "mcpfs-worker-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := dir; d != "/"; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o001 == 0 {
			t.Skipf("user nobody cannot reach %s: a private temp dir", d)
		}
	}
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	copyExe := filepath.Join(dir, "worker.test")
	if err := os.WriteFile(copyExe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	runEscapes(t, Options{Timeout: 5e9, User: &syscall.Credential{Uid: 65534, Gid: 65534}, Executable: copyExe})
}
func runEscapes(t *testing.T, opts Options) {
	e := newEngine(t)
	r := newRunner(t, opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("connected"))
			c.Close()
		}
	}()
	ctx := context.Background()
	for _, tt := range escapes(ln.Addr().String()) {
		t.Run(tt.name, func(t *testing.T) {
			imports := `"fmt"`
			for _, im := range strings.Split(tt.imports, ";") {
				imports += "\n\t" + strings.TrimSpace(im)
			}
			src := "package main\n\nimport (\n\t" + imports + "\n)\n\nvar _ = fmt.Sprint\n\nfunc main() {\n\t" + tt.body + "\n}\n"
			req := Request{Source: []byte(src), Tree: e.tree, Call: e.sup.CallTool, unrestricted: tt.unrestricted}
			res, err := r.Run(ctx, req)
			if res == nil {
				t.Fatalf("no result: %v", err)
			}
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("got error %v, want the snippet to report the refusal\nstderr: %.1000s", err, res.Stderr)
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Fatalf("got error %v, want %v\nstdout: %.500s\nstderr: %.1000s", err, tt.want, res.Stdout, res.Stderr)
			}
			out := string(res.Stdout)
			if !strings.Contains(out, tt.wantOut) {
				t.Errorf("stdout %.500q does not contain %q", out, tt.wantOut)
			}
			if tt.notOut != "" && strings.Contains(out, tt.notOut) {
				t.Errorf("stdout %.500q contains %q: the sandbox let it through", out, tt.notOut)
			}
			t.Logf("%q, %v", strings.TrimSpace(out), err)
		})
	}
	if _, err := os.Stat(os.TempDir() + "/mcpfs-escape"); err == nil {
		os.Remove(os.TempDir() + "/mcpfs-escape")
		t.Errorf("a snippet wrote %s", os.TempDir()+"/mcpfs-escape")
	}
	res, err := r.Run(ctx, e.request(t, "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"still serving\") }\n"))
	if err != nil {
		t.Fatalf("run after the corpus: %v", err)
	}
	if string(res.Stdout) != "still serving\n" {
		t.Fatalf("run after the corpus printed %q", res.Stdout)
	}
}

// TestInheritedDescriptors opens a file in the parent without
// close-on-exec, as a shell's `exec 7</etc/shadow` leaves one in mcpfs,
// and checks that the worker has no descriptor but its own: stdin, stdout,
// stderr, the control channel and the Go runtime's poller and cgroup files.
func TestInheritedDescriptors(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("the secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(secret, syscall.O_RDONLY, 0) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	// A runner made after the open: its workers are started with the
	// descriptor open in this process.
	r := newRunner(t, Options{Timeout: 5e9, PoolSize: -1})
	src := `package main

import (
	"fmt"
	"syscall"
)

func main() {
	buf := make([]byte, 64)
	for fd := 0; fd < 1024; fd++ {
		var st syscall.Stat_t
		if syscall.Fstat(fd, &st) != nil {
			continue
		}
		n, _ := syscall.Pread(fd, buf, 0)
		if n < 0 {
			n = 0
		}
		fmt.Printf("fd %d mode %o: %q\n", fd, st.Mode&syscall.S_IFMT, buf[:n])
	}
}
`
	res, err := r.Run(context.Background(), Request{Source: []byte(src), unrestricted: true})
	if err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, res.Stderr)
	}
	out := string(res.Stdout)
	t.Logf("the worker's descriptors:\n%s", out)
	for _, l := range res.Layers {
		t.Logf("layer %v", l)
	}
	if strings.Contains(out, "the secret") {
		t.Fatalf("the worker read the parent's descriptor %d:\n%s", fd, out)
	}
	// Beyond 0-3 only the runtime's own: its poller (anonymous inodes,
	// mode 0) and the cgroup CPU limits it rereads (a number or "max").
	own := regexp.MustCompile(`^fd \d+ mode 0: ""$|^fd \d+ mode 100000: "(-?\d+|max)( \d+)?\\n"$`)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var n int
		fmt.Sscanf(line, "fd %d", &n)
		if n > 3 && !own.MatchString(line) {
			t.Errorf("the worker has a descriptor it did not open on purpose: %s", line)
		}
	}
	for _, l := range res.Layers {
		if l.Name == sandbox.LayerFDs && (!l.Active || !strings.Contains(l.Detail, secret)) {
			t.Errorf("layer %v: want it active and naming the descriptor it closed", l)
		}
	}
}

// TestUnprivilegedParent runs the escape corpus, the descriptor test and
// the file routes again with mcpfs itself (this test binary) started as
// the user nobody: workers then run as nobody in a user namespace of their
// own where the kernel gives one, and every refusal must hold the same.
func TestUnprivilegedParent(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to start the tests as another user")
	}
	if os.Getenv("MCPFS_TEST_AS_NOBODY") != "" {
		t.Skip("already the unprivileged run")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "mcpfs-parent-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := dir; d != "/"; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o001 == 0 {
			t.Skipf("user nobody cannot reach %s: a private temp dir", d)
		}
	}
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	copyExe := filepath.Join(dir, "exec.test")
	if err := os.WriteFile(copyExe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chown(tmp, 65534, 65534)
	cmd := osexec.Command(copyExe, "-test.run", "^(TestEscapes|TestInheritedDescriptors|TestFileRoutes|TestPIDNamespace)$", "-test.v", "-test.count=1")
	cmd.Env = []string{"MCPFS_TEST_AS_NOBODY=1", "TMPDIR=" + tmp, "HOME=" + tmp, "PATH=/usr/bin:/bin"}
	cmd.Dir = tmp
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the tests as nobody failed: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "--- ") && !strings.Contains(line, "/") || strings.Contains(l, ": layer ") {
			t.Log(strings.TrimSpace(line))
		}
	}
	if !strings.Contains(string(out), "--- PASS: TestEscapes") {
		t.Fatalf("the corpus did not run as nobody:\n%s", out)
	}
}
