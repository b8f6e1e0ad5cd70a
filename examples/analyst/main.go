// Data analyst: the postgres server's query tool returns rows as JSON
// text. This snippet asks for the 10,000 order rows once, aggregates
// them locally, and prints a five-line summary instead of the rows.
//
//	DATABASE_URL=postgresql://... mcpfs --config examples/configs/analyst.json run examples/analyst/main.go
package main

import (
	"fmt"
	"sort"

	"mcpfs/mcp"
	"mcpfs/servers/postgres"
)

type order struct {
	Region string `json:"region"`
	Amount string `json:"amount"` // numeric columns arrive as strings
}

func main() {
	out, err := postgres.Query(postgres.QueryArgs{Sql: mcp.String("SELECT region, amount FROM orders")})
	if err != nil {
		fmt.Println("query:", err)
		return
	}
	var rows []order
	if err := out.Decode(&rows); err != nil {
		fmt.Println("decode:", err)
		return
	}
	total := map[string]float64{}
	count := map[string]int{}
	for _, r := range rows {
		var v float64
		fmt.Sscan(r.Amount, &v)
		total[r.Region] += v
		count[r.Region]++
	}
	regions := make([]string, 0, len(total))
	for k := range total {
		regions = append(regions, k)
	}
	sort.Slice(regions, func(i, j int) bool { return total[regions[i]] > total[regions[j]] })
	fmt.Printf("%d orders in %d regions\n", len(rows), len(regions))
	for _, k := range regions {
		fmt.Printf("%-9s %5d orders  %11.2f total\n", k, count[k], total[k])
	}
}
