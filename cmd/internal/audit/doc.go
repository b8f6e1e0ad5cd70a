// Package audit keeps the log of tool calls: one JSON line per call
// (when, which run and face, server, tool, sizes, a hash of the
// arguments, duration, outcome) appended to calls.jsonl in a directory,
// rotated at a size bound to calls.1.jsonl, calls.2.jsonl, ... and read
// back with filters.
//
// It knows nothing of servers, the tree or the kernel.
package audit
