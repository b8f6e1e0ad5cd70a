package sandbox

import "strings"

// Names of the layers Apply and the worker's starter report.
const (
	LayerFDs      = "fds"      // no descriptors inherited by accident
	LayerRlimits  = "rlimits"  // memory, CPU, file and core limits
	LayerUser     = "user"     // not root, no capabilities
	LayerNetNS    = "netns"    // an empty network namespace (set up by the parent)
	LayerPIDNS    = "pidns"    // its own PID namespace and /proc: no other process is visible (made by the parent, finished by OwnProc)
	LayerIPCNS    = "ipcns"    // its own IPC namespace: no SysV IPC or POSIX queues of the host (set up by the parent)
	LayerUTSNS    = "utsns"    // its own UTS namespace: the host name is not the host's to change (set up by the parent)
	LayerLandlock = "landlock" // no file access; TCP/UDP and IPC scopes where the ABI has them
	LayerSeccomp  = "seccomp"  // the system call filter
)

// Nobody is the user and group a worker started by root drops to when the
// caller names none.
const Nobody = 65534

// Layer is one confinement mechanism and whether it is in force.
type Layer struct {
	Name   string `json:"name"`
	Active bool   `json:"active"`
	// Detail says what the layer covers when active, or why it is not.
	Detail string `json:"detail,omitempty"`
}

// String returns "name: detail" with "(off)" for an inactive layer.
func (l Layer) String() string {
	s := l.Name
	if !l.Active {
		s += " (off)"
	}
	if l.Detail != "" {
		s += ": " + l.Detail
	}
	return s
}

// Missing returns the names of the inactive layers, comma separated, or ""
// when every layer is active.
func Missing(layers []Layer) string {
	var out []string
	for _, l := range layers {
		if !l.Active {
			out = append(out, l.Name)
		}
	}
	return strings.Join(out, ", ")
}

// Limits are the resource limits Apply sets. Zero fields take the default.
type Limits struct {
	// Memory bounds the writable memory of the process (RLIMIT_DATA) in
	// bytes. Default 1 GiB.
	Memory int64
	// CPUSeconds bounds the CPU time of the process (RLIMIT_CPU): a backstop
	// behind the caller's wall-clock timeout. Default 600.
	CPUSeconds uint64
	// Files bounds the open file descriptors (RLIMIT_NOFILE). Default 32.
	Files uint64
}

// Defaults of Limits.
const (
	DefaultMemory     = 1 << 30
	DefaultCPUSeconds = 600
	DefaultFiles      = 32
)

func (l Limits) withDefaults() Limits {
	if l.Memory <= 0 {
		l.Memory = DefaultMemory
	}
	if l.CPUSeconds == 0 {
		l.CPUSeconds = DefaultCPUSeconds
	}
	if l.Files == 0 {
		l.Files = DefaultFiles
	}
	return l
}
