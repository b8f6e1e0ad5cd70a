package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// mcpClient is an MCP client whose config mcpfs reads (init) or adds itself to (install).
type mcpClient struct {
	id, name string
	key      string // "mcpServers", or "servers" (VS Code)
	path     func(home, configDir, cwd string) string
}

var clients = []mcpClient{
	{"claude-desktop", "Claude Desktop", "mcpServers", func(_, cfg, _ string) string {
		return filepath.Join(cfg, "Claude", "claude_desktop_config.json")
	}},
	{"claude-code", "Claude Code", "mcpServers", func(home, _, _ string) string { return filepath.Join(home, ".claude.json") }},
	{"cursor", "Cursor", "mcpServers", func(home, _, _ string) string { return filepath.Join(home, ".cursor", "mcp.json") }},
	{"vscode", "VS Code", "servers", func(_, cfg, _ string) string { return filepath.Join(cfg, "Code", "User", "mcp.json") }},
	{"project", "this project (.mcp.json)", "mcpServers", func(_, _, cwd string) string { return filepath.Join(cwd, ".mcp.json") }},
}

func clientIDs() []string {
	var ids []string
	for _, c := range clients {
		if c.id != "project" {
			ids = append(ids, c.id)
		}
	}
	return ids
}

// clientPath returns where a client keeps its config for this user.
func (g *globals) clientPath(c mcpClient) (string, error) {
	home, err := os.UserHomeDir()
	if h := g.getenv("HOME"); h != "" {
		home, err = h, nil
	}
	if err != nil {
		return "", err
	}
	cfgDir := g.getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(cfgDir) {
		cfgDir = filepath.Join(home, ".config")
	}
	return c.path(home, cfgDir, g.cwd), nil
}

// mcpfsConfigPath is where mcpfs init writes: <user config dir>/mcpfs/servers.json,
// a place mcpfs looks by default.
func (g *globals) mcpfsConfigPath() (string, error) {
	cfgDir := g.getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(cfgDir) {
		home := g.getenv("HOME")
		if home == "" {
			return "", errors.New("no home directory: give --out")
		}
		cfgDir = filepath.Join(home, ".config")
	}
	return filepath.Join(cfgDir, "mcpfs", "servers.json"), nil
}

// readServers returns the server entries of a client config, as written.
func readServers(path, key string) (map[string]json.RawMessage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object: %v", path, err)
	}
	servers := map[string]json.RawMessage{}
	if raw, ok := top[key]; ok {
		if err := json.Unmarshal(raw, &servers); err != nil {
			return nil, fmt.Errorf("%s: %s is not an object: %v", path, key, err)
		}
	}
	return servers, nil
}

// isMcpfsEntry reports whether a server entry starts mcpfs.
func isMcpfsEntry(raw json.RawMessage) bool {
	var e struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	json.Unmarshal(raw, &e)
	return filepath.Base(e.Command) == "mcpfs" || (len(e.Args) > 0 && e.Args[0] == "serve" && strings.Contains(e.Command, "mcpfs"))
}

func newInitCmd(g *globals) *cobra.Command {
	var (
		out    string
		dryRun bool
		force  bool
	)
	cmd := &cobra.Command{
		Use:   "init [--out FILE] [--dry-run] [--force]",
		Short: "Write a config of mcpfs's own from the MCP clients' configs",
		Long: `Collect the MCP servers of every client config found (Claude Desktop,
Claude Code, Cursor, VS Code, and ./.mcp.json), leave out mcpfs's own
entries, and write them as a config of mcpfs's own: by default
<user config dir>/mcpfs/servers.json, where mcpfs looks first after
--config, $MCPFS_CONFIG and ./.mcp.json. A server name found in two clients
with different entries is kept once per client (name-client). Then
mcpfs install <client> points each client at mcpfs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				p, err := g.mcpfsConfigPath()
				if err != nil {
					return err
				}
				out = p
			}
			out = g.abs(out)
			merged := map[string]json.RawMessage{}
			from := map[string]string{}
			for _, c := range clients {
				p, err := g.clientPath(c)
				if err != nil {
					continue
				}
				servers, err := readServers(p, c.key)
				if errors.Is(err, iofs.ErrNotExist) {
					continue
				}
				if err != nil {
					fmt.Fprintf(g.stderr, "mcpfs: skipping %s: %v\n", c.name, err)
					continue
				}
				for _, name := range slices.Sorted(maps.Keys(servers)) {
					raw := servers[name]
					if isMcpfsEntry(raw) {
						continue
					}
					if prev, ok := merged[name]; ok {
						if jsonEqual(prev, raw) {
							continue
						}
						name = name + "-" + c.id
					}
					merged[name] = raw
					from[name] = c.name
				}
			}
			if len(merged) == 0 {
				return fmt.Errorf("no MCP servers found in any client config (%s): write %s by hand (see the README)", strings.Join(clientIDs(), ", "), out)
			}
			data, err := json.MarshalIndent(map[string]any{"mcpServers": merged}, "", "  ")
			if err != nil {
				return err
			}
			data = append(data, '\n')
			for _, name := range slices.Sorted(maps.Keys(merged)) {
				fmt.Fprintf(g.stderr, "mcpfs: %s (from %s)\n", name, from[name])
			}
			if dryRun {
				g.stdout.Write(data)
				return nil
			}
			if _, err := os.Stat(out); err == nil && !force {
				return usagef("%s exists: --force replaces it (its servers are above; --dry-run prints the new config)", out)
			}
			if err := writeFileAtomic(out, data, 0o600); err != nil {
				return err
			}
			fmt.Fprintf(g.stderr, "mcpfs: wrote %s (%s); mcpfs reads it by default. Next: mcpfs install <%s>\n", out, plural(len(merged), "server"), strings.Join(clientIDs(), "|"))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the config to `file` (default <user config dir>/mcpfs/servers.json)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the config instead of writing it")
	cmd.Flags().BoolVar(&force, "force", false, "replace the file when it exists")
	return cmd
}

func newInstallCmd(g *globals) *cobra.Command {
	var (
		yes    bool
		config string
	)
	cmd := &cobra.Command{
		Use:   "install CLIENT",
		Short: "Add mcpfs to an MCP client's config (" + strings.Join(clientIDs(), ", ") + ")",
		Long: `Add an "mcpfs" entry (mcpfs serve with a config of mcpfs's own) to the
config of an MCP client: ` + strings.Join(clientIDs(), ", ") + `. The change is shown
first and written only when you say yes (or with --yes); the old file is
kept beside it as .bak. The client's other servers stay: remove the ones
mcpfs serves so the agent sees each server once, through mcpfs.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var c *mcpClient
			for i := range clients {
				if clients[i].id == args[0] && clients[i].id != "project" {
					c = &clients[i]
				}
			}
			if c == nil {
				return usagef("unknown client %q (want one of %s)", args[0], strings.Join(clientIDs(), ", "))
			}
			if config == "" {
				p, err := g.mcpfsConfigPath()
				if err != nil {
					return err
				}
				config = p
			}
			config = g.abs(config)
			if _, err := os.Stat(config); err != nil {
				return usagef("mcpfs's config %s does not exist: run mcpfs init first, or give --config-file", config)
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			path, err := g.clientPath(*c)
			if err != nil {
				return err
			}
			var top map[string]json.RawMessage
			old, err := os.ReadFile(path)
			switch {
			case errors.Is(err, iofs.ErrNotExist):
				top = map[string]json.RawMessage{}
			case err != nil:
				return err
			default:
				if err := json.Unmarshal(old, &top); err != nil {
					return fmt.Errorf("%s is not a JSON object: %v; fix it first", path, err)
				}
			}
			servers := map[string]json.RawMessage{}
			if raw, ok := top[c.key]; ok {
				if err := json.Unmarshal(raw, &servers); err != nil {
					return fmt.Errorf("%s: %s is not an object: %v", path, c.key, err)
				}
			}
			entry := map[string]any{"command": exe, "args": []string{"serve", "--config", config}}
			if c.key == "servers" {
				entry["type"] = "stdio"
			}
			eraw, _ := json.Marshal(entry)
			if prev, ok := servers["mcpfs"]; ok && jsonEqual(prev, eraw) {
				fmt.Fprintf(g.stderr, "mcpfs: %s already has this mcpfs entry (%s)\n", c.name, path)
				return nil
			}
			servers["mcpfs"] = eraw
			top[c.key], _ = json.Marshal(servers)
			data, err := json.MarshalIndent(top, "", "  ")
			if err != nil {
				return err
			}
			data = append(data, '\n')
			pretty, _ := json.MarshalIndent(entry, "    ", "  ")
			fmt.Fprintf(g.stdout, "%s: %s\n+ %q: %s\n", path, c.key, "mcpfs", pretty)
			var others []string
			for name := range servers {
				if name != "mcpfs" {
					others = append(others, name)
				}
			}
			if len(others) > 0 {
				fmt.Fprintf(g.stdout, "(it keeps its other servers: %s; remove those mcpfs serves)\n", strings.Join(slices.Sorted(slices.Values(others)), ", "))
			}
			if !yes {
				fmt.Fprint(g.stderr, "write it? [y/N] ")
				line, _ := bufio.NewReader(g.stdin).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
					return errors.New("nothing written")
				}
			}
			if len(old) > 0 {
				if err := os.WriteFile(path+".bak", old, 0o600); err != nil {
					return fmt.Errorf("keep the old config: %w", err)
				}
			}
			if err := writeFileAtomic(path, data, 0o600); err != nil {
				return err
			}
			fmt.Fprintf(g.stderr, "mcpfs: added mcpfs to %s (%s); restart the client to use it\n", c.name, path)
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "write without asking")
	cmd.Flags().StringVar(&config, "config-file", "", "the mcpfs config the client's mcpfs serve reads (default: the one mcpfs init writes)")
	return cmd
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// writeFileAtomic writes data to path through a temporary file renamed
// over it, creating the folder.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mcpfs-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
