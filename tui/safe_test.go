package tui

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// evilText sets the terminal's title, erases a line, moves up, returns the
// carriage and draws a fake "ok" (ESC sequences, a C1 CSI, BEL, CR).
const evilText = "\x1b]0;owned\x07\x1b[2K\x1b[1A\r✓ ok \u009b2J"

// rawControls reports the control sequences of evilText found in a frame
// (whose own escape sequences are styles only).
func rawControls(frame string) []string {
	var found []string
	for _, c := range []string{"\x1b]", "\x1b[2K", "\x1b[1A", "\x07", "\r", "\u009b"} {
		if strings.Contains(frame, c) {
			found = append(found, c)
		}
	}
	return found
}

// TestConsoleEscapesToolText: what tools write (descriptions, error
// messages, outputs, arguments in the history) reaches the console's views
// with its control characters shown as escapes.
func TestConsoleEscapesToolText(t *testing.T) {
	reg := tooling.NewRegistry()
	input := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
	for _, tool := range []tooling.Tool{
		{Name: "evil.fail", Title: "Fail" + evilText, Description: "fails " + evilText, Input: input, Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run: func(context.Context, tooling.Call) (any, error) { return nil, errors.New("failed " + evilText) }},
		{Name: "evil.echo", Description: "echoes", Input: input, Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run: func(_ context.Context, c tooling.Call) (any, error) {
				return map[string]any{"text": callargs.String(c.Args, "text")}, nil
			}},
	} {
		if err := reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t, reg, 120, 40)
	check := func(where string) {
		t.Helper()
		if found := rawControls(h.m.render()); len(found) > 0 {
			t.Errorf("%s: the frame holds %q", where, found)
		}
	}
	check("the tool list")
	h.press("j", "enter") // evil.fail
	if h.m.top() != h.m.detail || h.m.detail.tool.Name != "evil.fail" {
		t.Fatalf("enter opened %T", h.m.top())
	}
	check("a tool's details")
	h.press("esc")
	args, _ := json.Marshal(map[string]string{"text": evilText})
	openRun(t, h, "evil.fail", string(args))
	h.press("ctrl+s")
	if res := h.runDone(1); res.OK() || !strings.Contains(res.Message, evilText) {
		t.Fatalf("evil.fail: %+v", res)
	}
	h.mustContain(`\x1b]0;owned\x07`)
	check("an error message")
	h.press("esc", "esc")
	openRun(t, h, "evil.echo", string(args))
	h.press("ctrl+s")
	if res := h.runDone(2); !res.OK() {
		t.Fatalf("evil.echo: %s %s", res.Code, res.Message)
	}
	h.mustContain(`\u009b2J`)
	check("an output")
}
