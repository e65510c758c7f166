package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestCopyTooLargeOffersAFile: an output larger than terminals take with
// OSC 52 is not sent (the terminal dropped it without a word, and the
// status said copied): the status says why, and a prompt writes it to a
// file; a small value is still copied.
func TestCopyTooLargeOffersAFile(t *testing.T) {
	big, _ := json.Marshal(map[string]string{"text": strings.Repeat("0123456789", 20_000)})
	h := showOutput(t, 100, 30, big)
	h.press("Y")
	if got := clipboard(h); got != "" {
		t.Fatalf("%d bytes sent with OSC 52", len(got))
	}
	h.mustContain("not copied: the output is too large for the clipboard")
	if h.m.prompt == nil || !strings.Contains(h.m.prompt.title, "the output is 200 KB, more than terminals take") {
		t.Fatalf("no prompt for a file: %+v", h.m.prompt)
	}
	path := filepath.Join(t.TempDir(), "out.json")
	h.typeText(path)
	h.press("enter")
	h.waitFor("the file written", func(m tea.Msg) bool {
		s, ok := m.(statusMsg)
		return ok && strings.Contains(s.text, "wrote the output to "+path)
	})
	data, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(data), strings.Repeat("0123456789", 20_000)) {
		t.Fatalf("the file holds %d bytes, %v", len(data), err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the file's mode: %v %v", fi.Mode(), err)
	}
	// A file that exists is not overwritten.
	h.press("Y")
	h.typeText(path)
	h.press("enter")
	h.waitFor("the refusal", func(m tea.Msg) bool {
		s, ok := m.(statusMsg)
		return ok && s.isErr && strings.Contains(s.text, "exists")
	})

	small := showOutput(t, 100, 30, json.RawMessage(`{"text":"hi"}`))
	small.press("Y")
	if got := clipboard(small); !strings.Contains(got, `"hi"`) {
		t.Fatalf("a small output copied %q", got)
	}
}
