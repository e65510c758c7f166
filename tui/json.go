package tui

import (
	"bytes"
	"encoding/json"

	"github.com/toolexplorer/toolexplorer/tui/viewer"
)

// compactJSON returns b without insignificant space, or b unchanged when it
// is not valid JSON.
func compactJSON(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}

// prettyJSON indents b by two spaces, or returns it as it is when it is not
// valid JSON.
func prettyJSON(b []byte) string { return viewer.Pretty(b) }

// highlightJSON pretty-prints b with keys, strings, numbers, booleans and
// null in their colours; plain when colours are off.
func highlightJSON(st *styles, b []byte) string { return viewer.Highlight(st.viewer, b) }
