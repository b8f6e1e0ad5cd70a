package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Content is one content block of a tool result: text, image, audio, a
// resource link or an embedded resource, as the MCP spec defines them.
type Content struct {
	Type     string          `json:"type"`
	Text     string          `json:"text,omitempty"`
	Data     string          `json:"data,omitempty"`     // base64, for image and audio
	MimeType string          `json:"mimeType,omitempty"` // for image, audio and resource_link
	URI      string          `json:"uri,omitempty"`      // for resource_link
	Name     string          `json:"name,omitempty"`     // for resource_link
	Resource json.RawMessage `json:"resource,omitempty"` // for resource: {uri, mimeType, text or blob}
}

// Result is a tool's CallToolResult, returned by the functions of tools
// that declare no output schema.
type Result struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// Text returns the text of the result's text blocks, joined by newlines.
func (r Result) Text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Decode unmarshals the result into v: the structured content when the
// result has some, otherwise the text parsed as JSON.
func (r Result) Decode(v any) error {
	if s := strings.TrimSpace(string(r.StructuredContent)); s != "" && s != "null" {
		if err := json.Unmarshal(r.StructuredContent, v); err != nil {
			return fmt.Errorf("decode structuredContent: %w", err)
		}
		return nil
	}
	text := r.Text()
	if strings.TrimSpace(text) == "" {
		return errors.New("decode result: it has neither structuredContent nor text")
	}
	if err := json.Unmarshal([]byte(text), v); err != nil {
		return fmt.Errorf("decode result: no structuredContent, and its text is not the expected JSON (%w): %s", err, clip(text, 200))
	}
	return nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
