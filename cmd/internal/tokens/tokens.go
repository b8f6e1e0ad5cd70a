// Package tokens counts tokens the way mcpfs's benchmark does: the
// o200k_base BPE encoding, its tables compiled into the binary (no
// network), loaded on first use (about 17 ms and 7 MiB of heap), and the
// text a client hands the model for a tool call's result.
package tokens

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"
)

// Encoding is the BPE encoding every count uses.
const Encoding = "o200k_base"

var (
	once  sync.Once
	coder *codec.Codec
)

// Count returns the number of tokens of s; a text the encoder refuses
// counts one token per byte.
func Count(s string) int {
	if s == "" {
		return 0
	}
	once.Do(func() { coder = codec.NewO200kBase() })
	n, err := coder.Count(s)
	if err != nil {
		return len(s)
	}
	return n
}

// ResultText is what an MCP client hands the model for a tools/call
// result: the text of each content block (other blocks as their JSON), one
// after another. structuredContent is counted only when content is empty:
// servers that return structured output also put it, serialized, in a text
// block, and counting both would double the direct way's cost. A raw that
// is not a result object is taken as it is.
func ResultText(raw json.RawMessage) string {
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
