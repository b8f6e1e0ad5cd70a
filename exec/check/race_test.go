//go:build race

package check

// raceEnabled: yaegi v0.16.1 itself has data races when interpreted
// goroutines run closures (interp/run.go, getFunc), which the race detector
// reports against whatever test runs them in process.
const raceEnabled = true
