package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestPasteLinesIntoTheForm: a multi-line paste into a one-line field of
// a tool's form reaches the call with its line breaks, and the form says
// they were kept.
func TestPasteLinesIntoTheForm(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	openRun(t, h, "demo.echo", "")
	h.send(tea.PasteMsg{Content: "one\ntwo"})
	h.mustContain("pasted 2 lines, breaks kept")
	h.press("ctrl+s")
	res := h.runDone(1)
	if string(h.m.c.history[0].args) != `{"text":"one\ntwo","repeat":1}` || !res.OK() {
		t.Fatalf("the call got %s (%s)", h.m.c.history[0].args, res.Code)
	}
}
