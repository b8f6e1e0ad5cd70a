package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"text/template"
)

type row struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

func report(w io.Writer, rows []row) {
	for _, r := range rows {
		fmt.Fprintf(w, "%s=%d\n", r.Name, r.Count)
	}
}

func main() {
	rows := []row{{"alpha", 3}, {"beta", 12}}
	fmt.Println("start")
	fmt.Fprintln(os.Stdout, "to stdout")
	fmt.Fprintln(os.Stderr, "to stderr")
	fmt.Println("between")
	fmt.Fprintf(os.Stdout, "%d rows\n", len(rows))

	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCOUNT")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\n", r.Name, r.Count)
	}
	tw.Flush()

	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rows[0]); err != nil {
		fmt.Println(err)
	}

	t := template.Must(template.New("r").Parse("{{range .}}- {{.Name}}\n{{end}}"))
	if err := t.Execute(os.Stdout, rows); err != nil {
		fmt.Println(err)
	}

	var buf bytes.Buffer
	buf.WriteString("from a buffer\n")
	buf.WriteTo(os.Stdout)
	io.Copy(os.Stdout, strings.NewReader("copied\n"))
	os.Stdout.WriteString("written\n")
	os.Stdout.Write([]byte("bytes\n"))

	var out io.Writer = os.Stdout
	if len(rows) > 5 {
		out = os.Stderr
	}
	report(out, rows)
	report(io.MultiWriter(os.Stdout, os.Stderr), rows[:1])
	w := os.Stdout
	fmt.Fprintln(w, "end")
}

// Output:
// start
// to stdout
// between
// 2 rows
// NAME   COUNT
// alpha  3
// beta   12
// {
//   "name": "alpha",
//   "count": 3
// }
// - alpha
// - beta
// from a buffer
// copied
// written
// bytes
// alpha=3
// beta=12
// alpha=3
// end
