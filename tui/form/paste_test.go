package form

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestPasteLinesIntoALine: text with line breaks pasted into a one-line
// field keeps its line breaks and says so, instead of being joined
// silently; typing in the field afterwards edits them as lines, in the
// editor, and never joins them.
func TestPasteLinesIntoALine(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{"body":{"type":"string"},"n":{"type":"integer"}}}`, 80, 24)
	typeText(m, "a ")
	m.Update(tea.PasteMsg{Content: "first line\r\nsecond line\nthird"})
	if v := mustValue(t, m); v != `{"body":"a first line\nsecond line\nthird"}` {
		t.Fatalf("after the paste: %s", v)
	}
	if v := plain(m.View()); !strings.Contains(v, "! pasted 3 lines, breaks kept; typing edits them as lines (ctrl+e)") {
		t.Fatalf("the paste is not explained:\n%s", v)
	}
	press(m, "ctrl+r") // raw JSON keeps them too
	if v := mustValue(t, m); v != `{"body":"a first line\nsecond line\nthird"}` {
		t.Fatalf("in raw JSON: %s", v)
	}
	press(m, "esc")
	typeText(m, "!")
	if v := mustValue(t, m); v != `{"body":"a first line\nsecond line\nthird!"}` {
		t.Fatalf("typing after the paste: %s", v)
	}
	if v := plain(m.View()); !strings.Contains(v, "3 lines · esc closes the editor") {
		t.Fatalf("typing after the paste does not edit in the editor:\n%s", v)
	}
	press(m, "esc") // closes the editor, keeping the lines
	press(m, "end") // moving along the line changes nothing
	if v := mustValue(t, m); v != `{"body":"a first line\nsecond line\nthird!"}` {
		t.Fatalf("after the editor: %s", v)
	}
	m.Update(tea.PasteMsg{Content: " one line"}) // no line break: added at the end, the lines kept
	if v := mustValue(t, m); v != `{"body":"a first line\nsecond line\nthird! one line"}` {
		t.Fatalf("a one-line paste: %s\n%s", v, plain(m.View()))
	}
}

// TestTypingIntoLoadedLines: a value with line breaks loaded into the form
// (a call edited from the history) keeps them when the person types in its
// field: the keys edit the text in the editor, never the joined line.
func TestTypingIntoLoadedLines(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{"title":{"type":"string","maxLength":40}}}`, 80, 24)
	if err := m.SetValue([]byte(`{"title":"first\nsecond"}`)); err != nil {
		t.Fatal(err)
	}
	typeText(m, "Z")
	if v := mustValue(t, m); v != `{"title":"first\nsecondZ"}` {
		t.Fatalf("typing into loaded lines: %s", v)
	}
	press(m, "esc")
	press(m, "backspace")
	if v := mustValue(t, m); v != `{"title":"first\nsecond"}` {
		t.Fatalf("a backspace after the editor closed: %s", v)
	}
	press(m, "esc")
	press(m, "ctrl+u") // clears the whole text, as it clears a line
	if v := mustValue(t, m); v != `{}` {
		t.Fatalf("ctrl+u on lines: %s", v)
	}
}
