// Package search ranks the tools of a catalog, and saved skills, for a
// query written the way a user states a need ("save text to a file", "open
// a web page in the browser"), not only with a tool's own words.
//
// Every face shares it:
//
//   - search_tools of `mcpfs serve` (cmd/internal/mcpserver) indexes the tree's
//     catalog and skills with ToolDocs and SkillDocs, adds its sources'
//     entries, and prints a line per hit (Line) or the hits' declarations;
//   - `mcpfs search QUERY` prints Indexer.Search(tree, QUERY, n);
//   - the mount's read-only search/ folder serves, for a file
//     search/<query>, the same text (words in a file name may be joined by
//     "-", "_" or "+": they split like spaces).
//
// An Index is built from documents (ToolDocs from a discovery.Catalog,
// SkillDocs from the tree's skills, or FromTree for both) and ranks them
// with BM25F over weighted fields (the tool name split into words, its
// title and description, its argument names and descriptions, the
// server's name), with stemming, a vocabulary of the words people use for
// tool actions and objects (vocab.go), words a query implies by the form
// of what it names (a coordinate pair, "#channel", "@user", a domain, a
// file's extension: classes.go), a boost for documents whose name the
// query covers, a smaller one for documents that have the query's
// neighbouring words side by side, a preference for the tools of a
// server the query names, and, for a query word neither the catalog nor
// the vocabulary knows, the catalog's words nearest to it by GloVe word
// vectors (vectors.go, TestVectors), and, for every query word, the
// words of tool texts that the tools wanted for labelled queries with that
// word have, learned as a translation model learns them (assoc.go,
// TestAssoc), and, for the labelled queries most like the query, the
// tools they were labelled with (examples.go, TestExamplesTransfer).
// Its numbers are params (index.go);
// expand.go has pseudo-relevance feedback, catalog co-occurrence and
// character trigrams, wordnet.go a WordNet thesaurus, vectors.go a
// whole-query similarity, all measured and off (TestTune, TestTechniques,
// TestWordNet, TestVectors). docs/BENCHMARKS.md has its recall on real
// servers.
//
// The package is pure and kernel-free: it imports the catalog and tree
// types and the standard library only, reads no files and starts nothing.
package search
