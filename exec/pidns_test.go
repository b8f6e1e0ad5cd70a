package exec

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpfs/mcpfs/exec/sandbox"
)

// TestPIDNamespace: a snippet cannot see or signal the process that runs
// it (the engine), with the whole sandbox and with Landlock and seccomp
// left out, so that the PID namespace alone must hold. It runs in the
// build under test; test.sh runs it again with CGO_ENABLED=0, since a cgo
// build (libpsx) and a pure Go one reach the namespace differently.
func TestPIDNamespace(t *testing.T) {
	parent := strconv.Itoa(os.Getpid())
	src := `package main

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

func main() {
	fmt.Println("pid", os.Getpid(), "ppid", os.Getppid())
	fmt.Println("signal the engine:", syscall.Kill(` + parent + `, syscall.SIGCONT))
	_, err := os.Stat("/proc/` + parent + `")
	fmt.Println("see the engine:", err)
	entries, err := os.ReadDir("/proc")
	var pids []string
	for _, e := range entries {
		if n := e.Name(); n[0] >= '0' && n[0] <= '9' {
			pids = append(pids, n)
		}
	}
	fmt.Println("processes:", strings.Join(pids, " "), err)
}
`
	t.Logf("this build: cgo %v (Landlock through libpsx: %v)", sandbox.PSX, sandbox.PSX)
	for _, skip := range [][]string{nil, {sandbox.LayerLandlock, sandbox.LayerSeccomp}} {
		name := "whole sandbox"
		if skip != nil {
			name = "namespace alone"
		}
		t.Run(name, func(t *testing.T) {
			r := newRunner(t, Options{Timeout: 10e9, PoolSize: -1})
			r.cfg.Skip = skip
			res, err := r.Run(context.Background(), Request{Source: []byte(src), unrestricted: true})
			if err != nil {
				t.Fatalf("run: %v\nstderr: %s", err, res.Stderr)
			}
			var pidns *sandbox.Layer
			for i, l := range res.Layers {
				if l.Name == sandbox.LayerPIDNS {
					pidns = &res.Layers[i]
				}
			}
			if pidns == nil || !pidns.Active {
				if os.Geteuid() != 0 {
					t.Skipf("no PID namespace for uid %d here: %v", os.Geteuid(), pidns)
				}
				t.Fatalf("pidns layer %v, want it active (root can make namespaces)", pidns)
			}
			t.Logf("layer %v", *pidns)
			out := string(res.Stdout)
			t.Logf("the snippet printed:\n%s", out)
			if !strings.Contains(out, "pid 1 ppid 0\n") {
				t.Errorf("want the worker to be pid 1 with no parent in view")
			}
			wantSignal := "signal the engine: no such process"
			if skip == nil {
				wantSignal = "signal the engine: operation not permitted" // seccomp first
			}
			if !strings.Contains(out, wantSignal+"\n") {
				t.Errorf("want %q", wantSignal)
			}
			if os.Geteuid() != 0 {
				// Not root in its user namespace, the worker cannot mount a
				// /proc of its own (see noPIDNSForUsers): the host's stays.
				t.Logf("started by uid %d: the host's /proc stays in view; only signals are checked", os.Geteuid())
				return
			}
			if !strings.Contains(out, "see the engine: stat /proc/"+parent+": ") || strings.Contains(out, "see the engine: <nil>") {
				t.Errorf("want /proc/%s out of reach", parent)
			}
			if skip != nil && !strings.Contains(out, "processes: 1 <nil>\n") {
				t.Errorf("want /proc to list the worker alone")
			}
		})
	}
}
