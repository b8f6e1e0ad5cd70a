package search

import _ "embed"

// The tests embed the word vectors that the package leaves out while they
// are off (see vectorsGz).
//
//go:embed vectors/vectors.gz
var vectorsTable []byte

func init() { vectorsGz = vectorsTable }
