package discovery

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestStdioProtocols(t *testing.T) {
	noLeaks(t)
	cases := []struct {
		name, modes, wantProto string
	}{
		{"legacy", "", "2025-11-25"},
		{"v20250618", "proto=2025-06-18", "2025-06-18"},
		{"modern", "proto=2026-07-28", "2026-07-28"},
		{"ignoresdiscover", "ignore-discover", "2025-11-25"},
		{"garbage", "garbage", "2025-11-25"},
		{"paged", "page=3,tools=10", "2025-11-25"},
	}
	var servers []ServerConfig
	for _, tc := range cases {
		servers = append(servers, faultServer(tc.name, tc.modes))
	}
	s, h := startSupervisor(t, Options{}, servers...)
	c := settle(t, s)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ss := mustServer(t, c, tc.name, StateReady)
			if ss.ProtocolVersion != tc.wantProto {
				t.Errorf("protocol: got %s, want %s", ss.ProtocolVersion, tc.wantProto)
			}
			want := 4
			if tc.name == "paged" {
				want = 10
			}
			if len(ss.Tools) != want || ss.ToolsTruncated {
				t.Errorf("tools: got %v (truncated %v), want %d", toolNames(ss), ss.ToolsTruncated, want)
			}
			if ss.ServerName != "faultserver" {
				t.Errorf("server name: got %q, want faultserver", ss.ServerName)
			}
			res, err := s.CallTool(context.Background(), tc.name, "echo", []byte(`{"text":"x"}`))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(res), `"structuredContent":{"echo":{"text":"x"}}`) {
				t.Errorf("echo: got %s", res)
			}
		})
	}
	// Connect times are in the log ("server ready ... elapsed="); the
	// server ignoring server/discover costs discoverTimeout, no more.
	if !h.has("server ready", "server=ignoresdiscover") {
		t.Error("no ready line logged for ignoresdiscover")
	}
}

func TestStdioFailures(t *testing.T) {
	noLeaks(t)
	hang := faultServer("hang", "hang-initialize")
	hang.Timeout = 500 * time.Millisecond
	cases := []struct {
		cfg    ServerConfig
		errHas []string
	}{
		{ServerConfig{Name: "missing", Transport: "stdio", Command: "nosuchcmd"},
			[]string{`start "missing": exec: "nosuchcmd": executable file not found in $PATH`}},
		{ServerConfig{Name: "badcwd", Transport: "stdio", Command: "true", Cwd: "/nonexistent/dir"},
			[]string{`start "badcwd"`, "working directory (cwd)", "/nonexistent/dir"}},
		{hang, []string{`initialize "hang"`, "no answer within 500ms", "timeout"}},
		{faultServer("exits", "exit"), []string{`"exits"`, "server process exited (exit status 3)", "last stderr: fatal: cannot open the database"}},
		{faultServer("huge", "huge-line=2000000"), []string{`list tools "huge"`, "more than 1048576 bytes"}},
		{faultServer("closesout", "close-stdout"), []string{`"closesout"`, "closed its stdout"}},
	}
	servers := []ServerConfig{faultServer("good", "")}
	for _, tc := range cases {
		servers = append(servers, tc.cfg)
	}
	s, h := startSupervisor(t, Options{MaxMessageBytes: 1 << 20}, servers...)
	c := settle(t, s)
	mustServer(t, c, "good", StateReady)
	for _, tc := range cases {
		t.Run(tc.cfg.Name, func(t *testing.T) {
			ss := mustServer(t, c, tc.cfg.Name, StateFailed)
			for _, want := range tc.errHas {
				if !strings.Contains(ss.Err, want) {
					t.Errorf("err: got %q, want it to contain %q", ss.Err, want)
				}
			}
			_, err := s.CallTool(context.Background(), tc.cfg.Name, "echo", nil)
			if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "it is failed") {
				t.Errorf("CallTool: got %v, want ErrNotReady saying it is failed", err)
			}
		})
	}
	if !h.has("server ready", "server=good") {
		t.Error("no ready line for the good server")
	}
}

func TestStdioCursorLoop(t *testing.T) {
	noLeaks(t)
	s, h := startSupervisor(t, Options{}, faultServer("loop", "cursor-loop,page=2"))
	ss := mustServer(t, settle(t, s), "loop", StateReady)
	if got := strings.Join(toolNames(ss), ","); got != "echo,sleep,change,fail" || !ss.ToolsTruncated {
		t.Errorf("got %s (truncated %v), want echo,sleep,change,fail truncated", got, ss.ToolsTruncated)
	}
	if !h.has("WARN", "repeated a cursor") {
		t.Error("no warning about the repeated cursor")
	}
	if !h.has("WARN", "same name", "tool=change") {
		t.Error("no warning about the duplicate tool")
	}
}

func TestStdioListChangedAndCancel(t *testing.T) {
	noLeaks(t)
	for _, modes := range []string{"", "proto=2026-07-28"} {
		t.Run("modes="+modes, func(t *testing.T) {
			s, h := startSupervisor(t, Options{}, faultServer("fs", modes))
			c := settle(t, s)
			mustServer(t, c, "fs", StateReady)
			watch, stop := s.Watch()
			defer stop()
			if _, err := s.CallTool(context.Background(), "fs", "change", nil); err != nil {
				t.Fatal(err)
			}
			deadline := time.After(10 * time.Second)
		wait:
			for {
				select {
				case got := <-watch:
					if ss, _ := got.Server("fs"); len(ss.Tools) == 5 && ss.Tools[4].Name == "extra" {
						break wait
					}
				case <-deadline:
					t.Fatalf("no catalog with tool extra; last %+v", s.Catalog())
				}
			}

			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			if _, err := s.CallTool(ctx, "fs", "sleep", nil); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("sleep: got %v, want context.DeadlineExceeded", err)
			}
			for end := time.Now().Add(5 * time.Second); !h.has("server stderr", "cancelled"); {
				if time.Now().After(end) {
					t.Fatal("the server never saw notifications/cancelled")
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// TestStdioProcessGroupGone checks that Close leaves nothing of a server's
// process group, including a child it started and a server that ignores
// both stdin EOF and SIGTERM.
func TestStdioProcessGroupGone(t *testing.T) {
	noLeaks(t)
	s, h := startSupervisor(t, Options{},
		faultServer("parent", "spawn-child"),
		faultServer("stubborn", "linger,ignore-term"))
	c := settle(t, s)
	mustServer(t, c, "parent", StateReady)
	mustServer(t, c, "stubborn", StateReady)
	pgids := map[string]int{}
	s.mu.Lock()
	for name, rt := range s.servers {
		pgids[name] = rt.conn.proc.pgid
	}
	s.mu.Unlock()
	var childPID int
	for end := time.Now().Add(5 * time.Second); childPID == 0; time.Sleep(10 * time.Millisecond) {
		h.mu.Lock()
		for _, r := range *h.records {
			if m := regexp.MustCompile(`child pid (\d+)`).FindStringSubmatch(r); m != nil {
				childPID, _ = strconv.Atoi(m[1])
			}
		}
		h.mu.Unlock()
		if time.Now().After(end) {
			t.Fatal("the server never reported its child's pid")
		}
	}
	if err := syscall.Kill(-pgids["parent"], 0); err != nil {
		t.Fatalf("process group of parent before Close: %v", err)
	}
	began := time.Now()
	s.Close()
	t.Logf("Close took %v", time.Since(began))
	for name, pgid := range pgids {
		// Reaping of the grandchild by init may trail a little.
		var err error
		for end := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if err = syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) || time.Now().After(end) {
				break
			}
		}
		if !errors.Is(err, syscall.ESRCH) {
			t.Errorf("%s: kill(-%d, 0) after Close: got %v, want ESRCH", name, pgid, err)
		}
	}
	if err := syscall.Kill(childPID, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("child %d after Close: got %v, want ESRCH", childPID, err)
	}
}

// TestStdioServerDies checks that a ready server whose process dies is
// published as failed, with how it ended.
func TestStdioServerDies(t *testing.T) {
	noLeaks(t)
	s, _ := startSupervisor(t, Options{}, faultServer("victim", ""), faultServer("bystander", ""))
	c := settle(t, s)
	mustServer(t, c, "victim", StateReady)
	s.mu.Lock()
	pgid := s.servers["victim"].conn.proc.pgid
	s.mu.Unlock()
	watch, stop := s.Watch()
	defer stop()
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case got := <-watch:
			ss, _ := got.Server("victim")
			if ss.State != StateFailed {
				continue
			}
			if !strings.Contains(ss.Err, "server process exited (signal: killed)") {
				t.Errorf("err: got %q, want the exit signal", ss.Err)
			}
			if got.Version <= c.Version {
				t.Errorf("version: got %d, want more than %d", got.Version, c.Version)
			}
			mustServer(t, got, "bystander", StateReady)
			if _, err := s.CallTool(context.Background(), "victim", "echo", nil); !errors.Is(err, ErrNotReady) {
				t.Errorf("CallTool on the dead server: got %v, want ErrNotReady", err)
			}
			return
		case <-deadline:
			t.Fatalf("victim not failed after 10s: %+v", s.Catalog())
		}
	}
}
