package exec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/exec/check"
	mcpfs "github.com/mcpfs/mcpfs/fs"
	"github.com/mcpfs/mcpfs/testenv"
)

// TestChainNPMServers chains two real servers from one snippet: read a
// file through server-filesystem, store its lines as entities in
// server-memory, and print only a count.
func TestChainNPMServers(t *testing.T) {
	fsBin := testenv.Bin(t, "mcp-server-filesystem")
	memBin := testenv.Bin(t, "mcp-server-memory")
	dir := t.TempDir()
	file := filepath.Join(dir, "people.txt")
	if err := os.WriteFile(file, []byte("ada\ngrace\nlinus\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := &discovery.Config{Servers: []discovery.ServerConfig{
		{Name: "filesystem", Key: "filesystem", Transport: "stdio", Command: fsBin, Args: []string{dir}},
		{Name: "memory", Key: "memory", Transport: "stdio", Command: memBin, Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}},
	}}
	ctx := context.Background()
	sup := discovery.Start(ctx, cfg, discovery.Options{ConnectTimeout: 20 * time.Second})
	defer sup.Close()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	sup.Settle(sctx)
	for _, s := range sup.Catalog().Servers {
		if s.State != discovery.StateReady {
			t.Fatalf("server %s is %s: %s", s.Name, s.State, s.Err)
		}
	}
	tree := mcpfs.New(sup.Catalog(), mcpfs.Options{})
	src := `package main

import (
	"fmt"
	"strings"

	"mcpfs/servers/filesystem"
	"mcpfs/servers/memory"
)

func main() {
	file, err := filesystem.ReadTextFile(filesystem.ReadTextFileArgs{Path: ` + "`" + file + "`" + `})
	if err != nil {
		fmt.Println("read:", err)
		return
	}
	var people []memory.CreateEntitiesEntity
	for _, name := range strings.Fields(file.Content) {
		people = append(people, memory.CreateEntitiesEntity{Name: name, EntityType: "person", Observations: []string{"from people.txt"}})
	}
	if _, err := memory.CreateEntities(memory.CreateEntitiesArgs{Entities: people}); err != nil {
		fmt.Println("create:", err)
		return
	}
	graph, err := memory.ReadGraph(memory.ReadGraphArgs{})
	if err != nil {
		fmt.Println("graph:", err)
		return
	}
	fmt.Println(len(graph.Entities), "people stored")
}
`
	prog, err := check.Check("chain.go", []byte(src), tree, check.Options{})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	r := newRunner(t, Options{})
	res, err := r.Run(ctx, Request{Filename: "chain.go", Source: prog.Source, Tree: tree, Packages: prog.TreePackages, Call: sup.CallTool})
	if err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, res.Stderr)
	}
	if got := strings.TrimSpace(string(res.Stdout)); got != "3 people stored" {
		t.Errorf("stdout %q, want %q", got, "3 people stored")
	}
	var tools []string
	for _, c := range res.Calls {
		tools = append(tools, c.Server+"."+c.Tool)
	}
	if want := "filesystem.read_text_file memory.create_entities memory.read_graph"; strings.Join(tools, " ") != want {
		t.Errorf("calls %v, want %s", tools, want)
	}
}
