package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nilListSnippet makes a memory entity whose observations, built from
// data that has none, are a nil slice: Go sends it as null, which the
// memory server refuses; mcpfs sends it as the empty list its schema
// wants.
const nilListSnippet = `package main

import (
	"fmt"
	"strings"

	"mcpfs/servers/memory"
)

func notes(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "- ") {
			out = append(out, line[2:])
		}
	}
	return out
}

func main() {
	e := memory.CreateEntitiesEntity{Name: "alice", EntityType: "person", Observations: notes("no notes yet")}
	if _, err := memory.CreateEntities(memory.CreateEntitiesArgs{Entities: []memory.CreateEntitiesEntity{e}}); err != nil {
		fmt.Println("error:", err)
		return
	}
	g, err := memory.ReadGraph(memory.ReadGraphArgs{})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	for _, ent := range g.Entities {
		fmt.Printf("%s: %d observations\n", ent.Name, len(ent.Observations))
	}
}
`

// TestNilListSentEmpty: through the real memory server, a nil slice in a
// field whose schema wants an array reaches the server as [].
func TestNilListSentEmpty(t *testing.T) {
	config := writeConfig(t, true)
	p := filepath.Join(t.TempDir(), "nil.go")
	if err := os.WriteFile(p, []byte(nilListSnippet), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := Main([]string{"--data-dir", t.TempDir(), "--config", config, "run", p}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 || stdout.String() != "alice: 0 observations\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout.String(), stderr.String())
	}
}
