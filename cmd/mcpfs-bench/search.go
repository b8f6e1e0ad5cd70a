package main

import (
	"fmt"
	"strconv"
	"strings"
)

// The intent search (fs/search) joins the go test benchmarks of the report
// and of docs/BENCHMARKS.md: its recall on the query sets beside plain
// BM25 over the generated tool files, the time of one search, and the time
// to index twelve real servers.
func init() {
	goBenchmarks = append(goBenchmarks, struct{ pkg, pattern, what string }{
		"./fs/search", "Recall|Index", "intent search: recall@1/@5 in % on each query set of fs/search/testdata, plain BM25 beside (table below); one search; indexing 122 tools",
	})
}

// recallSets are fs/search's query sets, as BenchmarkRecall names them,
// with what each set is.
var recallSets = []struct{ name, what string }{
	{"queries", "queries.txt, tuned on"},
	{"holdout", "holdout.txt, first round's held-out set (tuned on since)"},
	{"fresh", "fresh.txt, first round's untouched set"},
	{"unseen", "unseen.txt, second round's held-out set (seen while tuning)"},
	{"sealed", "sealed.txt, written after the second round's changes"},
	{"final", "final.txt, written after the third round's changes"},
	{"blind", "blind.txt, written before the fourth round's techniques were measured"},
	{"blind2", "blind2.txt, written from the listings alone by someone who had read neither the search code nor the other sets"},
	{"blind3", "blind3.txt, written the same way after the seventh round"},
	{"blind4", "blind4.txt, written the same way after the ninth round"},
	{"blind5", "blind5.txt, blind: written the same way, never trained on"},
	{"blind6", "blind6.txt, blind: a sixth writer, needs stated mid-task"},
	{"blind7", "blind7.txt, blind: a seventh writer, four kinds of user"},
	{"blind8", "blind8.txt, blind: an eighth writer, eight kinds of user"},
}

// Every set above blind5.txt is in the training of the learned parts
// (fs/search's trainSets): its figure is in sample.

// recallTable renders BenchmarkRecall's metrics of secs as one row per
// query set, fs/search beside plain BM25; "" when it did not run.
func recallTable(secs []goBenchSection) string {
	var metrics map[string]string
	for _, sec := range secs {
		for _, r := range sec.Results {
			if strings.HasPrefix(r.Name, "BenchmarkRecall") {
				metrics = map[string]string{}
				for _, m := range r.Metrics {
					if v, unit, ok := strings.Cut(m, " "); ok {
						metrics[unit] = v
					}
				}
			}
		}
	}
	if metrics == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("| query set | queries | fs/search @1 | @5 | plain BM25 @1 | @5 |\n|---|---:|---:|---:|---:|---:|\n")
	for _, s := range recallSets {
		get := func(unit string) string {
			v, err := strconv.ParseFloat(metrics[s.name+"-"+unit], 64)
			switch {
			case err != nil:
				return "–"
			case strings.HasSuffix(unit, "%"):
				return strconv.FormatFloat(v, 'f', 1, 64) + "%"
			}
			return strconv.FormatFloat(v, 'f', 0, 64)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", s.what, get("queries"),
			get("recall@1%"), get("recall@5%"), get("bm25-recall@1%"), get("bm25-recall@5%"))
	}
	return b.String()
}
