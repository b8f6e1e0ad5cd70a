package shim

import osfile "github.com/mcpfs/mcpfs/exec/internal/shim/osfile"

// OSPath is the import path that exec/check gives a snippet's import of
// "os": the package there (OSSymbols) holds Stdout and Stderr, writers
// over the run's own output, and the type File they have; nothing else of
// os reaches a snippet.
const OSPath = "mcpfs/internal/os"

// File is what os.Stdout and os.Stderr are in a snippet: a writer, with
// the two write methods of *os.File and nothing else. It is defined in a
// package named os, so that %T prints *os.File.
type File = osfile.File
