package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpfs/mcpfs/testenv"
)

// The peers are other tools that keep tool calls out of the model's
// context. The bench measures them on the same tasks as mcpfs, with the
// same servers, data and tokenizer, when run with -peers. They are npm
// packages pinned in peers/package.json beside this file and installed on
// demand into the git-ignored peers/node_modules, so the default run needs
// nothing beyond testenv.

// mcporterVersion is the MCPorter release measured; peers/package.json
// pins it, with the node release it declares it needs.
const mcporterVersion = "0.12.3"

// mcporter is an installed MCPorter: its CLI and the node that runs it.
type mcporter struct {
	cli         string // node_modules/mcporter/dist/cli.js
	node        string // the node binary that runs it and the scripts
	version     string // from its package.json
	nodeVersion string // `node --version`
	work        string // the agent's working folder: config/, scripts
}

// peersDir is the folder of peers/package.json.
func peersDir() string { return filepath.Join(moduleRoot(), "cmd", "mcpfs-bench", "peers") }

// packageVersion is the version in dir/package.json, "" when there is none.
func packageVersion(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	var p struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &p) != nil {
		return ""
	}
	return p.Version
}

// findMCPorter returns the node_modules folder holding MCPorter at the
// pinned version: testenv's when it has it, else peers/node_modules, which
// it installs with npm (as peers/package.json says) when it is missing.
func findMCPorter(ctx context.Context, say func(string, ...any)) (string, error) {
	dirs := []string{filepath.Join(testenv.Dir(), "node_modules"), filepath.Join(peersDir(), "node_modules")}
	for _, d := range dirs {
		if packageVersion(filepath.Join(d, "mcporter")) == mcporterVersion {
			return d, nil
		}
	}
	npm, err := osexec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("MCPorter %s is not installed and npm is not on PATH to install it: install node and npm, or run without -peers", mcporterVersion)
	}
	say("peers: installing MCPorter %s with npm into %s", mcporterVersion, dirs[1])
	ictx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := osexec.CommandContext(ictx, npm, "install", "--prefix", peersDir(), "--package-lock=false", "--no-audit", "--no-fund")
	cmd.Dir = peersDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("install MCPorter %s: npm install --prefix %s: %w: %s (or run without -peers)", mcporterVersion, peersDir(), err, lastLines(string(out), 5))
	}
	if v := packageVersion(filepath.Join(dirs[1], "mcporter")); v != mcporterVersion {
		return "", fmt.Errorf("install MCPorter: npm installed version %q into %s, want %s: check %s", v, dirs[1], mcporterVersion, filepath.Join(peersDir(), "package.json"))
	}
	return dirs[1], nil
}

// newMCPorter finds or installs MCPorter and makes the agent's working
// folder under the scratch folder: the config it reads and the scripts
// it writes go there, and its node_modules is MCPorter's, so a script's
// `import "mcporter"` resolves.
func (e *env) newMCPorter(ctx context.Context, say func(string, ...any)) (*mcporter, error) {
	mods, err := findMCPorter(ctx, say)
	if err != nil {
		return nil, err
	}
	m := &mcporter{cli: filepath.Join(mods, "mcporter", "dist", "cli.js"), version: packageVersion(filepath.Join(mods, "mcporter"))}
	// The node installed beside it (MCPorter 0.12.3 declares node ≥ 24),
	// else the one on PATH.
	m.node = filepath.Join(mods, "node", "bin", "node")
	if _, err := os.Stat(m.node); err != nil {
		if m.node, err = osexec.LookPath("node"); err != nil {
			return nil, errors.New("MCPorter needs node: none beside it and none on PATH")
		}
	}
	out, err := osexec.CommandContext(ctx, m.node, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("%s --version: %w", m.node, err)
	}
	m.nodeVersion = strings.TrimSpace(string(out))
	m.work = filepath.Join(e.dir, "mcporter")
	if err := os.MkdirAll(filepath.Join(m.work, "config"), 0o755); err != nil {
		return nil, err
	}
	if err := os.Symlink(mods, filepath.Join(m.work, "node_modules")); err != nil {
		return nil, err
	}
	return m, nil
}

// name is how the report names this MCPorter.
func (m *mcporter) name() string {
	return fmt.Sprintf("MCPorter %s (node %s)", m.version, m.nodeVersion)
}

// configure writes config/mcporter.json in the agent's folder: the given
// servers of the bench, the same executables and data, and no imports of
// editors' configs. memory gets a file of its own.
func (e *env) configureMCPorter(ctx context.Context, m *mcporter, names ...string) error {
	bins, why := npmBins()
	if why != "" {
		return errors.New(why)
	}
	servers := map[string]any{}
	for _, n := range names {
		switch n {
		case "docstore":
			bin, err := e.binary(ctx)
			if err != nil {
				return err
			}
			servers[n] = map[string]any{"command": bin, "args": []string{"builtin", "docstore"}, "env": map[string]string{"MCPFS_NO_ENGINE": "1"}}
		case "everything":
			servers[n] = map[string]any{"command": bins[n], "args": []string{"stdio"}}
		case "filesystem":
			servers[n] = map[string]any{"command": bins[n], "args": []string{e.filesDir}}
		case "memory":
			servers[n] = map[string]any{"command": bins[n], "env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(e.dir, "mcporter-memory.jsonl")}}
		default:
			return fmt.Errorf("no server %q for MCPorter", n)
		}
	}
	data, err := json.MarshalIndent(map[string]any{"mcpServers": servers, "imports": []string{}}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(m.work, "config", "mcporter.json"), data, 0o644)
}

// run runs `node args...` in the agent's folder and returns what it
// printed, stdout and stderr as a terminal shows them.
func (m *mcporter) run(ctx context.Context, args ...string) (string, error) {
	rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := osexec.CommandContext(rctx, m.node, args...)
	cmd.Dir = m.work
	cmd.Env = append(os.Environ(), "MCPORTER_CONFIG="+filepath.Join(m.work, "config", "mcporter.json"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("node %s: %w: %s", strings.Join(args, " "), err, lastLines(out.String(), 8))
	}
	return out.String(), nil
}

// cliStep runs `mcporter args...`, checks its output holds want and adds
// it to c's second ledger and transcript.
func (m *mcporter) cliStep(ctx context.Context, c *tokenCase, want string, args ...string) (string, error) {
	out, err := m.run(ctx, append([]string{m.cli}, args...)...)
	if err != nil {
		return "", err
	}
	if !strings.Contains(out, want) {
		return "", fmt.Errorf("mcporter %s: the output lacks %q:\n%s", strings.Join(args, " "), want, out)
	}
	cmd := "mcporter " + strings.Join(args, " ")
	c.MCPFS.add(cmd, out)
	c.Transcript += "$ " + cmd + "\n" + out
	if !strings.HasSuffix(out, "\n") {
		c.Transcript += "\n"
	}
	return out, nil
}

// peerCases measures the peers on the discovery among the live npm
// servers and on the filesystem → memory move, each against the mount
// case of the same task in r (its direct side is theirs).
func (e *env) peerCases(ctx context.Context, r *results, say func(string, ...any)) ([]*tokenCase, error) {
	if !e.npm {
		return nil, fmt.Errorf("the peers' cases need the npm reference servers (%s)", e.npmWhy)
	}
	disc, move := r.caseNamed("discover 1 tool: 3 npm servers"), r.caseNamed("move a document: filesystem → memory")
	if disc == nil || move == nil {
		return nil, errors.New("the peers' cases need the mount cases of discovery and of filesystem → memory")
	}
	m, err := e.newMCPorter(ctx, say)
	if err != nil {
		return nil, err
	}
	say("peers: %s", m.name())
	d, err := e.mcporterDiscovery(ctx, m, disc)
	if err != nil {
		return nil, fmt.Errorf("MCPorter, discovery: %w", err)
	}
	c, err := e.mcporterMove(ctx, m, move)
	if err != nil {
		return nil, fmt.Errorf("MCPorter, filesystem → memory: %w", err)
	}
	return []*tokenCase{d, c}, nil
}

// peerCase is a case of another tool on the task of mount: the same
// direct side, the tool's reads and writes in the second ledger.
func (e *env) peerCase(mount *tokenCase, way, name string) *tokenCase {
	return &tokenCase{
		Workload: "Peers", Name: name, Way: way, Of: mount,
		Task:   mount.Task,
		Direct: ledger{c: e.count, Parts: append([]part(nil), mount.Direct.Parts...)},
		MCPFS:  e.newLedger(),
		Target: mount.Target, Met: mount.Met,
	}
}

// mcporterDiscovery finds filesystem's read_text_file among the three npm
// servers the way MCPorter's CLI offers: the server list, then the
// server's tools as TypeScript signatures with their doc comments. Like
// the mount way (README, servers, doc.go, the tool's file), it does not
// presume the tool's name; the path that does is measured for a note.
func (e *env) mcporterDiscovery(ctx context.Context, m *mcporter, mount *tokenCase) (*tokenCase, error) {
	if err := e.configureMCPorter(ctx, m, "everything", "filesystem", "memory"); err != nil {
		return nil, err
	}
	c := e.peerCase(mount, m.name(), "discover 1 tool: 3 npm servers, "+m.name())
	if _, err := m.cliStep(ctx, c, "filesystem (14 tools", "list"); err != nil {
		return nil, err
	}
	if _, err := m.cliStep(ctx, c, "function read_text_file(", "list", "filesystem"); err != nil {
		return nil, err
	}
	byName := e.peerCase(mount, m.name(), "")
	if _, err := m.cliStep(ctx, byName, "function read_text_file(", "list", "filesystem.read_text_file"); err != nil {
		return nil, err
	}
	list, one := c.MCPFS.Parts[0].Tokens, byName.MCPFS.Parts[0].Tokens
	mountByName := 0
	for _, p := range mount.MCPFS.Parts {
		if p.What == "cat README.md" || strings.HasSuffix(p.What, "/read_text_file.go") {
			mountByName += p.Tokens
		}
	}
	c.Notes = append(c.Notes,
		"Counted: the output of each command, as for the mount's `ls` and `cat` (the commands themselves are a few tokens on either side). MCPorter has no guide to read: its usage is taken as known, where mcpfs's way reads the tree's README. The outputs hold timings (`0.5s`, `286ms`), so a count can differ by a token from run to run.",
		fmt.Sprintf("An agent that already knows the tool's name lists only it: `mcporter list` and `mcporter list filesystem.read_text_file` are %s + %s = %s tokens (%s of the direct way); the mount's same path, the README and the tool's file, is %s.",
			thousands(list), thousands(one), thousands(list+one), percent(float64(list+one)/float64(c.Direct.Tokens())), thousands(mountByName)))
	return c, nil
}

// mcporterMoveSrc is the script an agent writes to move the handbook
// through MCPorter's runtime; it prints the same line as the Go snippet.
const mcporterMoveSrc = `import { createRuntime } from "mcporter";

const rt = await createRuntime();
const doc = await rt.callTool("filesystem", "read_text_file", { args: { path: @PATH@ } });
const text = doc.structuredContent.content;
await rt.callTool("memory", "create_entities", { args: { entities: [{ name: "operations-handbook", entityType: "document", observations: [text] }] } });
console.log(` + "`stored handbook.md in memory as operations-handbook: ${Buffer.byteLength(text)} bytes, ${text.split(\"\\n\").length - 1} lines`" + `);
await rt.close();
`

// mcporterCheckSrc reads the stored entity back (not counted).
const mcporterCheckSrc = `import { createRuntime } from "mcporter";

const rt = await createRuntime();
const res = await rt.callTool("memory", "open_nodes", { args: { names: ["operations-handbook"] } });
process.stdout.write(JSON.stringify(res.structuredContent));
await rt.close();
`

// mcporterMove moves the handbook from server-filesystem to server-memory
// through MCPorter: the server list, the two tools' signatures (the
// memory tool's with its schema), a script using the runtime, and its
// output.
func (e *env) mcporterMove(ctx context.Context, m *mcporter, mount *tokenCase) (*tokenCase, error) {
	if err := e.configureMCPorter(ctx, m, "docstore", "everything", "filesystem", "memory"); err != nil {
		return nil, err
	}
	c := e.peerCase(mount, m.name(), "move a document: fs → memory, "+m.name())
	if _, err := m.cliStep(ctx, c, "memory (9 tools", "list"); err != nil {
		return nil, err
	}
	if _, err := m.cliStep(ctx, c, "function read_text_file(", "list", "filesystem.read_text_file"); err != nil {
		return nil, err
	}
	if _, err := m.cliStep(ctx, c, `"entityType"`, "list", "memory.create_entities", "--schema"); err != nil {
		return nil, err
	}
	src := strings.Replace(mcporterMoveSrc, "@PATH@", fmt.Sprintf("%q", filepath.Join(e.filesDir, "handbook.md")), 1)
	if err := os.WriteFile(filepath.Join(m.work, "move.mjs"), []byte(src), 0o644); err != nil {
		return nil, err
	}
	out, err := m.run(ctx, "move.mjs")
	if err != nil {
		return nil, err
	}
	if out != mount.Output {
		return nil, fmt.Errorf("the script printed %q, want what the mount's snippet printed, %q", out, mount.Output)
	}
	c.MCPFS.add("the script (written by the agent)", src)
	c.MCPFS.add("its printed output", out)
	c.Snippet, c.Output = src, out

	// The move must have happened: MCPorter's server-memory holds the file.
	if err := os.WriteFile(filepath.Join(m.work, "check.mjs"), []byte(mcporterCheckSrc), 0o644); err != nil {
		return nil, err
	}
	got, err := m.run(ctx, "check.mjs")
	if err != nil {
		return nil, fmt.Errorf("check the stored handbook: %w", err)
	}
	text, err := os.ReadFile(filepath.Join(e.filesDir, "handbook.md"))
	if err != nil {
		return nil, err
	}
	var graph struct {
		Entities []struct {
			Observations []string `json:"observations"`
		} `json:"entities"`
	}
	if err := json.Unmarshal([]byte(got), &graph); err != nil || len(graph.Entities) != 1 ||
		len(graph.Entities[0].Observations) != 1 || graph.Entities[0].Observations[0] != string(text) {
		return nil, fmt.Errorf("check the stored handbook: MCPorter's server-memory does not hold the file's text (%v): %.200s", err, got)
	}
	c.Notes = append(c.Notes,
		"Counted: the output of each command, the script and its output, as on the mount way. Without `--schema` MCPorter shows create_entities' argument as `Record<string, unknown>[]`, which does not name the entity's fields, so the agent asks for the schema.",
		"Checked after the run: the script printed the same line as the mount's snippet, and server-memory's open_nodes (through MCPorter's runtime, not counted) returns the entity with the file's text, byte for byte.")
	return c, nil
}
