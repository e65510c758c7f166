package viewer

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
)

// ContentLines describes an output that is a list of MCP content blocks,
// which a tool of an MCP server returns when its result is more than one
// text: one line per block, images and audio as a placeholder that says
// their type and size ("[image/png, 12.3 KB]"), links and embedded
// resources by their URI. Nil when the output is not such a list.
func ContentLines(out json.RawMessage, width int) []string {
	var blocks []map[string]any
	if len(out) == 0 || out[0] != '[' || json.Unmarshal(out, &blocks) != nil || len(blocks) == 0 {
		return nil
	}
	lines := make([]string, 0, len(blocks))
	for _, b := range blocks {
		str := func(k string) string { s, _ := b[k].(string); return termtext.Line(s) }
		var line string
		switch str("type") {
		case "text":
			text, _ := b["text"].(string)
			text = strings.TrimSpace(text)
			line = "text: " + cut(termtext.Line(firstLine(text)), max(width-8, 10))
			if n := strings.Count(text, "\n"); n > 0 {
				line += fmt.Sprintf(" (%d more lines)", n)
			}
		case "image", "audio":
			line = fmt.Sprintf("[%s, %s]", orUnknown(str("mimeType"), str("type")), byteSize(decodedLen(str("data"))))
		case "resource_link":
			line = "link: " + str("uri")
			if name := str("name"); name != "" {
				line = "link: " + name + " <" + str("uri") + ">"
			}
			if m := str("mimeType"); m != "" {
				line += " (" + m + ")"
			}
		case "resource":
			r, _ := b["resource"].(map[string]any)
			uri, _ := r["uri"].(string)
			mime, _ := r["mimeType"].(string)
			size := ""
			if text, ok := r["text"].(string); ok {
				size = byteSize(len(text)) + " of text"
			} else if blob, ok := r["blob"].(string); ok {
				size = byteSize(decodedLen(blob))
			}
			line = "resource: " + termtext.Line(uri) + " (" + strings.Join(nonEmpty(termtext.Line(mime), size), ", ") + ")"
		default:
			return nil // not MCP content
		}
		lines = append(lines, line)
	}
	return lines
}

func orUnknown(mime, kind string) string {
	if mime == "" {
		return kind + " of unknown type"
	}
	return mime
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// decodedLen is the length of the bytes base64 data encodes.
func decodedLen(data string) int {
	n := len(data) / 4 * 3
	if rest := len(data) % 4; rest > 1 {
		n += rest - 1
	}
	return n - strings.Count(data[max(len(data)-2, 0):], "=")
}

// byteSize spells n bytes for a person: 512 B, 12.3 KB, 4.0 MB.
func byteSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}
