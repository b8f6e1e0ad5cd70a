package engine

import (
	"fmt"
	"log/slog"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpfs/mcpfs/discovery"
)

// ServedByEnv is set in the environment of every stdio server mcpfs
// starts, to the config it serves. An mcpfs started that way (a config
// that lists mcpfs itself, as a client's config does once mcpfs is added
// to it) starts no servers of its own, so mcpfs never runs inside itself.
const ServedByEnv = "MCPFS_SERVED_BY"

// DropSelf returns cfg without the servers whose command is this mcpfs
// executable serving a config (mcpfs serve; mcpfs builtin is a server of
// its own), each noted in the log.
func DropSelf(cfg *discovery.Config, log *slog.Logger) *discovery.Config {
	self, err := os.Executable()
	if err != nil {
		return cfg
	}
	selfInfo, err := os.Stat(self)
	if err != nil {
		return cfg
	}
	out := *cfg
	out.Servers = make([]discovery.ServerConfig, 0, len(cfg.Servers))
	for _, sc := range cfg.Servers {
		if sc.Command != "" && servesItself(sc) && isExecutable(sc, selfInfo) {
			if log != nil {
				log.Info(fmt.Sprintf("servers/%s: skipped: its command is mcpfs itself (%s %s); mcpfs does not start itself as one of its servers", sc.Name, sc.Command, strings.Join(sc.Args, " ")))
			}
			continue
		}
		out.Servers = append(out.Servers, sc)
	}
	return &out
}

// servesItself reports whether the arguments of an entry whose command
// is mcpfs make it serve (mcpfs serve): anything else (mcpfs builtin
// NAME, a test binary) is a server of its own.
func servesItself(sc discovery.ServerConfig) bool {
	return slices.Contains(sc.Args, "serve")
}

// isExecutable reports whether the command of sc is the file of self.
func isExecutable(sc discovery.ServerConfig, self os.FileInfo) bool {
	path := sc.Command
	if !strings.Contains(path, "/") {
		var err error
		if p, ok := sc.Env["PATH"]; ok {
			path, err = LookPathList(path, p)
		} else {
			path, err = osexec.LookPath(path)
		}
		if err != nil {
			return false
		}
	}
	info, err := os.Stat(path)
	return err == nil && os.SameFile(info, self)
}

// LookPathList finds an executable name in the folders of pathList.
func LookPathList(name, pathList string) (string, error) {
	for _, dir := range filepath.SplitList(pathList) {
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", osexec.ErrNotFound
}

// ConfigName names a config path for messages.
func ConfigName(path string) string {
	if path == "" {
		return "the built-in default"
	}
	return path
}
