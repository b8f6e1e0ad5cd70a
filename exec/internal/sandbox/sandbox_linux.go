package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Apply confines the calling process, in this order: resource limits,
// the switch from root to uid and gid (see DropPrivileges), Landlock,
// seccomp. Each step is best effort; the result says which took hold. It
// must run before any untrusted code and after everything that needs files
// (time zone data, /proc) has been read; call CloseInherited before it.
//
// Layers named in skip are left out and reported off: the tests of the
// layers below one use it (a kernel without Landlock).
func Apply(lim Limits, uid, gid int, skip ...string) []Layer {
	lim = lim.withDefaults()
	steps := []struct {
		name  string
		apply func() Layer
	}{
		{LayerRlimits, func() Layer { return applyRlimits(lim) }},
		{LayerUser, func() Layer { return DropPrivileges(uid, gid) }},
		{LayerLandlock, applyLandlock},
		{LayerSeccomp, applySeccomp},
	}
	var layers []Layer
	for _, st := range steps {
		if slices.Contains(skip, st.name) {
			layers = append(layers, Layer{Name: st.name, Detail: "left out on request"})
			continue
		}
		layers = append(layers, st.apply())
	}
	return layers
}

// asSlack is the address space the Go runtime reserves beyond the heap:
// arenas, thread stacks and the binary itself. Below about 2 GiB of
// RLIMIT_AS the Go runtime stops starting at all.
const asSlack = 3 << 30

func applyRlimits(lim Limits) Layer {
	// Make the garbage collector work hard before the hard limit is hit, so
	// a snippet near its limit slows down instead of dying early.
	debug.SetMemoryLimit(lim.Memory - lim.Memory/8)
	as := uint64(vmSize()) + uint64(lim.Memory) + asSlack
	limits := []struct {
		name     string
		resource int
		value    uint64
	}{
		{"RLIMIT_DATA", unix.RLIMIT_DATA, uint64(lim.Memory)},
		{"RLIMIT_AS", unix.RLIMIT_AS, as},
		{"RLIMIT_CPU", unix.RLIMIT_CPU, lim.CPUSeconds},
		{"RLIMIT_NOFILE", unix.RLIMIT_NOFILE, lim.Files},
		{"RLIMIT_FSIZE", unix.RLIMIT_FSIZE, 0},
		{"RLIMIT_CORE", unix.RLIMIT_CORE, 0},
		{"RLIMIT_MEMLOCK", unix.RLIMIT_MEMLOCK, 0},
		{"RLIMIT_MSGQUEUE", unix.RLIMIT_MSGQUEUE, 0},
	}
	var failed []string
	for _, l := range limits {
		rl := unix.Rlimit{Cur: l.value, Max: l.value}
		if err := unix.Setrlimit(l.resource, &rl); err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", l.name, err))
		}
	}
	if len(failed) > 0 {
		return Layer{Name: LayerRlimits, Detail: "setrlimit failed: " + strings.Join(failed, "; ")}
	}
	return Layer{Name: LayerRlimits, Active: true, Detail: fmt.Sprintf("memory %d MiB, CPU %d s, %d files, no file writes or core dumps",
		lim.Memory>>20, lim.CPUSeconds, lim.Files)}
}

// vmSize returns the process's current virtual memory size in bytes, or 0.
func vmSize() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmSize:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

func applyLandlock() Layer {
	abi, err := llsyscall.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		if err == nil {
			err = errors.New("ABI version 0")
		}
		return Layer{Name: LayerLandlock, Detail: fmt.Sprintf("not available in this kernel (%v): enable CONFIG_SECURITY_LANDLOCK and lsm=landlock", err)}
	}
	// No rules: every file access right the ABI knows is denied, and so are
	// TCP (ABI 4) and UDP (ABI 10) bind/connect; ABI 6 scopes signals and
	// abstract unix sockets to this process.
	if err := landlock.V11.BestEffort().Restrict(); err != nil {
		return Layer{Name: LayerLandlock, Detail: fmt.Sprintf("restrict: %v", err)}
	}
	covers := []string{"no file access"}
	if abi >= 4 {
		covers = append(covers, "no TCP bind/connect")
	}
	if abi >= 6 {
		covers = append(covers, "signals and abstract unix sockets scoped to the worker")
	} else {
		covers = append(covers, "signals not scoped (ABI < 6; seccomp covers kill)")
	}
	return Layer{Name: LayerLandlock, Active: true, Detail: fmt.Sprintf("ABI %d: %s", abi, strings.Join(covers, ", "))}
}

// denied are system calls a snippet never needs and the Go runtime does
// not make once running. They fail with EPERM.
var denied = []string{
	// running programs and new processes (threads are allowed below)
	"execve", "execveat", "fork", "vfork",
	// other processes' memory and state
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_open", "pidfd_getfd", "pidfd_send_signal",
	// signals to another thread id (Go uses tgkill to its own process)
	"tkill",
	// sockets: the worker talks to its parent over inherited descriptors only
	"socket", "socketpair",
	// file systems, namespaces and privileges
	"mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "open_by_handle_at", "name_to_handle_at",
	"fsopen", "fsmount", "fsconfig", "move_mount", "open_tree", "mount_setattr",
	"setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups", "setfsuid", "setfsgid", "capset",
	// kernel interfaces with a history of escapes
	"bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
	"keyctl", "add_key", "request_key", "personality", "kexec_load", "kexec_file_load",
	"init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff", "acct",
	"quotactl", "syslog", "iopl", "ioperm", "lookup_dcookie", "vhangup", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	// raising its own limits back
	"setrlimit",
	// file metadata: modes, owners, extended attributes, times (Landlock
	// does not cover all of them on every ABI)
	"chmod", "fchmod", "fchmodat", "fchmodat2",
	"chown", "fchown", "lchown", "fchownat",
	"setxattr", "lsetxattr", "fsetxattr", "setxattrat",
	"removexattr", "lremovexattr", "fremovexattr", "removexattrat",
	"getxattr", "lgetxattr", "fgetxattr", "getxattrat",
	"listxattr", "llistxattr", "flistxattr", "listxattrat",
	"utime", "utimes", "utimensat", "futimesat",
	// the host's identity
	"sethostname", "setdomainname",
	// SysV IPC and POSIX message queues: memory and queues of other processes
	"shmget", "shmat", "shmdt", "shmctl",
	"semget", "semop", "semtimedop", "semctl",
	"msgget", "msgsnd", "msgrcv", "msgctl",
	"mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
	// watching other files and file systems
	"inotify_init", "inotify_init1", "inotify_add_watch", "inotify_rm_watch",
	"fanotify_init", "fanotify_mark",
	// priorities and memory placement (of others or its own: never needed)
	"setpriority", "ioprio_set", "migrate_pages", "move_pages", "set_mempolicy_home_node",
}

// fileCalls open, create, rename and remove files by path. Landlock
// denies them too; the filter makes them fail on a kernel without
// Landlock as well, whatever route a snippet finds to a function that
// reads files (text/template calling methods of its data, an interface).
// Nothing in the worker opens a file once it is confined: the interpreter
// reads sources from memory, time zones are loaded before. They fail with
// EACCES, as Landlock's denials do.
var fileCalls = []string{
	"open", "openat", "openat2", "creat",
	"mkdir", "mkdirat", "mknod", "mknodat", "rmdir",
	"link", "linkat", "symlink", "symlinkat", "unlink", "unlinkat",
	"rename", "renameat", "renameat2", "truncate",
}

func applySeccomp() Layer {
	info, err := arch.GetInfo("")
	if err != nil {
		return Layer{Name: LayerSeccomp, Detail: err.Error()}
	}
	if !seccomp.Supported() {
		return Layer{Name: LayerSeccomp, Detail: "seccomp filters are not supported by this kernel"}
	}
	known := func(list []string) []string {
		var names []string
		for _, n := range list {
			if _, ok := info.SyscallNames[n]; ok { // fork and friends do not exist on every arch
				names = append(names, n)
			}
		}
		return names
	}
	names := known(denied)
	pid := uint64(os.Getpid())
	cond := func(name string, c ...seccomp.Condition) seccomp.NameWithConditions {
		return seccomp.NameWithConditions{Name: name, Conditions: c}
	}
	notSelf := seccomp.Condition{Argument: 0, Operation: seccomp.NotEqual, Value: pid}
	notCaller := seccomp.Condition{Argument: 0, Operation: seccomp.NotEqual, Value: 0}
	groups := []seccomp.SyscallGroup{
		{Action: seccomp.ActionErrno, Names: names},
		{Action: seccomp.ActionErrno | seccomp.Action(unix.EACCES), Names: known(fileCalls)},
		{Action: seccomp.ActionErrno, NamesWithCondtions: []seccomp.NameWithConditions{
			// new processes: clone without CLONE_THREAD (threads stay allowed)
			cond("clone", seccomp.Condition{Argument: 0, Operation: seccomp.BitsNotSet, Value: unix.CLONE_THREAD}),
			// signals to any process but this one
			cond("kill", notSelf),
			cond("tgkill", notSelf),
			cond("rt_sigqueueinfo", notSelf),
			cond("rt_tgsigqueueinfo", notSelf),
			// prlimit64 that sets a limit (reading one is fine)
			cond("prlimit64", seccomp.Condition{Argument: 2, Operation: seccomp.NotEqual, Value: 0}),
			// scheduler settings of any thread but the calling one (pid 0)
			cond("sched_setscheduler", notCaller),
			cond("sched_setparam", notCaller),
			cond("sched_setaffinity", notCaller),
			cond("sched_setattr", notCaller),
		}},
	}
	if _, ok := info.SyscallNames["clone3"]; ok {
		// ENOSYS makes a C library fall back to clone, which the rule above checks.
		groups = append(groups, seccomp.SyscallGroup{Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS), Names: []string{"clone3"}})
	}
	filter := seccomp.Filter{
		NoNewPrivs: true,
		Flag:       seccomp.FilterFlagTSync,
		Policy:     seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: groups},
	}
	if err := seccomp.LoadFilter(filter); err != nil {
		return Layer{Name: LayerSeccomp, Detail: err.Error()}
	}
	return Layer{Name: LayerSeccomp, Active: true, Detail: "no file opens or path changes, no exec, fork, ptrace, sockets, mounts, namespaces, bpf, io_uring, signals to other processes, raised limits, " +
		"chmod/chown/xattr/utime, sethostname, SysV IPC, inotify/fanotify, setpriority or scheduler calls on other threads"}
}
