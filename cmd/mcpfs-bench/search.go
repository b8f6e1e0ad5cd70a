package main

// The intent search (fs/search) joins the go test benchmarks of the report
// and of docs/BENCHMARKS.md: its recall on the query sets beside plain
// BM25 over the generated tool files, the time of one search, and the time
// to index twelve real servers.
func init() {
	goBenchmarks = append(goBenchmarks, struct{ pkg, pattern, what string }{
		"./fs/search", "Recall|Index", "intent search: recall@1/@5 in % on testdata/queries.txt, holdout.txt and fresh.txt, plain BM25 beside; one search; indexing 122 tools",
	})
}
