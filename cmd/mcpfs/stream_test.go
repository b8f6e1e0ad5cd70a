package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestResidentStreamsOutput runs the real binary on the resident engine:
// a snippet that prints, sleeps, then prints again shows its first line
// long before the run ends; a flood is cut at the output limit with a
// note as it comes, and the engine serves the next run.
func TestResidentStreamsOutput(t *testing.T) {
	r := newResidentEnv(t, "")
	c := r.cmd("run", "-")
	c.Stdin = strings.NewReader("package main\n\nimport (\n\t\"fmt\"\n\t\"time\"\n)\n\nfunc main() {\n\tfmt.Println(\"first\")\n\ttime.Sleep(1500 * time.Millisecond)\n\tfmt.Println(\"second\")\n}\n")
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	type line struct {
		text string
		at   time.Time
	}
	var lines []line
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		lines = append(lines, line{sc.Text(), time.Now()})
	}
	if err := c.Wait(); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	end := time.Now()
	if len(lines) != 2 || lines[0].text != "first" || lines[1].text != "second" {
		t.Fatalf("stdout lines %v, want first and second", lines)
	}
	t.Logf("the first line reached the client %v before the run ended", end.Sub(lines[0].at).Round(time.Millisecond))
	if early := end.Sub(lines[0].at); early < time.Second {
		t.Errorf("the first line came %v before the run ended, want about 1.5 s: it was not streamed", early)
	}

	// A flood: 8 MB of output against the default limit of 1 MiB.
	floodStart := time.Now()
	out, errOut, code := r.run("package main\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc main() {\n\tfor i := 0; i < 8000; i++ {\n\t\tfmt.Println(strings.Repeat(\"z\", 1000))\n\t}\n}\n", "run", "-")
	t.Logf("flood: %d bytes reached the client in %v", len(out), time.Since(floodStart).Round(time.Millisecond))
	if code != 0 {
		t.Fatalf("flood: exit %d, stderr %s", code, errOut)
	}
	if len(out) > 1<<20+1024 {
		t.Errorf("flood: %d bytes reached the client, want the 1 MiB limit and the notes", len(out))
	}
	for _, want := range []string{"[mcpfs: stdout cut at 1048576 bytes: the rest is not shown", "[mcpfs: stdout truncated: 1048576 of 8008000 bytes shown; the full output is in "} {
		if !strings.Contains(out, want) {
			t.Errorf("flood: stdout ends %q, want it to contain %q", out[max(0, len(out)-400):], want)
		}
	}
	st := r.status()
	if st == nil {
		t.Fatal("no engine after the flood")
	}
	out, errOut, code = r.run("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"after\") }\n", "run", "-")
	if code != 0 || out != "after\n" {
		t.Errorf("run after the flood: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	if st2 := r.status(); st2 == nil || st2.PID != st.PID {
		t.Errorf("the engine changed after the flood: %+v then %+v", st, st2)
	}
}

// TestResidentStatusLine: with stderr on a terminal, a run that imports a
// server still connecting shows one status line that names it, and
// clears it; with stderr piped or --json there is no status line.
func TestResidentStatusLine(t *testing.T) {
	r := newResidentEnv(t, `{"mcpServers": {
		"slowdocs": {"command": "sh", "args": ["-c", "sleep 2; exec $MCPFS builtin docstore"]}}}`)
	snippet := "package main\n\nimport (\n\t\"fmt\"\n\n\t\"mcpfs/servers/slowdocs\"\n)\n\nfunc main() {\n\tl, err := slowdocs.ListDocuments(slowdocs.ListDocumentsArgs{})\n\tfmt.Println(len(l.Documents), err)\n}\n"

	// Piped first (the engine starts the server: it connects for 2 s).
	out, stderr, code := r.run(snippet, "run", "-")
	if code != 0 || out != "5 <nil>\n" {
		t.Fatalf("piped: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if strings.Contains(stderr, "\r") || strings.Contains(stderr, "waiting for") {
		t.Errorf("piped stderr has a status line: %q", stderr)
	}
	// Restart the engine so that the server connects again.
	r.cmd("engine", "stop", "--all").Run()
	for _, asJSON := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", asJSON), func(t *testing.T) {
			r.cmd("engine", "stop", "--all").Run()
			term, tty := openPTY(t)
			args := []string{"run", "-"}
			if asJSON {
				args = []string{"run", "--json", "-"}
			}
			c := r.cmd(args...)
			c.Stdin = strings.NewReader(snippet)
			var stdout bytes.Buffer
			c.Stdout, c.Stderr = &stdout, tty
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			tty.Close()
			var seen bytes.Buffer
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); io.Copy(&seen, term) }()
			err := c.Wait()
			wg.Wait() // the master reads EIO once no one has the slave open
			text := seen.String()
			if err != nil {
				t.Fatalf("run: %v\nterminal: %q", err, text)
			}
			if asJSON {
				if strings.Contains(text, "waiting for") || strings.Contains(text, "\r") {
					t.Errorf("--json: the terminal got a status line: %q", text)
				}
				return
			}
			if stdout.String() != "5 <nil>\n" {
				t.Errorf("stdout %q", stdout.String())
			}
			t.Logf("the terminal saw %q", text)
			if !strings.Contains(text, "waiting for slowdocs (connecting, ") {
				t.Errorf("terminal %q, want a status line naming slowdocs", text)
			}
			if !strings.HasSuffix(text, "\r\033[K") {
				t.Errorf("terminal %q, want the status line cleared at the end", text)
			}
		})
	}
}

// TestRunStatusText: the status line's words while servers connect and
// while calls are in flight.
func TestRunStatusText(t *testing.T) {
	start := time.Now()
	s := &runStatus{start: start}
	if got := s.textLocked(start.Add(500 * time.Millisecond)); got != "" {
		t.Errorf("in the first second: %q, want nothing", got)
	}
	s.connecting, s.connSince = []string{"github"}, start
	s.inFlight.Store(2)
	if got, want := s.textLocked(start.Add(3*time.Second+100*time.Millisecond)), "waiting for github (connecting, 3 s) · 2 calls in flight"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	s.connecting = nil
	s.inFlight.Store(1)
	s.done.Store(5)
	if got, want := s.textLocked(start.Add(2400*time.Millisecond)), "running 2.4 s · 1 call in flight · 5 done"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// Output that stops inside a line keeps the status line away.
	var term bytes.Buffer
	s.term = &term
	w := s.output(io.Discard)
	w.Write([]byte("working... "))
	s.drawLocked(start.Add(2 * time.Second))
	if term.Len() != 0 {
		t.Errorf("the status line was drawn over an unfinished line: %q", term.String())
	}
	w.Write([]byte("done\n"))
	s.drawLocked(start.Add(2 * time.Second))
	if !strings.Contains(term.String(), "running 2.0 s") {
		t.Errorf("terminal %q, want the status line back after the line ended", term.String())
	}
}

// openPTY opens a pseudo-terminal: the master to read what the command
// writes, the slave to give it as its stderr.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to test with: %v", err)
	}
	master = os.NewFile(uintptr(fd), "ptmx")
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		t.Skipf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		t.Skipf("pseudo-terminal number: %v", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Skipf("open the pseudo-terminal's slave: %v", err)
	}
	// Raw output: no \n → \r\n translation in what is read back.
	if tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS); err == nil {
		tio.Oflag &^= unix.OPOST
		unix.IoctlSetTermios(int(slave.Fd()), unix.TCSETS, tio)
	}
	t.Cleanup(func() { master.Close(); slave.Close() })
	return master, slave
}
