//go:build race

package exec

// raceEnabled: the race detector's shadow memory does not fit the worker's
// memory limits, and it slows the interpreter tenfold.
const raceEnabled = true
