package main

import (
	"encoding/json"

	"github.com/mcpfs/mcpfs/cmd/internal/tokens"
)

// encodingName is the BPE encoding every count uses.
const encodingName = tokens.Encoding

// counter counts tokens as cmd/internal/tokens does (the page counts the
// same way): a real BPE tokenizer whose tables are compiled into the
// binary, no network, same counts on every machine.
type counter struct{}

func newCounter() (*counter, error) { return &counter{}, nil }

// count returns the number of tokens of s. Every text counted here is
// JSON or Go source, valid UTF-8.
func (c *counter) count(s string) int { return tokens.Count(s) }

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
// result (tokens.ResultText).
func resultText(raw json.RawMessage) string { return tokens.ResultText(raw) }
