package main

import (
	"bytes"
	"context"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMountRun runs `mcpfs mount DIR` with the built-in docstore and runs
// programs the way an agent without a shell would: by writing
// run/<job>.go and reading run/<job>.out. One calls a docstore tool; one
// does not type-check and shows where.
func TestMountRun(t *testing.T) {
	if f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0); err != nil {
		t.Skipf("mount test skipped: /dev/fuse is not usable: %v", err)
	} else {
		f.Close()
	}
	if os.Geteuid() != 0 {
		if _, err := osexec.LookPath("fusermount3"); err != nil {
			t.Skip("mount test skipped: not root and no fusermount3 (apt-get install fuse3)")
		}
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("MCPFS_CONFIG", "")
	t.Setenv("MCP_SERVERS_CONFIG", "")
	t.Chdir(home)
	data := filepath.Join(home, "data")

	dir := t.TempDir()
	var stdout, stderr syncBuffer
	g := &globals{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
	root := newRoot(g)
	root.SetArgs([]string{"--data-dir", data, "mount", dir})
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("mount returned %v after interrupt", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("mount did not return within 20s of the interrupt")
		}
	}
	defer stop()
	waitMounted(t, &stderr, done)

	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "servers", "docstore", "list_documents.go")); err == nil {
			break
		}
		select {
		case err := <-done:
			stopped = true
			t.Fatalf("mount ended early: %v\nstderr:\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("servers/docstore did not appear within 20s\nstderr:\n%s", stderr.String())
		}
	}

	tests := []struct {
		job        string
		src        string
		wantOut    []string // in this order
		wantStatus []string
	}{
		{
			job: "count", src: socketSnippet,
			wantOut:    []string{"5 documents\nexit status 0\n"},
			wantStatus: []string{"done in ", "1 tool call, exit status 0"},
		},
		{
			job: "typo", src: strings.Replace(socketSnippet, "ListDocuments(", "ListDocument(", 1),
			wantOut: []string{
				"typo.go:10:24: ", "ListDocument",
				"mcpfs: typo.go did not pass the check (1 problem): fix it and run again\n",
				"exit status 1\n",
			},
			wantStatus: []string{"failed in ", "exit status 1: typo.go did not pass the check"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.job, func(t *testing.T) {
			// Written with shell redirection; the shell's working
			// directory is not inside the mount.
			write := osexec.Command("/bin/sh", "-c", `cat > "$0"`, filepath.Join(dir, "run", tt.job+".go"))
			write.Stdin = strings.NewReader(tt.src)
			if out, err := write.CombinedOutput(); err != nil {
				t.Fatalf("write run/%s.go: %v: %s\nstderr:\n%s", tt.job, err, out, stderr.String())
			}
			// cat waits for the job to end.
			out, err := osexec.Command("cat", filepath.Join(dir, "run", tt.job+".out")).Output()
			if err != nil {
				t.Fatalf("cat run/%s.out: %v\nstderr:\n%s", tt.job, err, stderr.String())
			}
			rest := string(out)
			for _, want := range tt.wantOut {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("run/%s.out lacks %q (in order):\n%s", tt.job, want, out)
				}
				rest = rest[i+len(want):]
			}
			if !bytes.HasSuffix(out, []byte(tt.wantOut[len(tt.wantOut)-1])) {
				t.Errorf("run/%s.out does not end with %q:\n%s", tt.job, tt.wantOut[len(tt.wantOut)-1], out)
			}
			status, err := os.ReadFile(filepath.Join(dir, "run", tt.job+".status"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.wantStatus {
				if !strings.Contains(string(status), want) {
					t.Errorf("run/%s.status = %q, want it to contain %q", tt.job, status, want)
				}
			}
		})
	}

	stop()
	mountinfo, _ := os.ReadFile("/proc/self/mountinfo")
	if bytes.Contains(mountinfo, []byte(" "+dir+" ")) {
		t.Errorf("%s is still mounted after the command returned", dir)
	}
}
