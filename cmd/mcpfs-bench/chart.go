package main

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// tokenChart draws the token comparison as an SVG: per case, a bar for the
// direct way and one for mcpfs, on a logarithmic scale (the two differ by
// up to four orders of magnitude), with the counts and the saving.
func tokenChart(cases []*tokenCase) string {
	const (
		width    = 980
		labelW   = 300
		rightW   = 110
		top      = 56
		rowH     = 54
		barH     = 16
		plotLeft = labelW + 10
	)
	plotW := float64(width - plotLeft - rightW)
	maxTok := 1
	for _, c := range cases {
		maxTok = max(maxTok, c.Direct.Tokens(), c.MCPFS.Tokens())
	}
	lo := 100.0
	hi := math.Pow(10, math.Ceil(math.Log10(float64(maxTok))))
	x := func(v int) float64 {
		f := math.Log10(max(float64(v), lo)) - math.Log10(lo)
		return plotLeft + plotW*f/(math.Log10(hi)-math.Log10(lo))
	}
	height := top + rowH*len(cases) + 40

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="13">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="12" y="22" font-size="16" font-weight="bold">Tokens through the model's context (%s, log scale)</text>`+"\n", encodingName)
	fmt.Fprintf(&b, `<rect x="%d" y="32" width="14" height="10" fill="#9ca3af"/><text x="%d" y="41">direct: every tool definition and every call's arguments and result</text>`+"\n", 12, 30)
	fmt.Fprintf(&b, `<rect x="%d" y="32" width="14" height="10" fill="#2563eb"/><text x="%d" y="41">mcpfs: ls/cat/grep (or serve's tool calls), the snippet, its output</text>`+"\n", 520, 538)

	// Grid: one line per power of ten.
	for p := lo; p <= hi; p *= 10 {
		gx := x(int(p))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e5e7eb"/>`+"\n", gx, top-4, gx, top+rowH*len(cases))
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#6b7280" font-size="11">%s</text>`+"\n", gx, top+rowH*len(cases)+16, shortCount(int(p)))
	}
	for i, c := range cases {
		y := top + rowH*i
		fmt.Fprintf(&b, `<text x="12" y="%d" font-weight="bold">%s</text>`+"\n", y+14, html.EscapeString(c.Workload))
		fmt.Fprintf(&b, `<text x="12" y="%d">%s</text>`+"\n", y+31, html.EscapeString(clipRunes(c.Name, 42)))
		for j, bar := range []struct {
			tok  int
			fill string
		}{{c.Direct.Tokens(), "#9ca3af"}, {c.MCPFS.Tokens(), "#2563eb"}} {
			by := y + 4 + j*(barH+4)
			w := x(bar.tok) - plotLeft
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", plotLeft, by, max(w, 1), barH, bar.fill)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11">%s</text>`+"\n", plotLeft+max(w, 1)+4, by+12, thousands(bar.tok))
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" font-weight="bold" fill="#15803d">−%s</text>`+"\n", width-12, y+24, percent(c.Saving()))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func shortCount(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
