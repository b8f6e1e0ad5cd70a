package main

import (
	"fmt"

	"github.com/mcpfs/mcpfs/cmd/internal/engine"
)

// nestedError is why a command that needs servers refuses to run in an
// mcpfs that mcpfs started as one of its servers; "" when it was not.
func (g *globals) nestedError() error {
	by, ok := g.lookupEnv(engine.ServedByEnv)
	if !ok {
		return nil
	}
	return fmt.Errorf("this mcpfs was started by mcpfs as one of the servers of %s, and starts no servers of its own (mcpfs would run inside itself): remove its entry from that config, or give mcpfs a config of its own (--config)", configName(by))
}
