package search

import _ "embed"

// The tests embed the thesaurus that the package leaves out while it is
// off (see thesaurusGz).
//
//go:embed wordnet/thesaurus.gz
var thesaurusTable []byte

func init() { thesaurusGz = thesaurusTable }
