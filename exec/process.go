package exec

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcpfs/mcpfs/exec/internal/sandbox"
	"github.com/mcpfs/mcpfs/exec/worker"
)

// proc is one started worker process, sandboxed and waiting for its job.
type proc struct {
	cmd    *osexec.Cmd
	ctl    *os.File
	conn   *worker.Conn
	stdout *os.File // read ends of the worker's fd 1 and 2
	stderr *os.File
	layers []sandbox.Layer

	mu     sync.Mutex // guards reaped against kill
	reaped bool
	exited chan struct{} // closed once the process is gone
	state  *os.ProcessState
}

// netnsState remembers whether new namespaces (network, IPC, UTS) can be
// made here: 0 unknown, 1 yes, 2 no; netnsErr says why not. pidnsState
// and pidnsErr do the same for the PID namespace (with the mount
// namespace that gives it its own /proc), which a kernel or a build may
// refuse apart.
var (
	netnsState atomic.Int32
	netnsErr   atomic.Value // string
	pidnsState atomic.Int32
	pidnsErr   atomic.Value // string
)

// readyTimeout bounds a worker's start-up: exec, runtime start, sandbox.
const readyTimeout = 15 * time.Second

// startProc starts a worker and waits until it reports ready. It tries
// the most confinement first and remembers what the system refused: new
// network, IPC, UTS, PID and mount namespaces; without the PID and mount
// ones; without any.
func (r *Runner) startProc() (*proc, error) {
	if os.Geteuid() != 0 && sandbox.PSX && pidnsState.Load() == 0 {
		refusePIDNS(noPIDNSForUsers)
	}
	useNetNS := netnsState.Load() != 2
	usePIDNS := useNetNS && pidnsState.Load() != 2
	p, err := r.spawn(useNetNS, usePIDNS)
	if err != nil && usePIDNS && pidnsState.Load() == 0 {
		if p2, err2 := r.spawn(useNetNS, false); err2 == nil {
			refusePIDNS(err.Error())
			p, err, usePIDNS = p2, nil, false
		}
	}
	if err != nil && useNetNS && netnsState.Load() == 0 {
		// Unprivileged users often cannot make namespaces (AppArmor,
		// sysctls): start without one and remember.
		if p2, err2 := r.spawn(false, false); err2 == nil {
			netnsState.Store(2)
			netnsErr.Store(err.Error())
			p, err, usePIDNS = p2, nil, false
		}
	} else if err == nil && useNetNS {
		netnsState.CompareAndSwap(0, 1)
	}
	if err != nil {
		return nil, err
	}
	if err := p.awaitReady(); err != nil {
		p.kill()
		p.wait()
		p.close()
		if usePIDNS && p.state != nil && p.state.ExitCode() == worker.ExitNoProc {
			// A cgo build that cannot have a /proc of its own there.
			refusePIDNS(strings.TrimPrefix(err.Error(), "start snippet worker: "))
			return r.startProc()
		}
		return nil, err
	}
	if usePIDNS {
		pidnsState.CompareAndSwap(0, 1)
	}
	p.layers = append(p.layers, r.nsLayers(useNetNS && netnsState.Load() != 2, usePIDNS)...)
	return p, nil
}

// noPIDNSForUsers is why a cgo build run by another user than root gives
// its workers no PID namespace. Such a worker is not root in its user
// namespace (it maps the user to itself), so it keeps no capability over
// its mount namespace once it runs and cannot mount the /proc that
// libpsx needs there; a pure Go build needs none (see OwnProc).
const noPIDNSForUsers = "a build with cgo run by a user other than root: its worker cannot mount the /proc that go-landlock's libpsx needs in a PID namespace; build with CGO_ENABLED=0 to have one"

// refusePIDNS remembers that workers get no PID namespace here, and why.
func refusePIDNS(why string) {
	pidnsErr.Store(why)
	pidnsState.Store(2)
}

// nsLayers reports the namespaces spawn made for a worker. The PID
// namespace, when the worker was to mount its own /proc in it, the worker
// reports itself (sandbox.OwnProc finishes it).
func (r *Runner) nsLayers(netns, pidns bool) []sandbox.Layer {
	if netns {
		layers := []sandbox.Layer{{Name: sandbox.LayerNetNS, Active: true, Detail: "an empty network namespace: no interfaces, not even loopback"}}
		switch {
		case pidns && !ownProc():
			layers = append(layers, sandbox.Layer{Name: sandbox.LayerPIDNS, Active: true, Detail: "its own PID namespace: the worker is pid 1 and signals no other process (the host's /proc stays mounted: a worker started by a user other than root cannot mount its own; Landlock and seccomp's file rules keep it closed)"})
		case !pidns && pidnsErr.Load() == noPIDNSForUsers:
			// What such a build can never have is not listed as missing
			// (doctor and --sandbox=strict judge what it can have); the
			// netns layer says why.
			layers[0].Detail += "; no PID namespace (" + noPIDNSForUsers + ")"
		case !pidns:
			why, _ := pidnsErr.Load().(string)
			layers = append(layers, sandbox.Layer{Name: sandbox.LayerPIDNS, Detail: "no PID namespace (" + cmp.Or(why, "unavailable") + "); seccomp denies signals, ptrace and scheduler calls on other processes"})
		}
		return append(layers,
			sandbox.Layer{Name: sandbox.LayerIPCNS, Active: true, Detail: "its own IPC namespace: no SysV shared memory, semaphores or queues of the host"},
			sandbox.Layer{Name: sandbox.LayerUTSNS, Active: true, Detail: "its own UTS namespace: a host name change stays inside it"})
	}
	why, _ := netnsErr.Load().(string)
	why = cmp.Or(why, "unavailable")
	return []sandbox.Layer{
		{Name: sandbox.LayerNetNS, Detail: "no network namespace (" + why + "); seccomp denies sockets instead"},
		{Name: sandbox.LayerPIDNS, Detail: "no PID namespace (" + why + "); seccomp denies signals, ptrace and scheduler calls on other processes"},
		{Name: sandbox.LayerIPCNS, Detail: "no IPC namespace (" + why + "); seccomp denies SysV IPC and POSIX queues"},
		{Name: sandbox.LayerUTSNS, Detail: "no UTS namespace (" + why + "); seccomp denies sethostname and setdomainname"},
	}
}

// ownProc says whether a worker in a PID namespace can mount a /proc of
// its own there: only when started by root (see noPIDNSForUsers).
func ownProc() bool { return os.Geteuid() == 0 }

// spawn starts a worker process, in new network, IPC and UTS namespaces
// with netns, and as pid 1 of new PID and mount namespaces with pidns.
func (r *Runner) spawn(netns, pidns bool) (*proc, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("start snippet worker: socketpair: %w", err)
	}
	// The parent's end is non-blocking, so that its reads go through the
	// runtime's poller (the worker's end stays blocking until the worker
	// sets it: the two ends are separate file descriptions).
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, fmt.Errorf("start snippet worker: control channel: %w", err)
	}
	parentEnd, childEnd := os.NewFile(uintptr(fds[0]), "control"), os.NewFile(uintptr(fds[1]), "control")
	outR, outW, err := os.Pipe()
	if err != nil {
		parentEnd.Close()
		childEnd.Close()
		return nil, fmt.Errorf("start snippet worker: pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		parentEnd.Close()
		childEnd.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("start snippet worker: pipe: %w", err)
	}
	cfg := r.cfg
	cfg.OwnProc = pidns && ownProc()
	cmd := osexec.Command(r.exe, worker.Args(cfg)...)
	// GOGC=off: the worker's start (package initialisation, the
	// interpreter's standard library) allocates a few MiB that all live
	// on; collecting during it is wasted work. The worker turns the
	// collector on before it runs the job (worker.Main).
	cmd.Env = []string{worker.EnvMarker + "=1", "GOGC=off"}
	cmd.Dir = "/"
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.ExtraFiles = []*os.File{childEnd} // fd 3
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if netns {
		attr.Cloneflags = syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS
		if pidns {
			// Born as pid 1 of its own PID namespace; the mount namespace
			// lets it mount that namespace's /proc (sandbox.OwnProc).
			attr.Cloneflags |= syscall.CLONE_NEWPID
			if cfg.OwnProc {
				attr.Cloneflags |= syscall.CLONE_NEWNS
			}
		}
		if os.Geteuid() != 0 {
			// An unprivileged user needs a user namespace to own the new
			// namespaces; map the user to itself.
			attr.Cloneflags |= syscall.CLONE_NEWUSER
			attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
			attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
			attr.GidMappingsEnableSetgroups = false
		}
	}
	cmd.SysProcAttr = attr
	err = cmd.Start()
	childEnd.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		parentEnd.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("start snippet worker %s: %w", r.exe, err)
	}
	p := &proc{cmd: cmd, ctl: parentEnd, conn: worker.NewConn(parentEnd, parentEnd), stdout: outR, stderr: errR, exited: make(chan struct{})}
	go p.reap()
	return p, nil
}

// reap waits for the process to exit without reaping it, marks it so kill
// stops signalling its group (whose id could be reused), then reaps it.
func (p *proc) reap() {
	pid := p.cmd.Process.Pid
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == nil || !errors.Is(err, unix.EINTR) {
			break
		}
	}
	p.mu.Lock()
	p.reaped = true
	p.mu.Unlock()
	p.cmd.Wait() // the exit status is in p.cmd.ProcessState
	p.state = p.cmd.ProcessState
	close(p.exited)
}

// kill ends the worker's whole process group.
func (p *proc) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped {
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// wait waits for the process to be gone.
func (p *proc) wait() { <-p.exited }

// close releases the parent's ends of the channels.
func (p *proc) close() {
	p.ctl.Close()
	p.stdout.Close()
	p.stderr.Close()
}

func (p *proc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// awaitReady reads the worker's ready message.
func (p *proc) awaitReady() error {
	type ready struct {
		m   *worker.Message
		err error
	}
	ch := make(chan ready, 1)
	go func() {
		m, err := p.conn.Read()
		ch <- ready{m, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			p.kill()
			p.wait()
			return fmt.Errorf("start snippet worker: it exited before it was ready (%v): %s", p.state, firstLine(drain(p.stderr)))
		}
		if r.m.Type != worker.TypeReady {
			return fmt.Errorf("start snippet worker: got %q, want %q", r.m.Type, worker.TypeReady)
		}
		p.layers = r.m.Layers
		return nil
	case <-time.After(readyTimeout):
		p.kill()
		<-ch
		return fmt.Errorf("start snippet worker: not ready after %v", readyTimeout)
	}
}

// drain reads what is left on f, up to 64 KiB, once the writer is gone.
func drain(f *os.File) string {
	buf := make([]byte, 64<<10)
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		if err != nil {
			break
		}
	}
	return string(buf[:n])
}
