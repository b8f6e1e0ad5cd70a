package skills_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/skills"
)

// crashEnv makes the test binary a child that saves skills in a loop
// until it is killed (TestKillDuringSave).
const crashEnv = "MCPFS_SKILLS_CRASH_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashEnv); dir != "" {
		saveForever(dir)
		return
	}
	os.Exit(m.Run())
}

// generation returns the files of skill name at generation n: every file
// says n, so a torn version shows as files that disagree.
func generation(name string, n int) map[string][]byte {
	return map[string][]byte{
		"SKILL.md": []byte(fmt.Sprintf("---\nname: %s\ndescription: generation %d\n---\n", name, n)),
		"gen.go":   []byte(fmt.Sprintf("package %s\n\nconst Gen = %d\n", name, n)),
		"more.go":  []byte(fmt.Sprintf("package %s\n\nconst More = %d\n\nvar Pad = %q\n", name, n, make([]byte, 4096+n%7))),
	}
}

func saveForever(dir string) {
	s, err := skills.Open(dir, skills.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	tree := baseTree()
	for n := 1; ; n++ {
		for _, name := range []string{"alpha", "beta"} {
			if _, err := s.Save(context.Background(), tree, name, generation(name, n), "loop"); err != nil {
				fmt.Fprintln(os.Stderr, "child:", err)
				os.Exit(1)
			}
		}
		fmt.Println("saved", n)
	}
}

var genRE = regexp.MustCompile(`(?:generation|Gen =|More =) (\d+)`)

// TestKillDuringSave kills a process that saves skills in a loop at
// random moments, and checks after each kill that every skill is one
// whole version, in the history and in its plain folder.
func TestKillDuringSave(t *testing.T) {
	if testing.Short() {
		t.Skip("kill -9 test skipped in -short mode")
	}
	dir := t.TempDir()
	for round := 0; round < 6; round++ {
		cmd := osexec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashEnv+"="+dir)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(out)
		if _, err := r.ReadString('\n'); err != nil { // one full round saved
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: child ended before saving: %v", round, err)
		}
		time.Sleep(time.Duration(rand.IntN(30000)) * time.Microsecond)
		cmd.Process.Kill()
		cmd.Wait()

		s := openStore(t, dir)
		for _, name := range []string{"alpha", "beta"} {
			sk, ok := s.Get(name)
			if !ok {
				t.Fatalf("round %d: skill %s is gone", round, name)
			}
			n := consistent(t, name, sk.Files)
			plain := map[string][]byte{}
			for f := range sk.Files {
				data, err := os.ReadFile(filepath.Join(dir, name, f))
				if err != nil {
					t.Fatalf("round %d: plain folder of %s: %v", round, name, err)
				}
				plain[f] = data
			}
			if m := consistent(t, name, plain); m != n {
				t.Errorf("round %d: plain folder of %s holds generation %d, the store %d", round, name, m, n)
			}
		}
	}
}

// consistent returns the generation all files agree on, failing when
// they do not.
func consistent(t *testing.T, name string, files map[string][]byte) int {
	t.Helper()
	gen := -1
	for f, data := range files {
		m := genRE.FindSubmatch(data)
		if m == nil {
			t.Fatalf("%s/%s: no generation in %q", name, f, data)
		}
		n, _ := strconv.Atoi(string(m[1]))
		if gen >= 0 && n != gen {
			t.Fatalf("%s is torn: %s has generation %d, another file %d", name, f, n, gen)
		}
		gen = n
	}
	if len(files) != 3 {
		t.Fatalf("%s has %d files, want 3", name, len(files))
	}
	return gen
}
