// Package errorrate computes error rates of the docstore access log.
package errorrate

import (
	"fmt"
	"sort"
	"strconv"

	"mcpfs/mcp"
	"mcpfs/servers/docstore"
)

// Rate is the error rate of one value of a column.
type Rate struct {
	Key      string  `json:"key"`
	Requests int     `json:"requests"`
	Errors   int     `json:"errors"`
	Rate     float64 `json:"rate"`
}

// By returns the error rate for every value of column, highest first.
func By(column string) ([]Rate, error) {
	rows, err := docstore.QueryRows(docstore.QueryRowsArgs{Id: "access-log", Limit: mcp.Int(10000)})
	if err != nil {
		return nil, fmt.Errorf("read the access log: %w", err)
	}
	if len(rows.Rows) > 0 {
		if _, ok := rows.Rows[0][column]; !ok {
			return nil, fmt.Errorf("the access log has no column %q (it has %v)", column, rows.Columns)
		}
	}
	index := map[string]int{}
	var out []Rate
	for _, r := range rows.Rows {
		key := r[column]
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, Rate{Key: key})
		}
		out[i].Requests++
		if status, _ := strconv.Atoi(r["status"]); status >= 500 {
			out[i].Errors++
		}
	}
	for i := range out {
		out[i].Rate = float64(out[i].Errors) / float64(out[i].Requests)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Rate != out[j].Rate {
			return out[i].Rate > out[j].Rate
		}
		return out[i].Key < out[j].Key
	})
	return out, nil
}
