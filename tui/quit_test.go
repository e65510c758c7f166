package tui

import (
	"context"
	"encoding/json"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// pickTool has rows that take no text: a boolean, an enum, an array of
// objects.
func pickTool() tooling.Tool {
	return tooling.Tool{
		Name: "demo.pick", Title: "Pick", Description: "Takes choices.",
		Input: json.RawMessage(`{"type":"object","properties":{
			"note":{"type":"string"},
			"loud":{"type":"boolean"},
			"mode":{"type":"string","enum":["fast","slow","quiet"]},
			"steps":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"on":{"type":"boolean"}}}}}}`),
		Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run:  func(_ context.Context, c tooling.Call) (any, error) { return c.Raw(), nil },
	}
}

func quitSeen(h *harness) bool {
	for _, m := range h.seen {
		if _, ok := m.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

// TestQuitAsksOutsideTheList: q on a row that takes no text (a boolean,
// an enum, an array) asks before quitting, and n keeps the form as it was;
// with an enum's picker open q is the picker's, not the console's.
func TestQuitAsksOutsideTheList(t *testing.T) {
	reg := newTestRegistry(t)
	if err := reg.Add(pickTool()); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, reg, 100, 30)
	openRun(t, h, "demo.pick", "")
	h.typeText("draft")
	for _, row := range []string{"loud", "mode", "steps"} {
		h.press("tab")
		if h.m.run.Typing() {
			t.Fatalf("%s: the row takes text", row)
		}
		h.press("q")
		if quitSeen(h) {
			t.Fatalf("q on %s quit without asking", row)
		}
		h.mustContain("Quit toolexplorer?", "Quitting loses the arguments typed in the forms.", "Quit (y)", "Stay (n)", "y/q quit", "n/esc stay")
		h.press("n")
		h.mustNotContain("Quit toolexplorer?")
		if h.m.top() != h.m.run {
			t.Fatalf("n on the quit question left the run screen")
		}
	}
	if v, _ := h.m.run.editor.Value(); string(v) != `{"note":"draft"}` {
		t.Fatalf("the draft after declining to quit: %s", v)
	}

	h.press("shift+tab") // mode, then open its picker
	h.press("enter")
	if !h.m.run.editor.Capturing() {
		t.Fatal("enter does not open the enum's picker")
	}
	h.press("q", "?", "H", "B")
	if quitSeen(h) || h.m.quitAsk != nil || h.m.showHelp || h.m.top() != h.m.run {
		t.Fatal("a letter key with the picker open reached the console")
	}
	if !h.m.run.editor.Capturing() {
		t.Fatal("the picker closed on a letter key")
	}
	h.press("esc", "q", "y")
	h.waitFor("quit", func(m tea.Msg) bool { _, ok := m.(tea.QuitMsg); return ok })
}

// TestQuitFromTheListAtOnce: q on the tool list, where nothing is being
// edited, quits without asking.
func TestQuitFromTheListAtOnce(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 80, 24)
	h.press("q")
	if !quitSeen(h) || h.m.quitAsk != nil {
		t.Fatal("q on the list does not quit at once")
	}
}
