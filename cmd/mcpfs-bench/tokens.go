package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tiktoken-go/tokenizer"
)

// encodingName is the BPE encoding every count uses.
const encodingName = "o200k_base"

// counter counts tokens with a real BPE tokenizer whose tables are compiled
// into the binary: no network, same counts on every machine.
type counter struct {
	codec tokenizer.Codec
}

func newCounter() (*counter, error) {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil, fmt.Errorf("load the %s tokenizer: %w", encodingName, err)
	}
	return &counter{codec: c}, nil
}

// count returns the number of tokens of s.
func (c *counter) count(s string) int {
	if s == "" {
		return 0
	}
	n, err := c.codec.Count(s)
	if err != nil {
		// The codec fails only on invalid UTF-8; count bytes then, which
		// overstates nothing in mcpfs's favour (every text counted here
		// is either JSON or Go source, both valid UTF-8).
		return len(s)
	}
	return n
}

// part is one piece of text that passes through the model's context: a
// tool definition block, a call's arguments or result, an ls, a cat, a
// snippet, a printed summary.
type part struct {
	What   string
	Bytes  int
	Tokens int
}

// ledger collects the parts of one way of doing a workload.
type ledger struct {
	c     *counter
	Parts []part
}

func (l *ledger) add(what, text string) {
	l.Parts = append(l.Parts, part{What: what, Bytes: len(text), Tokens: l.c.count(text)})
}

// Tokens is the sum over every part.
func (l *ledger) Tokens() int {
	n := 0
	for _, p := range l.Parts {
		n += p.Tokens
	}
	return n
}

// Bytes is the sum over every part.
func (l *ledger) Bytes() int {
	n := 0
	for _, p := range l.Parts {
		n += p.Bytes
	}
	return n
}

// resultText is what an MCP client hands the model for a tools/call
// result: the text of each content block (other blocks as their JSON), one
// after another. structuredContent is counted only when content is empty:
// servers that return structured output also put it, serialized, in a text
// block, and counting both would double the direct way's cost.
func resultText(raw json.RawMessage) string {
	var res struct {
		Content    []json.RawMessage `json:"content"`
		Structured json.RawMessage   `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return string(raw)
	}
	var b strings.Builder
	for i, c := range res.Content {
		if i > 0 {
			b.WriteByte('\n')
		}
		var block struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(c, &block) == nil && block.Type == "text" {
			b.WriteString(block.Text)
			continue
		}
		b.Write(c)
	}
	if len(res.Content) == 0 && len(res.Structured) > 0 {
		b.Write(res.Structured)
	}
	return b.String()
}
