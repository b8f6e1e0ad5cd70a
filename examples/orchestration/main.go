// Multi-server orchestration (researcher: filesystem + memory): read the
// notes in a folder with the filesystem server, pick out the lines that
// cite a paper, and record each paper once as an entity in the memory
// server's knowledge graph. Only counts are printed.
//
//	mcpfs --config examples/configs/researcher.json run examples/orchestration/main.go
package main

import (
	"fmt"
	"sort"
	"strings"

	"mcpfs/servers/filesystem"
	"mcpfs/servers/memory"
)

func main() {
	dirs, err := filesystem.ListAllowedDirectories(filesystem.ListAllowedDirectoriesArgs{})
	if err != nil {
		fmt.Println("list_allowed_directories:", err)
		return
	}
	root := strings.TrimSpace(strings.TrimPrefix(strings.Split(dirs.Content, "\n")[1], "- "))
	files, err := filesystem.SearchFiles(filesystem.SearchFilesArgs{Path: root, Pattern: "**/*.md"})
	if err != nil {
		fmt.Println("search_files:", err)
		return
	}
	papers := map[string][]string{} // paper → notes citing it
	for _, f := range strings.Split(strings.TrimSpace(files.Content), "\n") {
		if f == "" {
			continue
		}
		text, err := filesystem.ReadTextFile(filesystem.ReadTextFileArgs{Path: f})
		if err != nil {
			fmt.Println("read_text_file:", err)
			return
		}
		for _, line := range strings.Split(text.Content, "\n") {
			if cite, ok := strings.CutPrefix(line, "cite: "); ok {
				papers[cite] = append(papers[cite], f[strings.LastIndex(f, "/")+1:])
			}
		}
	}
	names := make([]string, 0, len(papers))
	for p := range papers {
		names = append(names, p)
	}
	sort.Strings(names)
	var entities []memory.CreateEntitiesEntity
	for _, p := range names {
		entities = append(entities, memory.CreateEntitiesEntity{
			Name:         p,
			EntityType:   "paper",
			Observations: []string{"cited in " + strings.Join(papers[p], ", ")},
		})
	}
	created, err := memory.CreateEntities(memory.CreateEntitiesArgs{Entities: entities})
	if err != nil {
		fmt.Println("create_entities:", err)
		return
	}
	graph, err := memory.ReadGraph(memory.ReadGraphArgs{})
	if err != nil {
		fmt.Println("read_graph:", err)
		return
	}
	fmt.Printf("%d notes, %d papers cited, %d new entities, %d in the graph\n", len(strings.Split(strings.TrimSpace(files.Content), "\n")), len(names), len(created.Entities), len(graph.Entities))
}
