package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMountRun runs `mcpfs mount DIR` with the built-in docstore and runs
// programs the way an agent without a shell would: by writing
// run/<job>.go and reading run/<job>.out. One calls a docstore tool; one
// does not type-check and shows where.
func TestMountRun(t *testing.T) {
	data := filepath.Join(mountHome(t), "data")
	m := startMount(t, "--data-dir", data)
	dir, stderr := m.dir, &m.stderr
	m.waitFor(t, "servers/docstore appears", exists(filepath.Join(dir, "servers", "docstore", "list_documents.go")))

	tests := []struct {
		job        string
		src        string
		wantOut    []string // in this order
		wantStatus []string
	}{
		{
			job: "count", src: docstoreSnippet,
			wantOut:    []string{"5 documents\nexit status 0\n"},
			wantStatus: []string{"done in ", "1 tool call, exit status 0"},
		},
		{
			job: "typo", src: strings.Replace(docstoreSnippet, "ListDocuments(", "ListDocument(", 1),
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

	// A running job's output shows as it is printed: the first line is
	// read while the job still waits for another job to let it go on.
	t.Run("streams", func(t *testing.T) {
		write := osexec.Command("/bin/sh", "-c", `cat > "$0"`, filepath.Join(dir, "run", "live.go"))
		write.Stdin = strings.NewReader(streamSnippet)
		if out, err := write.CombinedOutput(); err != nil {
			t.Fatalf("write run/live.go: %v: %s\nstderr:\n%s", err, out, stderr.String())
		}
		cat := osexec.Command("cat", filepath.Join(dir, "run", "live.out"))
		pipe, err := cat.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cat.Start(); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(pipe)
		first, err := r.ReadString('\n')
		if err != nil || first != "first\n" {
			t.Fatalf("first line of run/live.out: %q, %v; want %q\nstderr:\n%s", first, err, "first\n", stderr.String())
		}
		status, err := os.ReadFile(filepath.Join(dir, "run", "live.status"))
		if err != nil || !strings.HasPrefix(string(status), "running ") {
			t.Errorf("run/live.status when the first line was read: %q, %v; want running", status, err)
		}
		// Another job lets it go on.
		release := osexec.Command("/bin/sh", "-c", `cat > "$0"`, filepath.Join(dir, "run", "release.go"))
		release.Stdin = strings.NewReader(releaseSnippet)
		if out, err := release.CombinedOutput(); err != nil {
			t.Fatalf("write run/release.go: %v: %s\nstderr:\n%s", err, out, stderr.String())
		}
		if out, err := osexec.Command("cat", filepath.Join(dir, "run", "release.out")).Output(); err != nil || string(out) != "<nil>\nexit status 0\n" {
			t.Fatalf("run/release.out: %q, %v; want <nil> and exit status 0\nstderr:\n%s", out, err, stderr.String())
		}
		rest, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := cat.Wait(); err != nil {
			t.Fatalf("cat run/live.out: %v", err)
		}
		if got, want := string(rest), "second\nexit status 0\n"; got != want {
			t.Errorf("the rest of run/live.out = %q, want %q", got, want)
		}
	})

	m.stop()
}

// streamSnippet prints a line, waits until the document "go-on" exists in
// docstore (releaseSnippet writes it), and prints another.
const streamSnippet = `package main

import (
	"fmt"
	"time"

	"mcpfs/servers/docstore"
)

func main() {
	fmt.Println("first")
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := docstore.ReadDocument(docstore.ReadDocumentArgs{Id: "go-on"}); err == nil {
			fmt.Println("second")
			return
		}
	}
	fmt.Println("not released within 20s")
}
`

// releaseSnippet lets streamSnippet go on.
const releaseSnippet = `package main

import (
	"fmt"

	"mcpfs/servers/docstore"
)

func main() {
	_, err := docstore.WriteDocument(docstore.WriteDocumentArgs{Id: "go-on", Title: "go on", Text: "go on"})
	fmt.Println(err)
}
`

// docstoreSnippet counts docstore's documents with one tool call.
const docstoreSnippet = `package main

import (
	"fmt"

	"mcpfs/servers/docstore"
)

func main() {
	list, err := docstore.ListDocuments(docstore.ListDocumentsArgs{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(list.Documents), "documents")
}
`
