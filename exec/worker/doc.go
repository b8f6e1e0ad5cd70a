// Package worker is the process side of snippet execution: the mcpfs binary
// re-executed with a marker argument confines itself (exec/internal/sandbox), tells
// its parent it is ready, receives one job over the control channel (file
// descriptor 3), interprets the snippet with yaegi, and exits. Tool calls
// the snippet makes travel to the parent as messages on the same channel;
// the snippet's standard output and error are file descriptors 1 and 2,
// separate from the control channel, so nothing it prints can corrupt the
// protocol.
//
// A program that embeds the worker calls IsWorker first thing in main and,
// when it reports true, exits with Main's status before doing anything else.
// The parent side lives in package exec; this package must not import it.
package worker
