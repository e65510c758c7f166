package tui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// longArgs are about 4 KB of arguments for demo.write_note: a long note
// (words with spaces) and a long key without any.
func longArgs() json.RawMessage {
	var note strings.Builder
	for i := 0; note.Len() < 3500; i++ {
		fmt.Fprintf(&note, "word%03d ", i)
	}
	args, _ := json.Marshal(map[string]string{"key": strings.Repeat("k", 300), "note": note.String() + "END"})
	return args
}

// TestConsentDialogWithLongArguments: with 4 KB of arguments the dialog
// keeps its frame and its buttons on the screen, at any size; the
// arguments scroll (↑/↓, pgup/pgdn) to their last line, and a long string
// is broken between its words, not inside them.
func TestConsentDialogWithLongArguments(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {60, 16}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			h := newHarness(t, newTestRegistry(t), size[0], size[1])
			openRun(t, h, "demo.write_note", string(longArgs()))
			h.press("ctrl+s")
			if h.m.confirm == nil {
				t.Fatal("no consent dialog")
			}
			h.mustContain("Run demo.write_note?", "(y)", "Cancel (n)", "╰", "Arguments, lines 1–", "↑/↓ scroll")
			for _, l := range strings.Split(h.view(), "\n") {
				if m := regexp.MustCompile(`word\d*`).FindAllString(l, -1); len(m) > 0 {
					for _, w := range m {
						if len(w) != len("word000") && !strings.HasSuffix(l, w+" │") {
							t.Fatalf("a word is broken: %q in %q", w, l)
						}
					}
				}
			}
			h.press("j")
			h.mustContain("Arguments, lines 2–")
			for range 1000 {
				h.press("pgdown")
			}
			h.mustContain("}", "(y)", "╰")
			at := regexp.MustCompile(`lines (\d+)–(\d+) of (\d+)`).FindStringSubmatch(h.view())
			if at == nil || at[2] != at[3] {
				t.Fatalf("pgdown does not reach the last line of the arguments: %q", at)
			}
			h.press("down", "down", "pgdown", "up") // past the bottom and one back: one line up
			h.mustContain(`END"`)
			if back := regexp.MustCompile(`lines (\d+)–(\d+) of (\d+)`).FindStringSubmatch(h.view()); back == nil || back[2] == back[3] {
				t.Fatalf("up after pressing down at the bottom does not scroll back: %q", back)
			}
			h.mustNotContain("lines 1–")
			h.press("y")
			if res := h.runDone(1); !res.OK() {
				t.Fatalf("the call after consent: %s %s", res.Code, res.Message)
			}
		})
	}
}

// At 60×15 the consent dialog keeps its bottom border: its buttons stay
// on one row (shorter labels), where a wrapped row made it a line taller
// than it was measured.
func TestConsentDialogFitsSmallWindow(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 60, 15)
	openRun(t, h, "demo.write_note", `{"key":"k","note":"n"}`)
	h.press("ctrl+s")
	h.mustContain("╭", "╰", "Run (y)", "Session (a)", "Cancel (n)")
	h.press("y")
	if res := h.runDone(1); !res.OK() {
		t.Fatalf("y in the small dialog: %+v", res)
	}
}
