package discovery

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// LoadOptions says where Load looks. The zero value means the process's own
// environment, working directory and user config directory.
type LoadOptions struct {
	// Getenv looks up environment variables, for $MCPFS_CONFIG and
	// $MCP_SERVERS_CONFIG and for ${VAR} in the file; nil means os.LookupEnv.
	Getenv func(string) (string, bool)
	// WorkDir is where ./.mcp.json is looked for and relative paths start;
	// "" means the current directory.
	WorkDir string
	// UserConfigDir holds mcpfs/servers.json and Claude/ (Claude Desktop);
	// "" means os.UserConfigDir. It is ~/.config on Linux (or
	// $XDG_CONFIG_HOME), ~/Library/Application Support on macOS and
	// %APPDATA% on Windows: the directories Claude Desktop uses too.
	UserConfigDir string
}

// Load finds the config file and parses it. The first of these that is set
// or exists wins:
//
//  1. explicitPath (the --config flag)
//  2. $MCPFS_CONFIG
//  3. $MCP_SERVERS_CONFIG
//  4. ./.mcp.json (Claude Code's project file)
//  5. <user config dir>/mcpfs/servers.json
//  6. the Claude Desktop config: <user config dir>/Claude/claude_desktop_config.json
//
// A path given by the flag or a variable must exist: it is an error, not a
// reason to look further. When no file is found, Load returns DefaultConfig.
// Every error matches ErrConfig.
func Load(explicitPath string, opts LoadOptions) (*Config, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.LookupEnv
	}
	workDir := opts.WorkDir
	if workDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, &ConfigError{Msg: fmt.Sprintf("find the current directory: %v", err), Err: err}
		}
		workDir = wd
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(workDir, p)
	}

	// Named explicitly: must exist.
	named := []struct{ source, path, hint string }{
		{"--config", explicitPath, "check the path given with --config"},
	}
	for _, v := range []string{"MCPFS_CONFIG", "MCP_SERVERS_CONFIG"} {
		if p, ok := getenv(v); ok && p != "" {
			named = append(named, struct{ source, path, hint string }{"$" + v, p, "fix $" + v + " or unset it"})
		}
	}
	for _, n := range named {
		if n.path == "" {
			continue
		}
		path := abs(n.path)
		if _, err := os.Stat(path); errors.Is(err, iofs.ErrNotExist) {
			return nil, &ConfigError{File: path, Msg: fmt.Sprintf("no such file (named by %s); %s", n.source, n.hint), Err: err}
		}
		return loadFile(path, n.source, getenv)
	}

	// Well-known places: the first that exists.
	candidates := []struct{ source, path string }{
		{"./.mcp.json", filepath.Join(workDir, ".mcp.json")},
	}
	configDir := opts.UserConfigDir
	if configDir == "" {
		configDir, _ = os.UserConfigDir() // no home directory: skip these places
	}
	if configDir != "" {
		candidates = append(candidates,
			struct{ source, path string }{"user config dir", filepath.Join(configDir, "mcpfs", "servers.json")},
			struct{ source, path string }{"Claude Desktop config", claudeDesktopConfigPath(configDir)},
		)
	}
	for _, c := range candidates {
		_, err := os.Stat(c.path)
		if errors.Is(err, iofs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue // ENOTDIR: a file where a directory on the way should be
		}
		if c.source == "Claude Desktop config" && !declaresServers(c.path) {
			continue // Claude Desktop writes this file before any server is added
		}
		return loadFile(c.path, c.source, getenv)
	}
	return DefaultConfig(), nil
}

// declaresServers reports whether the file at path is a JSON object whose
// "mcpServers" has at least one server, or is not valid JSON at all (then
// loading it reports the error). Claude Desktop's config holds other settings too and
// has no "mcpServers" until a server is added.
func declaresServers(path string) bool {
	data, err := readConfigFile(path)
	if err != nil {
		return true
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), &top); err != nil {
		return true
	}
	raw, ok := top["mcpServers"]
	if !ok {
		return false
	}
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(raw, &servers); err != nil {
		return true
	}
	return len(servers) > 0
}

// claudeDesktopConfigPath is where Claude Desktop keeps its config, given the
// user config directory (Electron's appData: the same directory on Linux,
// macOS and Windows).
func claudeDesktopConfigPath(userConfigDir string) string {
	return filepath.Join(userConfigDir, "Claude", "claude_desktop_config.json")
}

// loadFile reads and parses the config file at path.
func loadFile(path, source string, getenv func(string) (string, bool)) (*Config, error) {
	data, err := readConfigFile(path)
	if err != nil {
		return nil, err
	}
	cfg, err := Parse(path, data, getenv)
	if err != nil {
		return nil, err
	}
	cfg.Source = source
	return cfg, nil
}

// readConfigFile reads at most maxConfigSize bytes from path, with an error
// a user can act on when it cannot.
func readConfigFile(path string) ([]byte, error) {
	fail := func(msg string, err error) error {
		return &ConfigError{File: path, Msg: msg, Err: err}
	}
	f, err := os.Open(path)
	if err != nil {
		switch {
		case errors.Is(err, iofs.ErrPermission):
			return nil, fail("cannot read the file: permission denied; check its permissions (chmod u+r)", err)
		case errors.Is(err, iofs.ErrNotExist):
			return nil, fail("no such file", err)
		}
		return nil, fail(fmt.Sprintf("cannot open the file: %v", unwrapPathError(err)), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fail(fmt.Sprintf("cannot stat the file: %v", unwrapPathError(err)), err)
	}
	if fi.IsDir() {
		return nil, fail("is a directory, not a config file; give the path of a JSON file", nil)
	}
	if fi.Mode().IsRegular() && fi.Size() > maxConfigSize {
		return nil, fail(fmt.Sprintf("file is %d bytes; a config file may be at most %d bytes (4 MiB)", fi.Size(), maxConfigSize), nil)
	}
	// Not only regular files: --config <(generate-config) gives a pipe.
	data, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return nil, fail(fmt.Sprintf("cannot read the file: %v", unwrapPathError(err)), err)
	}
	if len(data) > maxConfigSize {
		return nil, fail(fmt.Sprintf("file is over %d bytes (4 MiB), the most a config file may be", maxConfigSize), nil)
	}
	return data, nil
}

// unwrapPathError drops the *PathError wrapper, whose path the ConfigError
// already shows.
func unwrapPathError(err error) error {
	var pe *iofs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// DefaultConfig is the config used when no file is found: the built-in
// docstore demo server, so that a first run shows something.
func DefaultConfig() *Config {
	return &Config{
		Source: "built-in default",
		Servers: []ServerConfig{{
			Name:      "docstore",
			Key:       "docstore",
			Transport: "builtin",
			Builtin:   "docstore",
		}},
	}
}
