package viewer

import (
	"bytes"
	"encoding/json"
	"strings"

	"charm.land/lipgloss/v2"
)

// maxHighlight is the size of JSON above which it is shown without
// colours: colouring is per token and a huge output would slow a frame.
const maxHighlight = 256 << 10

// Pretty indents b by two spaces, or returns it as it is when it is not
// valid JSON.
func Pretty(b []byte) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, bytes.TrimSpace(b), "", "  "); err != nil {
		return string(b)
	}
	return buf.String()
}

// Highlight pretty-prints b with keys, strings, numbers, booleans and
// null in the colours of st; plain when colours are off.
func Highlight(st *Styles, b []byte) string {
	p := Pretty(b)
	if !st.Color || len(p) > maxHighlight {
		return p
	}
	return colorJSON(st, p)
}

// colorJSON colours JSON text token by token. It never fails: bytes it
// does not recognise are copied as they are.
func colorJSON(st *Styles, s string) string {
	var b strings.Builder
	b.Grow(len(s) * 2)
	emit := func(style lipgloss.Style, tok string) { b.WriteString(style.Render(tok)) }
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j < len(s) {
				j++
			}
			k := j
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
			if k < len(s) && s[k] == ':' {
				emit(st.JSONKey, s[i:j])
			} else {
				emit(st.JSONString, s[i:j])
			}
			i = j
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(s) && strings.IndexByte("0123456789.eE+-", s[j]) >= 0 {
				j++
			}
			emit(st.JSONNumber, s[i:j])
			i = j
		case strings.HasPrefix(s[i:], "true"):
			emit(st.JSONBool, "true")
			i += 4
		case strings.HasPrefix(s[i:], "false"):
			emit(st.JSONBool, "false")
			i += 5
		case strings.HasPrefix(s[i:], "null"):
			emit(st.JSONNull, "null")
			i += 4
		case strings.IndexByte("{}[],:", c) >= 0:
			emit(st.JSONPunct, s[i:i+1])
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}
