package shim

import "io"

// OSPath is the import path that exec/check gives a snippet's import of
// "os": the package there (OSSymbols) holds Stdout and Stderr, writers
// over the run's own output, and the type File they have; nothing else of
// os reaches a snippet.
const OSPath = "mcpfs/internal/os"

// File is what os.Stdout and os.Stderr are in a snippet: a writer, with
// the two write methods of *os.File and nothing else (no Close, Fd, Name,
// Sync, ...).
type File struct{ w io.Writer }

// Write writes p to the run's output, as fmt.Print does.
func (f *File) Write(p []byte) (int, error) { return f.w.Write(p) }

// WriteString writes s to the run's output.
func (f *File) WriteString(s string) (int, error) { return io.WriteString(f.w, s) }
