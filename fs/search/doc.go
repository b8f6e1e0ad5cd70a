// Package search ranks the tools of a catalog, and saved skills, for a
// query written the way a user states a need ("save text to a file", "open
// a web page in the browser"), not only with a tool's own words.
//
// Every face shares it: search_tools of `mcpfs serve`, `mcpfs search`, and
// the mount's search/ folder. An Index is built from documents (ToolDocs
// from a discovery.Catalog, SkillDocs from the tree's skills, or FromTree
// for both) and ranks them with BM25F over weighted fields (the tool name
// split into words, its title and description, its argument names and
// descriptions, the server's name), with stemming and a vocabulary of the
// words people use for tool actions and objects (vocab.go).
//
// The package is pure and kernel-free: it imports the catalog and tree
// types and the standard library only, reads no files and starts nothing.
package search
