//go:build cgo

package exec

// withCgo says whether this binary uses cgo: Landlock then goes through
// libpsx, which cannot work in a PID namespace of its own (see nsLayers).
const withCgo = true
