package form

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestPasteLinesIntoALine: text with line breaks pasted into a one-line
// field keeps its line breaks and says so, instead of being joined
// silently; typing in the field afterwards joins them, as the hint says.
func TestPasteLinesIntoALine(t *testing.T) {
	m := newTestForm(t, `{"type":"object","properties":{"body":{"type":"string"},"n":{"type":"integer"}}}`, 80, 24)
	typeText(m, "a ")
	m.Update(tea.PasteMsg{Content: "first line\r\nsecond line\nthird"})
	if v := mustValue(t, m); v != `{"body":"a first line\nsecond line\nthird"}` {
		t.Fatalf("after the paste: %s", v)
	}
	if v := plain(m.View()); !strings.Contains(v, "! pasted 3 lines, breaks kept; typing joins them, ctrl+e edits them") {
		t.Fatalf("the paste is not explained:\n%s", v)
	}
	press(m, "ctrl+r") // raw JSON keeps them too
	if v := mustValue(t, m); v != `{"body":"a first line\nsecond line\nthird"}` {
		t.Fatalf("in raw JSON: %s", v)
	}
	press(m, "esc")
	typeText(m, "!")
	if v := mustValue(t, m); v != `{"body":"a first line second line third!"}` {
		t.Fatalf("typing after the paste: %s", v)
	}
	if strings.Contains(plain(m.View()), "pasted 3 lines") {
		t.Fatal("the hint stays after the lines were joined")
	}
	m.Update(tea.PasteMsg{Content: " one line"}) // no line break: pasted as is
	if v := mustValue(t, m); v != `{"body":"a first line second line third! one line"}` || strings.Contains(plain(m.View()), "pasted") {
		t.Fatalf("a one-line paste: %s\n%s", v, plain(m.View()))
	}
}
