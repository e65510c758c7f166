package tui

import (
	"encoding/json"
	"fmt"
	"strings"
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

// The raw JSON editor takes the screen's width from the start: a long
// value wraps at the window's edge, not at about 32 columns.
func TestRawJSONTakesTheWidth(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	openRun(t, h, "demo.echo", `{"text":"`+strings.Repeat("a", 150)+`"}`)
	h.press("ctrl+r")
	longest := 0
	for _, l := range strings.Split(h.view(), "\n") {
		longest = max(longest, strings.Count(l, "a"))
	}
	if longest < 80 {
		t.Fatalf("the longest row of the raw JSON holds %d of the 150 letters, want the window's width:\n%s", longest, h.view())
	}
}

// An error over the raw JSON goes once the JSON is fixed.
func TestRawJSONErrorGoesWhenFixed(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	openRun(t, h, "demo.echo", `{"text":"hi"}`)
	h.press("ctrl+r", "ctrl+end", "backspace", "ctrl+s")
	h.mustContain("unexpected end of JSON input")
	if len(h.m.c.history) != 0 {
		t.Fatal("JSON that is not whole ran")
	}
	h.typeText("}")
	h.mustNotContain("unexpected end of JSON input", "✗")
	h.press("ctrl+s")
	if res := h.runDone(1); !res.OK() {
		t.Fatalf("the fixed JSON ran as %+v", res)
	}
}

// The text editor of a string follows its cursor through a long text: the
// end of 2,000 lines shows, and typing adds there.
func TestTextEditorLongText(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	b.WriteString("last")
	args, _ := json.Marshal(map[string]string{"key": "k", "note": b.String()})
	openRun(t, h, "demo.write_note", string(args))
	h.press("tab", "ctrl+e")
	h.typeText("Z")
	h.mustContain("│ line 1999", "│ lastZ")
	h.mustNotContain("│ line 0")
	h.press("ctrl+home")
	h.typeText("A")
	h.mustContain("│ Aline 0")
	h.press("esc")
	v, err := h.m.run.editor.Value()
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal(v, &got); err != nil || !strings.HasPrefix(got["note"], "Aline 0\n") || !strings.HasSuffix(got["note"], "line 1999\nlastZ") {
		t.Fatalf("the text after the editor: %.80q … %q", got["note"], got["note"][max(len(got["note"])-30, 0):])
	}
}
