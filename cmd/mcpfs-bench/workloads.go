package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/mcpfs/mcpfs/discovery"
	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// tokenCase is one workload done both ways.
type tokenCase struct {
	Workload string // "Discovery", "Chaining" or "Workflow"
	Name     string // short, for tables and the chart
	Task     string // what the agent is asked to do
	Direct   ledger // every tool definition, every call's arguments and result
	MCPFS    ledger // what the agent reads and writes with mcpfs
	Snippet  string // the snippet the agent writes ("" for discovery)
	Output   string // what the snippet printed
	// Target is the goal this case is held to ("" for none), checked by
	// Met.
	Target string
	Met    func(c *tokenCase) bool
	Notes  []string
	// Way names the tool the second ledger is of: "" for mcpfs, else a
	// peer's name and version. Of is the mount-way case of the same task
	// for a peer's case and a serve-way case (nil for the others).
	Way string
	Of  *tokenCase
	// Transcript is a peer's commands and what they printed, for the
	// report.
	Transcript string
}

// way is the name of the second ledger's tool.
func (c *tokenCase) way() string {
	if c.Way == "" {
		return "mcpfs"
	}
	return c.Way
}

// Saving is the fraction of direct-way tokens the mcpfs way avoids.
func (c *tokenCase) Saving() float64 {
	d := c.Direct.Tokens()
	if d == 0 {
		return 0
	}
	return 1 - float64(c.MCPFS.Tokens())/float64(d)
}

// Ratio is mcpfs tokens over direct tokens.
func (c *tokenCase) Ratio() float64 {
	d := c.Direct.Tokens()
	if d == 0 {
		return 0
	}
	return float64(c.MCPFS.Tokens()) / float64(d)
}

func (e *env) newLedger() ledger { return ledger{c: e.count} }

// addDefinitions adds the tools/list of each server to l: an MCP client
// puts every tool definition of every configured server in the context
// before the first message.
func addDefinitions(l *ledger, servers []discovery.ServerSnapshot) {
	for _, s := range servers {
		l.add(fmt.Sprintf("tools/list of %s (%d tools)", s.Name, len(s.Tools)), toolsListJSON(s))
	}
}

// addCalls adds each call's arguments (the model writes them) and result
// (the client hands it to the model).
func addCalls(l *ledger, calls []call) {
	for _, c := range calls {
		l.add(fmt.Sprintf("%s.%s arguments", c.Server, c.Tool), string(c.Args))
		l.add(fmt.Sprintf("%s.%s result", c.Server, c.Tool), resultText(c.Result))
	}
}

// ---------------------------------------------------------------------------
// Discovery

// discoveryLive finds one tool among the configured servers: the npm
// reference servers when present, else the docstore.
func (e *env) discoveryLive() (*tokenCase, error) {
	var servers []discovery.ServerSnapshot
	srv, tool := "docstore", "query_rows"
	name := "docstore (6 tools)"
	if e.npm {
		for _, s := range e.sup.Catalog().Servers {
			if s.Name != "docstore" {
				servers = append(servers, s)
			}
		}
		srv, tool = "filesystem", "read_text_file"
	} else {
		servers = []discovery.ServerSnapshot{e.snapshot("docstore")}
	}
	n := 0
	for _, s := range servers {
		n += len(s.Tools)
	}
	if e.npm {
		name = fmt.Sprintf("3 npm servers (%d tools)", n)
	}
	t := mcpfs.New(&discovery.Catalog{Version: 1, Servers: servers}, mcpfs.Options{})
	file, err := toolFile(t, srv, tool)
	if err != nil {
		return nil, err
	}
	c := &tokenCase{
		Workload: "Discovery", Name: "discover 1 tool: " + name,
		Task:   fmt.Sprintf("find and read the definition of %s's %s among %s", srv, tool, name),
		Direct: e.newLedger(), MCPFS: e.newLedger(),
	}
	addDefinitions(&c.Direct, servers)
	sh, done, err := e.newShell(t)
	if err != nil {
		return nil, err
	}
	defer done()
	if err := sh.read(&c.MCPFS,
		readStep{cmd: "cat", arg: "README.md"},
		readStep{cmd: "ls", arg: "servers"},
		readStep{cmd: "cat", arg: path.Join("servers", srv, "doc.go")},
		readStep{cmd: "cat", arg: file},
	); err != nil {
		return nil, err
	}
	c.Notes = append(c.Notes, apiFormNote(e.count, servers, c.MCPFS.Tokens()))
	if e.npm {
		note, err := e.learnedNote(context.Background())
		if err != nil {
			return nil, err
		}
		c.Notes = append(c.Notes, note)
	}
	return c, nil
}

// apiFormNote compares with the smallest form of the definitions a client
// could send (name, description, input schema).
func apiFormNote(cnt *counter, servers []discovery.ServerSnapshot, mcpfsTokens int) string {
	api := 0
	for _, s := range servers {
		api += cnt.count(apiToolsJSON(s))
	}
	return fmt.Sprintf("Counting the definitions in their smallest API form (name, description and input schema only: no title, annotations or output schema) gives %s tokens up front; mcpfs is then %s of it.",
		thousands(api), percent(float64(mcpfsTokens)/float64(api)))
}

// templates are the real tool definitions the synthetic catalog is built
// from: every tool of every live server.
func (e *env) templates() []json.RawMessage {
	var out []json.RawMessage
	for _, s := range e.sup.Catalog().Servers {
		for _, t := range s.Tools {
			out = append(out, t.Raw)
		}
	}
	return out
}

// discoverySynthetic finds one tool among servers × tools synthetic tools.
func (e *env) discoverySynthetic(servers, tools int) (*tokenCase, error) {
	cat, target, err := synthCatalog(e.templates(), servers, tools)
	if err != nil {
		return nil, err
	}
	t := mcpfs.New(cat, mcpfs.Options{})
	file, err := toolFile(t, target.Server, target.Tool)
	if err != nil {
		return nil, err
	}
	total := servers * tools
	c := &tokenCase{
		Workload: "Discovery", Name: fmt.Sprintf("discover 1 tool: %d servers × %d tools", servers, tools),
		Task:   fmt.Sprintf("find and read the definition of %s's %s among %s synthetic tools (real schema shapes, seeded names)", target.Server, target.Tool, thousands(total)),
		Direct: e.newLedger(), MCPFS: e.newLedger(),
		Target: "≤ 0.25% of the upfront definitions",
	}
	c.Met = func(c *tokenCase) bool { return c.Ratio() <= 0.0025 }
	var all strings.Builder
	for i, s := range cat.Servers {
		if i > 0 {
			all.WriteByte('\n')
		}
		all.WriteString(toolsListJSON(s))
	}
	c.Direct.add(fmt.Sprintf("tools/list of %d servers (%s tools)", servers, thousands(total)), all.String())
	sh, done, err := e.newShell(t)
	if err != nil {
		return nil, err
	}
	defer done()
	if err := sh.read(&c.MCPFS,
		readStep{cmd: "cat", arg: "README.md"},
		readStep{cmd: "ls", arg: "servers"},
		readStep{cmd: "grep", arg: "servers", word: target.Noun},
		readStep{cmd: "cat", arg: path.Join("servers", target.Server, "doc.go")},
		readStep{cmd: "cat", arg: file},
	); err != nil {
		return nil, err
	}
	c.Notes = append(c.Notes, apiFormNote(e.count, cat.Servers, c.MCPFS.Tokens()))
	return c, nil
}

// ---------------------------------------------------------------------------
// Chaining and the workflow: snippets run for real; the direct way is the
// same tool calls with every argument and result in the context.

// withPath puts a file path, as a Go string literal, in a snippet source
// where it says @PATH@.
func withPath(src, file string) string {
	return strings.Replace(src, "@PATH@", fmt.Sprintf("%q", file), 1)
}

// snippetCase runs src and fills both ledgers: the direct way has every
// configured server's definitions plus the calls; the mcpfs way has the
// reads, the snippet and its output.
func (e *env) snippetCase(ctx context.Context, c *tokenCase, filename, src string, reads []readStep) error {
	addDefinitions(&c.Direct, e.sup.Catalog().Servers)
	sh, done, err := e.newShell(e.tree)
	if err != nil {
		return err
	}
	defer done()
	if err := sh.read(&c.MCPFS, reads...); err != nil {
		return err
	}
	out, calls, err := e.run(ctx, e.tree, filename, src)
	if err != nil {
		return err
	}
	addCalls(&c.Direct, calls)
	c.MCPFS.add("the snippet (written by the agent)", src)
	c.MCPFS.add("its printed output", out)
	c.Snippet, c.Output = src, out
	c.Notes = append(c.Notes, perTaskNote(c))
	return nil
}

// perTaskNote gives the saving without the costs paid once per session
// on each side: the tool definitions (direct) and the README (mcpfs).
func perTaskNote(c *tokenCase) string {
	direct, mcpfs := c.Direct.Tokens(), c.MCPFS.Tokens()
	for _, p := range c.Direct.Parts {
		if strings.HasPrefix(p.What, "tools/list of ") {
			direct -= p.Tokens
		}
	}
	for _, p := range c.MCPFS.Parts {
		if p.What == "cat README.md" {
			mcpfs -= p.Tokens
		}
	}
	return fmt.Sprintf("Per task, leaving out what each way pays once per session (the tool definitions; the README): %s → %s tokens, %s fewer.",
		thousands(direct), thousands(mcpfs), percent(1-float64(mcpfs)/float64(direct)))
}

// catTools are the reads that find the tools a snippet uses: the guide,
// the server list and each tool's file.
func (e *env) catTools(tools ...[2]string) ([]readStep, error) {
	steps := []readStep{{cmd: "cat", arg: "README.md"}, {cmd: "ls", arg: "servers"}}
	for _, st := range tools {
		f, err := toolFile(e.tree, st[0], st[1])
		if err != nil {
			return nil, err
		}
		steps = append(steps, readStep{cmd: "cat", arg: f})
	}
	return steps, nil
}

func chainingTarget(c *tokenCase) {
	c.Target = "≥ 99.7% fewer tokens"
	c.Met = func(c *tokenCase) bool { return c.Saving() >= 0.997 }
}

// handbook returns the docstore's handbook text.
func (e *env) handbook(ctx context.Context) (string, error) {
	res, err := e.sup.CallTool(ctx, "docstore", "read_document", json.RawMessage(`{"id":"handbook"}`))
	if err != nil {
		return "", fmt.Errorf("read the handbook: %w", err)
	}
	var r struct {
		Structured struct {
			Text string `json:"text"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.Structured.Text == "" {
		return "", fmt.Errorf("read the handbook: no text in the result (%v)", err)
	}
	return r.Structured.Text, nil
}

const fileToMemorySrc = `package main

import (
	"fmt"
	"strings"

	"mcpfs/servers/filesystem"
	"mcpfs/servers/memory"
)

func main() {
	doc, err := filesystem.ReadTextFile(filesystem.ReadTextFileArgs{Path: @PATH@})
	if err != nil {
		fmt.Println("read:", err)
		return
	}
	_, err = memory.CreateEntities(memory.CreateEntitiesArgs{Entities: []memory.CreateEntitiesEntity{{
		Name:         "operations-handbook",
		EntityType:   "document",
		Observations: []string{doc.Content},
	}}})
	if err != nil {
		fmt.Println("store:", err)
		return
	}
	fmt.Printf("stored handbook.md in memory as operations-handbook: %d bytes, %d lines\n", len(doc.Content), strings.Count(doc.Content, "\n"))
}
`

// chainFileToMemory moves the handbook, as a file served by
// server-filesystem, into server-memory.
func (e *env) chainFileToMemory(ctx context.Context) (*tokenCase, error) {
	text, err := e.handbook(ctx)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(e.filesDir, "handbook.md")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		return nil, err
	}
	c := &tokenCase{
		Workload: "Chaining", Name: "move a document: filesystem → memory",
		Task:   fmt.Sprintf("read handbook.md (%s bytes, %s tokens) through server-filesystem and store it in server-memory", thousands(len(text)), thousands(e.count.count(text))),
		Direct: e.newLedger(), MCPFS: e.newLedger(),
	}
	chainingTarget(c)
	reads, err := e.catTools([2]string{"filesystem", "read_text_file"}, [2]string{"memory", "create_entities"})
	if err != nil {
		return nil, err
	}
	if err := e.snippetCase(ctx, c, "move.go", withPath(fileToMemorySrc, file), reads); err != nil {
		return nil, err
	}
	// The move must have happened: the stored observation is the file.
	res, err := e.sup.CallTool(ctx, "memory", "open_nodes", json.RawMessage(`{"names":["operations-handbook"]}`))
	if err != nil {
		return nil, fmt.Errorf("check the stored handbook: %w", err)
	}
	var graph struct {
		Structured struct {
			Entities []struct {
				Observations []string `json:"observations"`
			} `json:"entities"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(res, &graph); err != nil || len(graph.Structured.Entities) != 1 ||
		len(graph.Structured.Entities[0].Observations) != 1 || graph.Structured.Entities[0].Observations[0] != text {
		return nil, fmt.Errorf("check the stored handbook: server-memory does not hold the file's text (%v)", err)
	}
	c.Notes = append(c.Notes, "Checked after the run: server-memory's open_nodes returns the entity with the file's text, byte for byte.")
	return c, nil
}

const copyHandbookSrc = `package main

import (
	"fmt"

	"mcpfs/servers/docstore"
)

func main() {
	doc, err := docstore.ReadDocument(docstore.ReadDocumentArgs{Id: "handbook"})
	if err != nil {
		fmt.Println("read:", err)
		return
	}
	res, err := docstore.WriteDocument(docstore.WriteDocumentArgs{Id: "handbook-copy", Title: doc.Title, Text: doc.Text})
	if err != nil {
		fmt.Println("write:", err)
		return
	}
	fmt.Printf("copied handbook to %s: %d bytes, %d lines\n", res.Id, res.Bytes, res.Lines)
}
`

// chainCopyHandbook reads the docstore's handbook and writes it back as a
// new document: a large document through two calls, with no npm server.
func (e *env) chainCopyHandbook(ctx context.Context) (*tokenCase, error) {
	text, err := e.handbook(ctx)
	if err != nil {
		return nil, err
	}
	c := &tokenCase{
		Workload: "Chaining", Name: "move a document: docstore → docstore",
		Task:   fmt.Sprintf("read the docstore's handbook (%s bytes, %s tokens) and write it back as handbook-copy", thousands(len(text)), thousands(e.count.count(text))),
		Direct: e.newLedger(), MCPFS: e.newLedger(),
	}
	chainingTarget(c)
	reads, err := e.catTools([2]string{"docstore", "read_document"}, [2]string{"docstore", "write_document"})
	if err != nil {
		return nil, err
	}
	if err := e.snippetCase(ctx, c, "copy.go", copyHandbookSrc, reads); err != nil {
		return nil, err
	}
	return c, nil
}

const filterRowsSrc = `package main

import (
	"fmt"
	"sort"
	"strconv"

	"mcpfs/mcp"
	"mcpfs/servers/docstore"
)

type request struct {
	at, id, region, path string
	status, ms           int
}

func main() {
	res, err := docstore.QueryRows(docstore.QueryRowsArgs{Id: "access-log", Limit: mcp.Int(10000)})
	if err != nil {
		fmt.Println("query:", err)
		return
	}
	var failed []request
	for _, r := range res.Rows {
		status, _ := strconv.Atoi(r["status"])
		if status < 500 {
			continue
		}
		ms, _ := strconv.Atoi(r["latency_ms"])
		failed = append(failed, request{r["timestamp"], r["request_id"], r["region"], r["path"], status, ms})
	}
	sort.Slice(failed, func(i, j int) bool { return failed[i].ms > failed[j].ms })
	fmt.Printf("%d rows, %d failed (5xx); the 5 slowest:\n", len(res.Rows), len(failed))
	for i := 0; i < 5 && i < len(failed); i++ {
		f := failed[i]
		fmt.Printf("%s %s %s %d %dms %s\n", f.at, f.region, f.path, f.status, f.ms, f.id)
	}
}
`

// chainFilterRows filters the 10,000-row access log down to 5 rows.
func (e *env) chainFilterRows(ctx context.Context) (*tokenCase, error) {
	c := &tokenCase{
		Workload: "Chaining", Name: "filter 10,000 rows → 5",
		Task:   "fetch the docstore's 10,000-row access log (query_rows) and print the 5 slowest failed (5xx) requests",
		Direct: e.newLedger(), MCPFS: e.newLedger(),
	}
	chainingTarget(c)
	reads, err := e.catTools([2]string{"docstore", "query_rows"})
	if err != nil {
		return nil, err
	}
	if err := e.snippetCase(ctx, c, "filter.go", filterRowsSrc, reads); err != nil {
		return nil, err
	}
	if n := strings.Count(c.Output, "\n"); n != 6 {
		return nil, fmt.Errorf("filter snippet printed %d lines, want 6 (a header and 5 rows):\n%s", n, c.Output)
	}
	return c, nil
}

const workflowSrc = `package main

import (
	"fmt"
	"sort"
	"strings"

	"mcpfs/mcp"
	"mcpfs/servers/docstore"
	"mcpfs/servers/filesystem"
	"mcpfs/servers/memory"
)

func main() {
	// 1. The eu-west requests, 5xx counted by hour.
	rows, err := docstore.QueryRows(docstore.QueryRowsArgs{Id: "access-log", Where: map[string]string{"region": "eu-west"}, Limit: mcp.Int(10000)})
	if err != nil {
		fmt.Println("query:", err)
		return
	}
	byHour := map[string]int{}
	total := 0
	for _, r := range rows.Rows {
		if strings.HasPrefix(r["status"], "5") {
			byHour[r["timestamp"][:13]]++
			total++
		}
	}
	var hours []string
	for h := range byHour {
		hours = append(hours, h)
	}
	sort.Slice(hours, func(i, j int) bool { return byHour[hours[i]] > byHour[hours[j]] || byHour[hours[i]] == byHour[hours[j]] && hours[i] < hours[j] })

	// 2. What the notes and the handbook say about the incident.
	hits, err := docstore.Search(docstore.SearchArgs{Query: "INC-2291", Limit: mcp.Int(5)})
	if err != nil {
		fmt.Println("search:", err)
		return
	}

	// 3. A report file through server-filesystem.
	var b strings.Builder
	fmt.Fprintf(&b, "# INC-2291: eu-west 5xx\n\n%d failed requests of %d in eu-west.\n\n## Worst hours (UTC)\n\n", total, len(rows.Rows))
	for i := 0; i < 5 && i < len(hours); i++ {
		fmt.Fprintf(&b, "- %s:00 — %d\n", hours[i], byHour[hours[i]])
	}
	b.WriteString("\n## References\n\n")
	for _, h := range hits.Hits {
		fmt.Fprintf(&b, "- %s:%d %s\n", h.Id, h.Line, strings.TrimSpace(h.Text))
	}
	if _, err := filesystem.WriteFile(filesystem.WriteFileArgs{Path: @PATH@, Content: b.String()}); err != nil {
		fmt.Println("write:", err)
		return
	}

	// 4. The incident in server-memory's knowledge graph.
	_, err = memory.CreateEntities(memory.CreateEntitiesArgs{Entities: []memory.CreateEntitiesEntity{
		{Name: "INC-2291", EntityType: "incident", Observations: []string{
			fmt.Sprintf("%d failed eu-west requests", total),
			fmt.Sprintf("worst hour %s:00 UTC with %d", hours[0], byHour[hours[0]]),
			"report: inc-2291.md",
		}},
		{Name: "eu-west", EntityType: "region", Observations: []string{"served the 5xx of INC-2291"}},
	}})
	if err != nil {
		fmt.Println("memory:", err)
		return
	}
	if _, err := memory.CreateRelations(memory.CreateRelationsArgs{Relations: []memory.CreateRelationsRelation{{From: "INC-2291", To: "eu-west", RelationType: "affected"}}}); err != nil {
		fmt.Println("relation:", err)
		return
	}
	fmt.Printf("INC-2291: %d eu-west 5xx, worst hour %s:00 (%d); %d references; wrote inc-2291.md (%d bytes); stored 2 entities, 1 relation\n",
		total, hours[0], byHour[hours[0]], len(hits.Hits), b.Len())
}
`

// workflow runs a five-call workflow across docstore, filesystem and
// memory.
func (e *env) workflow(ctx context.Context) (*tokenCase, error) {
	c := &tokenCase{
		Workload: "Workflow", Name: "incident report: 3 servers, 5 calls",
		Task: "count eu-west 5xx by hour (docstore query_rows), find the incident's references (docstore search), " +
			"write a report file (filesystem write_file) and record the incident in the knowledge graph (memory create_entities, create_relations)",
		Direct: e.newLedger(), MCPFS: e.newLedger(),
	}
	reads, err := e.catTools(
		[2]string{"docstore", "query_rows"}, [2]string{"docstore", "search"},
		[2]string{"filesystem", "write_file"},
		[2]string{"memory", "create_entities"}, [2]string{"memory", "create_relations"},
	)
	if err != nil {
		return nil, err
	}
	src := withPath(workflowSrc, filepath.Join(e.filesDir, "inc-2291.md"))
	if err := e.snippetCase(ctx, c, "workflow.go", src, reads); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(e.filesDir, "inc-2291.md")); err != nil {
		return nil, fmt.Errorf("workflow: the report file was not written: %w", err)
	}
	return c, nil
}
