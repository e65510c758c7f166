package tui

import (
	"fmt"
	"strings"
	"testing"
)

// TestDiffOfTwoCalls: D on a call of the history marks it, D on another
// shows how their arguments and outputs differ, line by line; esc goes
// back. The same works from the runs panel.
func TestDiffOfTwoCalls(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	for i, text := range []string{"first", "second"} {
		openRun(t, h, "demo.echo", fmt.Sprintf(`{"text":%q}`, text))
		h.press("ctrl+s")
		h.runDone(i + 1)
		h.press("esc", "esc")
	}
	h.press("H", "D") // the newest: call 2
	h.mustContain("marked call 2: D on another call shows how they differ")
	h.press("j", "D")
	if h.m.top() != h.m.diff {
		t.Fatalf("D D opened %T", h.m.top())
	}
	h.mustContain("Difference", "- call 2 · demo.echo", "+ call 1 · demo.echo",
		"Arguments  1 line removed, 1 line added", `-   "text": "second"`, `+   "text": "first"`,
		"Output  1 line removed, 1 line added")
	h.press("/")
	h.typeText("first")
	h.press("enter")
	h.mustContain("/first: 2 matches")
	h.press("esc")
	if h.m.top() != h.m.history {
		t.Fatalf("esc from the difference went to %T", h.m.top())
	}

	h.press("R", "D", "j", "D") // the runs panel, newest first
	h.mustContain("Runs › Difference", "- call 2 · demo.echo", "+ call 1 · demo.echo")
	h.press("esc")
	h.press("D", "D") // the same call twice: still marked, no difference
	if h.m.top() == h.m.diff || !strings.Contains(h.view(), "marked call") {
		t.Fatal("D twice on one call opened a difference")
	}
}
