package search

import (
	"sync"

	mcpfs "github.com/mcpfs/mcpfs/fs"
)

// Indexer keeps the index of the latest tree it was asked about, so that
// a face serving many searches (the mount's search/ folder, a resident
// engine answering `mcpfs search`) indexes each catalog once. The zero
// value is ready to use; it is safe for concurrent use.
type Indexer struct {
	mu   sync.Mutex
	tree *mcpfs.Tree
	idx  *Index
}

// Index returns the index of t, built the first time t is seen and kept
// until another tree is asked about.
func (c *Indexer) Index(t *mcpfs.Tree) *Index {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.idx == nil || c.tree != t {
		c.tree, c.idx = t, FromTree(t)
	}
	return c.idx
}

// Search ranks the tools and skills of t for query and formats the best n
// hits, a line each (Format): what `mcpfs search QUERY` prints and what
// the mount's search/<query> holds.
func (c *Indexer) Search(t *mcpfs.Tree, query string, n int) string {
	x := c.Index(t)
	return Format(query, x.Search(query, n), x.Len())
}
