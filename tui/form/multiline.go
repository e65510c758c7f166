package form

import (
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// A string field edits its value on one line, or as lines of text in an
// editor under its row (ctrl+e, or enter on a field whose schema suggests
// text), or in $EDITOR (ctrl+o). ctrl+x makes it an explicit empty string,
// which is sent, unlike an empty field, which is not.

// textNames are the property names that suggest text of several lines.
var textNames = []string{"body", "content", "contents", "text", "description", "query", "script", "sql", "message", "prompt", "code", "source", "template", "markdown", "html", "note", "notes", "comment", "patch", "diff", "input", "stdin", "data"}

// suggestsText reports whether a string schema at token suggests text of
// several lines: a name like body or query, a contentMediaType, or a
// maxLength of 200 or more; and no maxLength under 200, format, pattern or
// enum, which say it is a short value.
func suggestsText(n *node, token string) bool {
	if n.format != "" || n.pattern != "" || n.hasEnum || n.maxLen >= 0 && n.maxLen < 200 {
		return false
	}
	name := strings.ToLower(token)
	for _, t := range textNames {
		if name == t || strings.HasSuffix(name, "_"+t) || strings.HasSuffix(name, t) && len(name) > len(t) && name[len(name)-len(t)-1] == '_' {
			return true
		}
	}
	return n.mediaType != "" || n.maxLen >= 200
}

// editorHeight is the height of the text editor for text of n lines: the
// lines and one more, from 3 to 10.
func editorHeight(n int) int { return min(max(n+1, 3), 10) }

// openEditor shows the value in the text editor under the row.
func (f *stringField) openEditor() tea.Cmd {
	a := newTextEdit(&f.env.st.Area, false, "│ ")
	a.SetWidth(max(f.width, 20))
	a.SetValue(f.text())
	a.SetHeight(editorHeight(a.LineCount()))
	f.area = a
	return a.Focus()
}

// closeEditor keeps the editor's text as the value and closes it.
func (f *stringField) closeEditor() {
	if f.area == nil {
		return
	}
	a := f.area
	f.area = nil
	f.setText(a.Value())
}

// text is the value as it stands, "" for none.
func (f *stringField) text() string {
	if f.area != nil {
		return f.area.Value()
	}
	if f.exact != nil {
		return *f.exact
	}
	return f.in.Value()
}

// setText makes s the value, typed: "" is no value (as an emptied line).
func (f *stringField) setText(s string) {
	f.touch()
	f.pasted = false
	if s == "" {
		f.in.SetValue("")
		f.exact = nil
		return
	}
	f.in.SetValue(s)
	f.in.CursorEnd()
	f.exact = nil
	if f.in.Value() != s {
		f.exact = &s
	}
}

// editorKey handles a key while the text editor is open: esc or ctrl+e
// closes it, ctrl+o goes on in $EDITOR, any other key edits.
func (f *stringField) editorKey(k tea.KeyPressMsg) (bool, tea.Cmd) {
	keys := &f.env.keys
	switch {
	case matches(k, keys.Close), matches(k, keys.Text):
		f.closeEditor()
		return true, nil
	case matches(k, keys.Editor):
		f.closeEditor()
		return true, f.externalEditor()
	}
	if f.area.Update(k) {
		f.area.SetHeight(editorHeight(f.area.LineCount()))
		f.touch()
	}
	return true, nil
}

// editedMsg brings back the text of a string field edited in $EDITOR.
type editedMsg struct {
	path string
	text string
	err  error
}

// execProcess runs a program on the terminal (tea.ExecProcess); tests
// replace it.
var execProcess = tea.ExecProcess

// editorCommand is $VISUAL, else $EDITOR, else vi, on file.
func editorCommand(getenv func(string) string, file string) *exec.Cmd {
	prog := []string{"vi"}
	for _, name := range []string{"VISUAL", "EDITOR"} {
		if f := strings.Fields(getenv(name)); len(f) > 0 {
			prog = f
			break
		}
	}
	return exec.Command(prog[0], append(prog[1:], file)...)
}

// externalEditor edits the value in $EDITOR on a temporary file, whose
// text comes back as the value.
func (f *stringField) externalEditor() tea.Cmd {
	path := f.path
	tmp, err := os.CreateTemp("", "toolexplorer-*.txt")
	if err != nil {
		return func() tea.Msg { return editedMsg{path: path, err: err} }
	}
	_, err = tmp.WriteString(f.text())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return func() tea.Msg { return editedMsg{path: path, err: err} }
	}
	return execProcess(editorCommand(os.Getenv, tmp.Name()), func(err error) tea.Msg {
		defer os.Remove(tmp.Name())
		if err != nil {
			return editedMsg{path: path, err: err}
		}
		b, err := os.ReadFile(tmp.Name())
		if err != nil {
			return editedMsg{path: path, err: err}
		}
		// Editors end the last line with a newline the text did not have.
		return editedMsg{path: path, text: strings.TrimSuffix(string(b), "\n")}
	})
}

// toggleEmpty makes the value an explicit empty string, or takes it back
// to none.
func (f *stringField) toggleEmpty() {
	f.touch()
	f.pasted = false
	if f.exact != nil && *f.exact == "" {
		f.exact = nil
		return
	}
	empty := ""
	f.in.SetValue("")
	f.exact = &empty
}

// editorLines are the text editor's lines under the row.
func (f *stringField) editorLines() []string {
	if f.area == nil {
		return nil
	}
	return strings.Split(f.area.View(), "\n")
}
