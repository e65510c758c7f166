package form

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// stringField is a line of text. Its format, if any, is the placeholder;
// the registry's validator checks it (Options.Check).
type stringField struct {
	fieldBase
	in      textinput.Model
	exact   *string   // a loaded or pasted value the line cannot show as is (line breaks, ""), kept until edited
	pasted  bool      // exact came from a paste
	lines   bool      // the schema suggests text of several lines: enter opens the editor
	masked  bool      // a secret: shown as dots, never in an editor
	area    *textEdit // the text editor, while it is open
	width   int
	editErr string // why $EDITOR failed
}

func newString(fb fieldBase) *stringField {
	f := &stringField{fieldBase: fb}
	ph := "text"
	switch n := fb.n; {
	case n.example != "":
		ph = "e.g. " + n.example
	case n.pattern != "" && n.format != "":
		// The format's example could break the pattern: name it only.
		ph = n.format
	case n.format != "":
		ph = formatHint(n.format)
	}
	f.in = fb.env.newInput(ph)
	if secret(fb.n) {
		f.in.EchoMode, f.in.EchoCharacter = textinput.EchoPassword, '•'
		f.masked = true
		return f
	}
	f.lines = suggestsText(fb.n, fb.token)
	return f
}

func (f *stringField) value() (any, bool, error) {
	if f.area != nil {
		if s := f.area.Value(); s != "" || f.item {
			return s, true, nil
		}
		return nil, false, nil
	}
	if f.exact != nil {
		return *f.exact, true, nil
	}
	s := f.in.Value()
	if s == "" && !f.item {
		return nil, false, nil
	}
	return s, true, nil
}

func (f *stringField) set(v any) error {
	f.given = true
	s, ok := v.(string)
	if !ok {
		return typeErr(f.path, "a string", v)
	}
	f.in.SetValue(s)
	f.in.CursorEnd()
	f.exact, f.pasted = nil, false
	if s == "" || f.in.Value() != s {
		f.exact = &s
	}
	return nil
}

func (f *stringField) clear() {
	f.in.SetValue("")
	f.exact, f.pasted, f.given, f.area = nil, false, false, nil
}

func (f *stringField) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	f.editErr = ""
	if f.area != nil {
		return f.editorKey(k)
	}
	keys := &f.env.keys
	switch {
	case f.masked && (matches(k, keys.Text) || matches(k, keys.Editor)):
		return true, nil // no editor shows a secret
	case matches(k, keys.Text), f.lines && k.String() == "enter":
		return true, f.openEditor()
	case matches(k, keys.Editor):
		return true, f.externalEditor()
	case matches(k, keys.Empty):
		f.toggleEmpty()
		return true, nil
	}
	if !f.masked && f.exact != nil && strings.Contains(*f.exact, "\n") && textKey(k) && !moveKey(k) {
		if k.String() == "ctrl+u" { // the line's "delete to its start": the whole text goes
			f.setText("")
			return true, nil
		}
		// The line shows the breaks as spaces: an edit there would join the
		// lines. It goes to the editor instead, at the end of the text.
		open := f.openEditor()
		_, cmd := f.editorKey(k)
		return true, tea.Batch(open, cmd)
	}
	handled, changed, cmd := inputKey(&f.in, k)
	if changed {
		f.exact, f.pasted = nil, false
		f.touch()
	}
	return handled, cmd
}

func (f *stringField) update(msg tea.Msg) tea.Cmd {
	if e, ok := msg.(editedMsg); ok {
		if e.path == f.path {
			if e.err != nil {
				f.editErr = "$EDITOR: " + e.err.Error()
			} else {
				f.setText(e.text)
			}
		}
		return nil
	}
	if f.area != nil {
		if f.area.Update(msg) {
			f.area.SetHeight(editorHeight(f.area.LineCount()))
			f.touch()
		}
		return nil
	}
	if p, ok := msg.(tea.PasteMsg); ok && (strings.ContainsAny(p.Content, "\n\r") || f.exact != nil && strings.Contains(*f.exact, "\n")) {
		f.pasteLines(p.Content)
		return nil
	}
	before := f.in.Value()
	var cmd tea.Cmd
	f.in, cmd = f.in.Update(msg)
	if f.in.Value() != before {
		f.exact, f.pasted = nil, false
		f.touch()
	}
	return cmd
}

// pasteLines inserts pasted text that has line breaks. The line shows
// them as spaces, but the value keeps them, and the check says so: the
// text is not joined behind the person's back.
func (f *stringField) pasteLines(s string) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	var full string
	if f.exact != nil { // the line's positions are not the value's: add at the end
		full = *f.exact + s
	} else {
		r := []rune(f.in.Value())
		pos := min(f.in.Position(), len(r))
		full = string(r[:pos]) + s + string(r[pos:])
	}
	f.in.SetValue(full)
	f.in.CursorEnd()
	f.exact, f.pasted = &full, true
	f.touch()
}

func (f *stringField) widget(c *rctx) string {
	switch {
	case f.masked && f.exact != nil && *f.exact != "":
		return strings.Repeat("•", min(len([]rune(*f.exact)), max(c.width-2, 1)))
	case f.masked:
		return f.in.View()
	case f.exact != nil && *f.exact == "" && f.in.Value() == "":
		return c.st.Value.Render(`""`) + c.st.Muted.Render("  (an empty string, sent; ctrl+x: none)")
	case f.area != nil:
		return c.st.Muted.Render(fmt.Sprintf("%d lines · esc closes the editor · ctrl+o $EDITOR", f.area.LineCount()))
	case f.exact != nil && strings.Contains(*f.exact, "\n"):
		first, _, _ := strings.Cut(*f.exact, "\n")
		n := strings.Count(*f.exact, "\n") + 1
		return c.st.Value.Render(ansi.Truncate(first, max(c.width-24, 8), "…")) + c.st.Muted.Render(fmt.Sprintf("  ⏎ %d lines (ctrl+e)", n))
	case f.lines && c.focused:
		return f.in.View() + c.st.Muted.Render(linesHint)
	}
	return f.in.View()
}

// secret reports whether a string is a secret, shown masked as it is
// typed: its schema says "writeOnly": true (as the call history takes it)
// or "format": "password".
func secret(n *node) bool { return n.writeOnly || n.format == "password" }

// linesHint follows the line of a field whose schema suggests text.
const linesHint = "  enter: lines"

func (f *stringField) extra(*rctx) []string { return f.editorLines() }

func (f *stringField) focus() tea.Cmd {
	if f.area != nil {
		return f.area.Focus()
	}
	return f.in.Focus()
}

func (f *stringField) blur() {
	f.closeEditor()
	f.in.Blur()
}

func (f *stringField) takesText() bool { return true }
func (f *stringField) capturing() bool { return f.area != nil }

func (f *stringField) setWidth(w int) {
	f.width = w
	if f.lines {
		w -= len(linesHint)
	}
	f.in.SetWidth(max(w-1, 1))
	if f.area != nil {
		f.area.SetWidth(max(w, 20))
	}
}

func (f *stringField) check() string {
	switch {
	case f.editErr != "":
		return f.editErr
	case f.exact == nil || *f.exact == "":
		return ""
	case f.pasted:
		return fmt.Sprintf("pasted %d lines, breaks kept; typing edits them as lines (ctrl+e)",
			strings.Count(*f.exact, "\n")+1)
	case strings.Contains(*f.exact, "\n"):
		return ""
	}
	return "has tabs or other characters the line cannot show, kept as loaded; ctrl+e edits them"
}

// formatHint is the placeholder of a string with a known format.
func formatHint(format string) string {
	switch format {
	case "date":
		return "date: YYYY-MM-DD"
	case "date-time":
		return "date-time: 2006-01-02T15:04:05Z"
	case "time":
		return "time: 15:04:05Z"
	case "email", "idn-email":
		return "email: name@example.com"
	case "uri", "iri":
		return "uri: https://example.com/path"
	case "uri-reference", "iri-reference":
		return "uri reference"
	case "uuid":
		return "uuid: 8-4-4-4-12 hex digits"
	case "ipv4":
		return "ipv4: 192.0.2.1"
	case "ipv6":
		return "ipv6: 2001:db8::1"
	case "hostname", "idn-hostname":
		return "hostname: example.com"
	case "duration":
		return "duration: P1DT2H"
	case "regex":
		return "regular expression"
	case "":
		return ""
	}
	return format
}
