package viewer

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestJQLive: | opens the filter line; the view shows what the filter
// makes as it is typed; enter keeps it, | edits it again, esc drops it and
// the output is back.
func TestJQLive(t *testing.T) {
	h := newHarness(t, 100, 20, rowsOutput)
	h.press("|")
	if !h.v.Typing() {
		t.Fatal("the filter line does not take text")
	}
	h.typeText(".rows[].name")
	h.mustContain(`"walnut desk",`, `"beech stool"`, "4 results")
	h.mustNotContain(`"price"`)
	h.typeText(" | ascii_upcase")
	h.mustContain(`"WALNUT DESK"`)
	h.press("enter")
	if h.v.Typing() {
		t.Fatal("enter left the filter line open")
	}
	h.mustContain("| .rows[].name | ascii_upcase: 4 results")
	h.press("j", "y") // copies from the result
	if c := h.copies[len(h.copies)-1]; c.Text != "WALNUT DESK" {
		t.Fatalf("y copied %+v", c)
	}
	h.press("|", "esc")
	h.mustContain(`"count": 4`, `"price": 249.5`)
	h.mustNotContain("WALNUT", "| .rows")
}

// TestJQErrorsKeepTheLastResult: a filter that does not compile, or that
// fails on the output, says why under the line and the last good result
// stays on screen.
func TestJQErrorsKeepTheLastResult(t *testing.T) {
	h := newHarness(t, 100, 20, rowsOutput)
	h.press("|")
	h.typeText(".count")
	h.mustContain("  4\n")
	h.typeText(" | .[")
	h.mustContain("unexpected EOF", "  4\n")
	h.press("backspace", "backspace", "backspace", "backspace")
	h.typeText("| keys")
	h.mustContain("cannot", "  4\n") // keys of a number
	h.press("backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace")
	h.typeText("+1")
	h.mustContain("  5\n")
	h.mustNotContain("cannot", "unexpected")
}

// TestJQLatestWins: the result of an older edit that arrives after a newer
// one is dropped.
func TestJQLatestWins(t *testing.T) {
	h := newHarness(t, 100, 20, rowsOutput)
	h.press("|")
	v := h.v
	var cmds []tea.Cmd
	for _, r := range ".count" {
		cmd, _ := v.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		cmds = append(cmds, cmd)
	}
	last := cmds[len(cmds)-1]()
	older := cmds[len(cmds)-2]() // ".coun": null
	h.exec(func() tea.Msg { return last })
	h.exec(func() tea.Msg { return older })
	h.mustContain("  4\n")
	h.mustNotContain("null")
}

// TestJQRunawayIsCanceled: a filter that never ends is canceled by the
// next edit; the run returns and its result is dropped.
func TestJQRunawayIsCanceled(t *testing.T) {
	h := newHarness(t, 100, 20, rowsOutput)
	h.press("|")
	v := h.v
	h.typeText("last(range(1e15)") // not yet a filter
	cmd, _ := v.Update(tea.KeyPressMsg{Code: ')', Text: ")"})
	if cmd == nil {
		t.Fatal("no run")
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- findJQ(cmd()) }()
	h.press("backspace") // the next edit cancels it
	select {
	case msg := <-done:
		res, ok := msg.(jqResultMsg)
		if !ok || !errors.Is(res.err, context.Canceled) {
			t.Fatalf("the run ended with %#v", msg)
		}
		h.exec(func() tea.Msg { return msg })
		h.mustNotContain("context canceled")
	case <-time.After(time.Minute): // generous: it ends at once
		t.Fatal("the runaway filter was not canceled")
	}
}

// findJQ is the jq result among what a batch makes.
func findJQ(msg tea.Msg) tea.Msg {
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			if c == nil {
				continue
			}
			if m := findJQ(c()); m != nil {
				return m
			}
		}
		return nil
	}
	if _, ok := msg.(jqResultMsg); ok {
		return msg
	}
	return nil
}

// TestRunJQ: the shared runner yields every value, numbers exact.
func TestRunJQ(t *testing.T) {
	code, err := CompileJQ(".[] | . + 0")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = RunJQ(context.Background(), code, []byte(`[1, 12345678901234567890]`), func(v any) error {
		got = append(got, strings.TrimSpace(Pretty(mustJSON(t, v))))
		return nil
	})
	if err != nil || strings.Join(got, " ") != "1 12345678901234567890" {
		t.Fatalf("%v %q", err, got)
	}
}
