package exec

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
		{name: "signal init", unrestricted: true, imports: `"syscall"`,
			body: `fmt.Println(syscall.Kill(1, syscall.SIGTERM))`, wantOut: "operation not permitted"},
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
