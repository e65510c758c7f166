package tui

import "testing"

// TestDraftsPerTool: what is typed in a tool's form is still there when
// the person opens another tool and comes back, for each tool; arguments handed over explicitly (edit from the history)
// replace the draft.
func TestDraftsPerTool(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	value := func() string {
		t.Helper()
		v, err := h.m.run.editor.Value()
		if err != nil {
			t.Fatal(err)
		}
		return string(v)
	}
	openRun(t, h, "demo.echo", "")
	h.typeText("draft one")
	h.press("esc")
	openRun(t, h, "demo.write_note", "")
	h.typeText("k")
	h.press("esc")

	openRun(t, h, "demo.echo", "")
	if got := value(); got != `{"text":"draft one","repeat":1}` {
		t.Fatalf("demo.echo's draft after another tool: %s", got)
	}
	h.mustContain("draft one")
	openRun(t, h, "demo.write_note", "")
	if got := value(); got != `{"key":"k"}` {
		t.Fatalf("demo.write_note's draft: %s", got)
	}
	openRun(t, h, "demo.echo", `{"text":"from history"}`)
	if got := value(); got != `{"text":"from history"}` {
		t.Fatalf("arguments handed over do not replace the draft: %s", got)
	}
}
