// Package os holds File, the type of a snippet's os.Stdout and os.Stderr
// (shim.OSSymbols). It is a package named os so that the type's name is
// os.File: %T of a writer that holds os.Stdout prints *os.File, as Go
// prints it.
package os

import "io"

// File is a writer over the run's own output, with the two write methods
// of *os.File and nothing else (no Close, Fd, Name, Sync, ...).
type File struct{ w io.Writer }

// New returns the File that writes to w.
func New(w io.Writer) *File { return &File{w: w} }

// Write writes p to the run's output, as fmt.Print does.
func (f *File) Write(p []byte) (int, error) { return f.w.Write(p) }

// WriteString writes s to the run's output.
func (f *File) WriteString(s string) (int, error) { return io.WriteString(f.w, s) }
