package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
)

// watchedConfig writes data as a config file in a temp dir and returns a
// func that replaces it atomically (as editors do), the globals that name
// it (with a data dir beside it) and the buffer their log goes to.
func watchedConfig(t *testing.T, data string) (write func(string), g *globals, logs *lockedBuffer) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "servers.json")
	write = func(data string) {
		t.Helper()
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	write(data)
	logs = &lockedBuffer{}
	g = &globals{config: path, connectTimeout: 5 * time.Second, dataDir: filepath.Join(dir, "data"),
		stdin: strings.NewReader(""), stdout: io.Discard, stderr: logs}
	g.log = newLogger(logs, 1)
	return write, g, logs
}

// TestEngineFollowsConfigEdits edits the config file of a running engine:
// a server added appears, a server removed disappears, and an edit that
// breaks the file is reported while the last good config stays in use.
func TestEngineFollowsConfigEdits(t *testing.T) {
	write, g, logs := watchedConfig(t, `{"mcpServers": {"one": {"command": "nosuch-mcpfs-test-server", "type": "stdio"}}}`)
	// "one" runs a command that is not there: it fails, which is fine here.
	cfg, err := g.loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	e := engine.Start(context.Background(), cfg, g.engineOptions(engine.Options{}))
	defer e.Close()

	waitTree := func(what string, ok func(names []string) bool) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			var names []string
			entries, _ := e.Tree().ReadDir("servers")
			for _, en := range entries {
				names = append(names, en.Name())
			}
			if ok(names) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s: servers/ has %v", what, names)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	has := func(names []string, n string) bool {
		for _, x := range names {
			if x == n {
				return true
			}
		}
		return false
	}

	write(`{"mcpServers": {"one": {"command": "nosuch-mcpfs-test-server", "type": "stdio"}, "two": {"command": "nosuch-server"}}}`)
	waitTree("server two to be added", func(n []string) bool { return has(n, "one") && has(n, "two") })

	write(`{"mcpServers": {"two": {"command": "nosuch-server", "args": "broken"}}}`)
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(logs.String(), "not valid; still using the last good one") {
		if time.Now().After(deadline) {
			t.Fatalf("a broken edit was not reported; log:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := len(e.Config().Servers); got != 2 {
		t.Errorf("after a broken edit: got %d servers in use, want the last good 2", got)
	}

	write(`{"mcpServers": {"two": {"command": "nosuch-server"}}}`)
	waitTree("server one to be removed", func(n []string) bool { return !has(n, "one") && has(n, "two") })
}

// lockedBuffer is a log sink that goroutines may write while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
