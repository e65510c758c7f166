package form

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestSuggestsText(t *testing.T) {
	for _, tc := range []struct {
		schema, token string
		want          bool
	}{
		{`{"type":"string"}`, "body", true},
		{`{"type":"string"}`, "sql", true},
		{`{"type":"string"}`, "commit_message", true},
		{`{"type":"string"}`, "Query", true},
		{`{"type":"string"}`, "key", false},
		{`{"type":"string"}`, "bodyguard", false},
		{`{"type":"string","maxLength":100}`, "body", false},
		{`{"type":"string","maxLength":5000}`, "value", true},
		{`{"type":"string","contentMediaType":"text/markdown"}`, "x", true},
		{`{"type":"string","format":"uri"}`, "content", false},
		{`{"type":"string","enum":["a","b"]}`, "text", false},
	} {
		m := newTestForm(t, `{"type":"object","properties":{"`+tc.token+`":`+tc.schema+`}}`, 80, 24)
		sf, _ := unwrap(m.cur).(*stringField)
		if got := sf != nil && sf.lines; got != tc.want {
			t.Errorf("%s at %q: %v, want %v", tc.schema, tc.token, got, tc.want)
		}
	}
}

const notesSchema = `{"type":"object","properties":{"key":{"type":"string"},"body":{"type":"string"},"n":{"type":"integer"}},"required":["key","body"]}`

// TestTextEditor: ctrl+e on any string field, or enter on one whose
// schema suggests text, edits it as lines; enter there is a line break,
// esc closes the editor keeping them, ctrl+s submits with them.
func TestTextEditor(t *testing.T) {
	m := newTestForm(t, notesSchema, 80, 24)
	typeText(m, "k1")
	press(m, "ctrl+e") // key: not text by its schema, but ctrl+e works anywhere
	if !m.Capturing() {
		t.Fatal("ctrl+e opened no editor")
	}
	press(m, "enter")
	typeText(m, "two")
	press(m, "esc")
	if m.Capturing() {
		t.Fatal("esc left the editor open")
	}
	if v := mustValue(t, m); v != `{"key":"k1\ntwo"}` {
		t.Fatalf("after the editor: %s", v)
	}
	if v := plain(m.View()); !strings.Contains(v, "k1  ⏎ 2 lines (ctrl+e)") {
		t.Fatalf("the row does not say the lines:\n%s", v)
	}
	press(m, "tab") // body: enter opens the editor
	if v := plain(m.View()); !strings.Contains(v, "enter: lines") {
		t.Fatalf("no hint on a text field:\n%s", v)
	}
	press(m, "enter")
	typeText(m, "line 1")
	press(m, "enter")
	typeText(m, "line 2")
	v := plain(m.View())
	if !strings.Contains(v, "│ line 1") || !strings.Contains(v, "│ line 2") || !strings.Contains(v, "esc closes the editor") {
		t.Fatalf("the editor does not show the lines:\n%s", v)
	}
	press(m, "tab") // in the editor: not the next field
	if !m.Capturing() {
		t.Fatal("tab left the editor")
	}
	press(m, "ctrl+s")
	if !m.Submitted() {
		t.Fatal("ctrl+s in the editor did not submit")
	}
	if v := mustValue(t, m); v != `{"key":"k1\ntwo","body":"line 1\nline 2"}` {
		t.Fatalf("submitted: %s", v)
	}
}

// TestExplicitEmptyString: ctrl+x makes a string an explicit "", which is
// sent and shown as such, unlike an empty field, which is not sent.
func TestExplicitEmptyString(t *testing.T) {
	m := newTestForm(t, notesSchema, 80, 24)
	typeText(m, "k")
	press(m, "tab")
	if v := mustValue(t, m); v != `{"key":"k"}` {
		t.Fatalf("empty body: %s", v)
	}
	press(m, "ctrl+x")
	if v := mustValue(t, m); v != `{"key":"k","body":""}` {
		t.Fatalf("after ctrl+x: %s", v)
	}
	if v := plain(m.View()); !strings.Contains(v, `body*    ""  (an empty string, sent; ctrl+x: none)`) {
		t.Fatalf("the empty string is not shown:\n%s", v)
	}
	press(m, "ctrl+x")
	if v := mustValue(t, m); v != `{"key":"k"}` {
		t.Fatalf("after ctrl+x again: %s", v)
	}
	press(m, "ctrl+x")
	typeText(m, "x") // typing replaces the empty string
	if v := mustValue(t, m); v != `{"key":"k","body":"x"}` {
		t.Fatalf("typing after ctrl+x: %s", v)
	}
}

// TestExternalEditor: ctrl+o edits the value in $EDITOR on a temporary
// file; what the editor saves comes back as the value.
func TestExternalEditor(t *testing.T) {
	old := execProcess
	t.Cleanup(func() { execProcess = old })
	var ran []string
	var before string
	execProcess = func(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
		ran = c.Args
		file := c.Args[len(c.Args)-1]
		b, _ := os.ReadFile(file)
		before = string(b)
		if err := os.WriteFile(file, []byte("edited\nin the editor\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return func() tea.Msg { return fn(nil) }
	}
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", "nano -w")
	m := newTestForm(t, notesSchema, 80, 24)
	typeText(m, "old")
	_, cmd := m.Update(keyMsg("ctrl+o"))
	if cmd == nil {
		t.Fatal("ctrl+o ran nothing")
	}
	m.Update(cmd())
	if ran[0] != "nano" || ran[1] != "-w" || before != "old" {
		t.Fatalf("ran %q on %q", ran, before)
	}
	if v := mustValue(t, m); v != `{"key":"edited\nin the editor"}` {
		t.Fatalf("after the editor: %s", v)
	}
	if _, err := os.Stat(ran[len(ran)-1]); !os.IsNotExist(err) {
		t.Fatalf("the temporary file is left: %v", err)
	}
}

func TestEditorCommand(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "vi f"},
		{map[string]string{"EDITOR": "code --wait"}, "code --wait f"},
		{map[string]string{"VISUAL": "emacs", "EDITOR": "vi"}, "emacs f"},
	} {
		if got := strings.Join(editorCommand(env(tc.env), "f").Args, " "); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}
