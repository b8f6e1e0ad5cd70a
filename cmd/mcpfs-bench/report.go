package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// thousands formats n with commas: 1234567 → "1,234,567".
func thousands(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// percent formats a fraction with the precision its size needs: 0.99873 →
// "99.87%", 0.153 → "15.3%", 0.00042 → "0.042%".
func percent(f float64) string {
	p := f * 100
	switch {
	case p >= 99 || p <= -99:
		return fmt.Sprintf("%.2f%%", p)
	case p >= 1 || p <= -1:
		return fmt.Sprintf("%.1f%%", p)
	default:
		return fmt.Sprintf("%.3f%%", p)
	}
}

// markdown renders the whole report.
func (r *results) markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	m := r.Meta
	w("# mcpfs benchmark report\n\n")
	w("Written by `%s` (%s mode). Numbers are from one run on the machine below; ", m.Command, m.Mode)
	w("token counts are deterministic for a given commit, timings are not.\n\n")
	w("| | |\n|---|---|\n")
	w("| date | %s |\n", m.Date)
	w("| commit | %s |\n", m.Commit)
	w("| machine | %s; %s; %d cores |\n", m.Machine, m.CPU, m.Cores)
	w("| Go | %s |\n", m.GoVersion)
	w("| tokenizer | %s, %s (BPE tables compiled in, no network) |\n", encodingName, m.Tokenizer)
	w("| servers | %s |\n", strings.Join(r.Servers, "; "))
	w("| FUSE | %s |\n", m.Fuse)
	w("| took | %s |\n\n", m.Took.Round(time.Second))

	w("## Tokens\n\n![Tokens per workload, direct vs mcpfs](tokens.svg)\n\n")
	w("| workload | case | direct | mcpfs | mcpfs / direct | saving | target |\n|---|---|---:|---:|---:|---:|---|\n")
	for _, c := range r.mcpfsCases() {
		target := ""
		if c.Target != "" {
			mark := "met"
			if !c.Met(c) {
				mark = "**missed**"
			}
			target = c.Target + ": " + mark
		}
		w("| %s | %s | %s | %s | %s | **%s** | %s |\n", c.Workload, c.Name, thousands(c.Direct.Tokens()), thousands(c.MCPFS.Tokens()), percent(c.Ratio()), percent(c.Saving()), target)
	}
	w("\nThe published reference for this pattern is 150,000 → 2,000 tokens, 98.7%% fewer.\n\n")
	r.peersTable(w)
	w("### How tokens are counted\n\n")
	w("- **Direct**: what an MCP host puts in the model's context. Up front, the `tools/list` result of every configured server, as the server sent it (every tool's JSON: name, title, description, input and output schema, annotations). ")
	w("Then, for every tool call, the arguments the model writes and the result the host hands back: the text of each content block ")
	w("(structured results are counted once, as the JSON text block the server sends with them, not again as `structuredContent`). ")
	w("The direct way makes exactly the tool calls the snippet made, with the same arguments and results: they are recorded on the way to the servers.\n")
	w("- **mcpfs**: what the agent reads and writes: the output of each `ls`, `cat` and `grep` (run on the FUSE mount when there is one, else the same bytes from the tree), ")
	w("the snippet it writes, and what the snippet prints. The tree's `README.md` (the agent guide) is read once in every case. Tool calls, their arguments and results stay inside the snippet's process.\n")
	w("- **mcpfs serve**: the same agent as an MCP client of `mcpfs serve` (a subprocess over stdio): up front, serve's instructions and its `tools/list` as it sent them; then the arguments of each call the agent makes (`search_tools`, `read_file`, `exec` with the snippet as a JSON string) and the text of each result.\n")
	w("- **Peers** (with `-peers`): the same tasks done with another tool on the same servers and data: the output of each command an agent runs, the script it writes and what the script prints, counted the same way; the direct side is the mount case's.\n")
	w("- Every figure is a count of real text with %s; nothing is estimated from byte sizes. Servers, data and the synthetic catalog's seed are fixed, so the counts repeat exactly.\n\n", encodingName)

	for _, wl := range []string{"Discovery", "Chaining", "Workflow", "Serve", "Peers"} {
		w("### %s\n\n", wl)
		n := 0
		for _, c := range r.Cases {
			if c.Workload != wl {
				continue
			}
			n++
			w("#### %s\n\n%s.\n\n", c.Name, upperFirst(c.Task))
			w("| | bytes | tokens |\n|---|---:|---:|\n")
			w("| **direct** | **%s** | **%s** |\n", thousands(c.Direct.Bytes()), thousands(c.Direct.Tokens()))
			for _, p := range c.Direct.Parts {
				w("| %s | %s | %s |\n", mdCell(p.What), thousands(p.Bytes), thousands(p.Tokens))
			}
			w("| **%s** | **%s** | **%s** |\n", mdCell(c.way()), thousands(c.MCPFS.Bytes()), thousands(c.MCPFS.Tokens()))
			for _, p := range c.MCPFS.Parts {
				w("| `%s` | %s | %s |\n", mdCell(p.What), thousands(p.Bytes), thousands(p.Tokens))
			}
			w("\n")
			for _, note := range c.Notes {
				w("%s\n\n", note)
			}
			if c.Transcript != "" {
				w("<details><summary>What the commands printed</summary>\n\n```\n%s```\n\n</details>\n\n", c.Transcript)
			}
			if c.Snippet != "" {
				what, lang := "snippet", "go"
				if c.Way != "" {
					what, lang = "script", "js"
				}
				w("<details><summary>The %s and its output</summary>\n\n```%s\n%s```\n\n```\n%s```\n\n</details>\n\n", what, lang, c.Snippet, c.Output)
			}
		}
		for _, p := range r.Pending {
			if strings.HasPrefix(p, wl+": ") {
				w("%s\n\n", strings.TrimPrefix(p, wl+": "))
				n++
			}
		}
		if n == 0 {
			w("Not measured in this run.\n\n")
		}
	}

	w("## Speed\n\n")
	w("Ratios are mcpfs over the baseline: below 1× mcpfs is faster, above 1× slower.\n\n")
	if len(r.Speed) == 0 {
		w("Not measured in this run.\n\n")
	} else {
		w("| | what | mcpfs | baseline | ratio | how |\n|---|---|---:|---:|---:|---|\n")
		for _, s := range r.Speed {
			w("| %s | %s | %s | %s | %s | %s |\n", s.Group, mdCell(s.What), s.Value, s.Baseline, s.Ratio, mdCell(s.Note))
		}
		w("\n")
	}

	w("## go test benchmarks\n\n")
	if len(r.GoBench) == 0 {
		w("Not run (%s).\n\n", r.GoBenchWhy)
	}
	for _, sec := range r.GoBench {
		w("### %s (`-bench '%s'`)\n\n%s; %s.\n\n", sec.Pkg, sec.Pattern, upperFirst(sec.What), sec.Took.Round(time.Second))
		if len(sec.Results) > 0 {
			w("| benchmark | runs | results |\n|---|---:|---|\n")
			for _, res := range sec.Results {
				w("| %s | %s | %s |\n", res.Name, res.N, strings.Join(res.Metrics, ", "))
			}
			w("\n")
		}
		for _, s := range sec.Skipped {
			w("- skipped %s\n", mdCell(s))
		}
		if sec.Err != "" {
			w("- failed: %s\n", mdCell(sec.Err))
		}
		if len(sec.Skipped) > 0 || sec.Err != "" {
			w("\n")
		}
	}

	var other []string
	for _, p := range r.Pending {
		if !strings.HasPrefix(p, "Discovery: ") && !strings.HasPrefix(p, "Chaining: ") && !strings.HasPrefix(p, "Workflow: ") && !strings.HasPrefix(p, "Serve: ") && !strings.HasPrefix(p, "Peers: ") {
			other = append(other, p)
		}
	}
	if len(other) > 0 {
		w("## Not measured\n\n")
		for _, p := range other {
			w("- %s\n", p)
		}
		w("\n")
	}
	return b.String()
}

// peersTable writes, for each task a peer did, the direct way, mcpfs
// through the mount and through serve, and each peer side by side.
func (r *results) peersTable(w func(string, ...any)) {
	type row struct {
		mount *tokenCase
		peers []*tokenCase
	}
	var rows []*row
	var ways []string
	for _, c := range r.Cases {
		if c.Way == "" || c.Of == nil { // mcpfs's own cases, serve's included
			continue
		}
		if !slices.Contains(ways, c.Way) {
			ways = append(ways, c.Way)
		}
		i := slices.IndexFunc(rows, func(x *row) bool { return x.mount == c.Of })
		if i < 0 {
			rows = append(rows, &row{mount: c.Of})
			i = len(rows) - 1
		}
		rows[i].peers = append(rows[i].peers, c)
	}
	if len(rows) == 0 {
		return
	}
	cell := func(c *tokenCase) string {
		if c == nil {
			return "—"
		}
		return fmt.Sprintf("%s (%s)", thousands(c.MCPFS.Tokens()), percent(c.Saving()))
	}
	w("Side by side with the peers (tokens, and the saving against the direct way; every figure measured in this run, same servers, data and tokenizer; details under Peers):\n\n")
	w("| task | direct | mcpfs mount | mcpfs serve |")
	for _, way := range ways {
		w(" %s |", mdCell(way))
	}
	w("\n|---|---:|---:|---:|%s\n", strings.Repeat("---:|", len(ways)))
	for _, x := range rows {
		var serve *tokenCase
		for _, c := range r.Cases {
			if c.Workload == "Serve" && c.Of == x.mount {
				serve = c
			}
		}
		w("| %s | %s | %s | %s |", mdCell(x.mount.Name), thousands(x.mount.Direct.Tokens()), cell(x.mount), cell(serve))
		for _, way := range ways {
			var p *tokenCase
			for _, c := range x.peers {
				if c.Way == way {
					p = c
				}
			}
			w(" %s |", cell(p))
		}
		w("\n")
	}
	w("\n")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// mdCell keeps text from breaking a table row.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
