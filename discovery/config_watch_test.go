package discovery

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWatchConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "servers.json")
	write := func(data string) {
		t.Helper()
		// Like an editor: write a new file and rename it over the old one.
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"mcpServers": {"a": {"command": "x"}}}`)
	cfg, err := Load(path, LoadOptions{Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}

	changes := make(chan *Config, 10)
	errs := make(chan error, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		WatchConfig(ctx, cfg, 10*time.Millisecond, noEnv,
			func(c *Config) { changes <- c },
			func(err error) { errs <- err })
	}()
	defer func() { cancel(); <-done }()

	recv := func(what string) any {
		t.Helper()
		select {
		case c := <-changes:
			return c
		case err := <-errs:
			return err
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s reported", what)
			return nil
		}
	}

	// A server added.
	write(`{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}`)
	if c, ok := recv("change").(*Config); !ok || len(c.Servers) != 2 {
		t.Fatalf("after adding a server: got %v, want a config with 2 servers", c)
	}
	// Broken by an edit: reported, with where.
	write(`{"mcpServers": {"a": {"command": "x", "args": "oops"}}}`)
	err, ok := recv("error").(error)
	if !ok || !errors.Is(err, ErrConfig) {
		t.Fatalf("after breaking the file: got %v, want a config error", err)
	}
	// Fixed again, with a server removed.
	write(`{"mcpServers": {"b": {"command": "y"}}}`)
	if c, ok := recv("change").(*Config); !ok || len(c.Servers) != 1 || c.Servers[0].Name != "b" {
		t.Fatalf("after fixing the file: got %v, want a config with server b only", c)
	}
	// Touched without a change to its servers: nothing reported.
	write(`{"mcpServers": {"b": {"command": "y"}}, "other": 1}`)
	select {
	case c := <-changes:
		t.Errorf("a change that left the servers alone was reported: %+v", c)
	case err := <-errs:
		t.Errorf("unexpected error: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	// Only the "mcpfs" settings changed: reported.
	write(`{"mcpServers": {"b": {"command": "y"}}, "other": 1, "mcpfs": {"sandbox": "strict"}}`)
	if c, ok := recv("change").(*Config); !ok || c.Settings.Sandbox != "strict" {
		t.Fatalf("after changing the settings: got %v, want a config with sandbox strict", c)
	}
}
