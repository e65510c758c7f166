package tui

import (
	"testing"
)

// TestRawJSONModeNeverTraps: on the run screen, esc leaves raw JSON that
// is not valid after asking (y), and a second esc leaves the screen; a
// call refused for its arguments while raw JSON is shown lists the
// fields with the JSON instead of pointing at fields that are not shown.
func TestRawJSONModeNeverTraps(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	openRun(t, h, "demo.echo", `{"text":"hi"}`)
	h.press("ctrl+r")
	h.mustContain("arguments: raw JSON", "esc or ctrl+r back to the form", "esc/ctrl+r back to the form •")
	h.mustNotContain("esc back") // the help says what esc does here
	h.typeText("}}")             // before the opening brace: not JSON any more
	h.press("esc")
	h.mustContain("✗ not valid JSON", "Discard the edits and go back to the form? y discards · n keeps editing", "y discard the edits", "n/esc keep editing")
	if h.m.top() != h.m.run || !h.m.run.editor.Raw() {
		t.Fatal("esc on invalid JSON went somewhere without asking")
	}
	h.press("y")
	h.mustContain("arguments: form")
	h.mustNotContain("Discard the edits")
	if v, _ := h.m.run.editor.Value(); string(v) != `{"text":"hi"}` {
		t.Fatalf("the form after discarding: %s", v)
	}
	h.press("esc")
	if h.m.top() == h.m.run {
		t.Fatal("esc from the form does not leave the run screen")
	}

	openRun(t, h, "demo.echo", `{"text":""}`)
	h.press("ctrl+r", "ctrl+s")
	res := h.runDone(1)
	if res.Code != "validation_error" {
		t.Fatalf("code %s", res.Code)
	}
	h.mustContain("to fix, listed with the JSON", "✗ /text: ")
	h.mustNotContain("marked on the fields")
}
