package tui

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// fixedResult is a call result with every part a result view shows.
func fixedResult() *tooling.Result {
	return &tooling.Result{
		CallID: "call-1", Tool: "demo.echo", Origin: tooling.OriginUI, Status: "ok",
		Output:  json.RawMessage(`{"text":"hi hi","length":5,"nested":{"list":[1,2.5,true,null],"empty":{}}}`),
		Started: fixedTime, Wait: 12 * time.Microsecond, Run: 1234 * time.Microsecond, Timeout: 30 * time.Second,
		Governance: []tooling.Decision{{Step: "timeout", Detail: "30s (config default)"}},
	}
}

func fixedFailure() *tooling.Result {
	return &tooling.Result{
		CallID: "call-2", Tool: "demo.slow", Origin: tooling.OriginUI, Status: "error", Code: codes.Timeout,
		Message: "demo.slow timed out after 500ms (deadline 500ms)", Abandoned: true,
		Hint:    "the tool ignored its context and still runs; it is counted in Stats().Abandoned until it returns",
		Started: fixedTime, Run: 500 * time.Millisecond, Timeout: 500 * time.Millisecond,
		Governance: []tooling.Decision{{Step: "timeout", Detail: "500ms (tool)"}},
	}
}

// screens opens each screen the golden files show.
var goldenScreens = []struct {
	name string
	open func(t *testing.T, h *harness)
}{
	{"list", func(t *testing.T, h *harness) {}},
	{"list_filtered", func(t *testing.T, h *harness) { h.press("/"); h.typeText("demo n"); h.press("enter", "2") }},
	{"detail", func(t *testing.T, h *harness) { openDetail(t, h, "demo.write_note") }},
	{"detail_mcp", func(t *testing.T, h *harness) { openDetail(t, h, "demo.echo"); h.press("tab", "tab", "tab") }},
	{"run", func(t *testing.T, h *harness) { openRun(t, h, "demo.echo", "") }},
	{"result", func(t *testing.T, h *harness) { openRun(t, h, "demo.echo", ""); h.m.run.finish(fixedResult()) }},
	{"run_idempotent", func(t *testing.T, h *harness) {
		var runs atomic.Int64
		if err := h.m.c.reg.Add(keyedTool(&runs)); err != nil {
			t.Fatal(err)
		}
		openRun(t, h, "demo.charge", `{"amount":5}`)
		h.press("ctrl+g")
		h.typeText("order-17")
		h.press("enter")
	}},
	{"result_replayed", func(t *testing.T, h *harness) {
		openRun(t, h, "demo.echo", "")
		res := fixedResult()
		res.Replayed = true
		res.Governance = append(res.Governance, tooling.Decision{Step: "idempotency", Detail: "replayed the outcome of call-0"})
		h.m.run.finish(res)
	}},
	{"result_error", func(t *testing.T, h *harness) { openRun(t, h, "demo.slow", ""); h.m.run.finish(fixedFailure()) }},
	{"confirm", func(t *testing.T, h *harness) {
		openRun(t, h, "demo.write_note", `{"key":"k","note":"n"}`)
		h.press("ctrl+s")
	}},
	{"confirm_long", func(t *testing.T, h *harness) {
		openRun(t, h, "demo.write_note", string(longArgs()))
		h.press("ctrl+s", "j", "j")
	}},
	{"board", func(t *testing.T, h *harness) { h.m.c.governance = fixedGovernance; h.press("B") }},
	{"history", func(t *testing.T, h *harness) {
		h.m.c.history = []*callRecord{
			{seq: 1, tool: "demo.echo", args: json.RawMessage(`{"text":"hi"}`), result: fixedResult()},
			{seq: 2, tool: "demo.slow", args: json.RawMessage(`{"ms":1000}`), result: fixedFailure()},
			{seq: 3, tool: "demo.write_note", args: json.RawMessage(`{"key":"k","note":"n"}`), consent: true},
		}
		h.press("H", "c")
	}},
	{"history_kept", func(t *testing.T, h *harness) {
		h.m.c.store = keptStore(t, 30)
		h.m.c.history = []*callRecord{{seq: 1, tool: "demo.echo", args: json.RawMessage(`{"text":"hi"}`), result: fixedResult(), started: fixedTime}}
		h.press("H", "/")
		h.typeText("echo")
	}},
	{"history_call", func(t *testing.T, h *harness) { h.m.c.store = keptStore(t, 3); h.press("H", "j", "enter") }},
	{"history_saved", func(t *testing.T, h *harness) {
		h.m.c.saved = history.OpenSaved(filepath.Join(t.TempDir(), "saved.json"))
		for _, name := range []string{"greeting", "slow one"} {
			if err := h.m.c.saved.Save(history.Saved{Name: name, Tool: "demo.echo", Args: json.RawMessage(`{"text":"` + name + `"}`)}, nil); err != nil {
				t.Fatal(err)
			}
		}
		h.press("H", "tab")
	}},
	{"history_prompt", func(t *testing.T, h *harness) {
		h.m.c.saved = history.OpenSaved(filepath.Join(t.TempDir(), "saved.json"))
		h.m.c.history = []*callRecord{{seq: 1, tool: "demo.echo", args: json.RawMessage(`{"text":"hi"}`), result: fixedResult(), started: fixedTime}}
		h.press("H", "s")
	}},
	{"runs", func(t *testing.T, h *harness) {
		slow := &activeRun{seq: 1, tool: "demo.slow", args: json.RawMessage(`{"ms":60000}`), started: fixedTime.Add(-2500 * time.Millisecond)}
		slow.progress.Store(&tooling.Progress{Done: 300, Total: 1000, Message: "slept 300 ms"})
		note := &activeRun{seq: 2, tool: "demo.write_note", started: fixedTime.Add(-1500 * time.Millisecond), queued: true, waiting: true,
			waitingOn: `waiting for resource "notes" held by demo.write_note (call-0)`}
		done := &activeRun{seq: 3, tool: "demo.echo", result: fixedResult()}
		h.m.c.runs = []*activeRun{slow, note, done}
		h.press("R")
	}},
	{"help", func(t *testing.T, h *harness) { h.press("?") }},
	{"list_problems", func(t *testing.T, h *harness) { loadProblems(h) }},
	{"problems", func(t *testing.T, h *harness) { loadProblems(h); h.press("P") }},
	{"palette", func(t *testing.T, h *harness) { h.press("H", ":") }},
	{"palette_filtered", func(t *testing.T, h *harness) { h.press(":"); h.typeText("ec") }},
	{"ledger", func(t *testing.T, h *harness) {
		h.m.c.ledger = &fixedLedger{entries: fixedLedgerEntries()}
		h.press("E")
	}},
	{"ledger_filtered", func(t *testing.T, h *harness) {
		h.m.c.ledger = &fixedLedger{entries: fixedLedgerEntries()}
		h.press("E", "G", "u", "/")
		h.typeText("slow")
		h.press("enter")
	}},
	{"ledger_record", func(t *testing.T, h *harness) {
		h.m.c.ledger = &fixedLedger{entries: fixedLedgerEntries()}
		h.press("E", "j", "j", "enter")
	}},
}

// sampleProblems are load problems as the command line passes them on.
var sampleProblems = []string{
	`tools file /srv/mcp/tools.json: tool 2 "send_mail": input schema does not compile: pattern at /properties/to: not a valid ECMAScript regular expression: error parsing regexp: missing closing ) in ` + "`(?<=x`",
	`tools file /srv/mcp/tools.json: tool 5 "bad name!": an MCP tool name is 1 to 128 letters, digits, '_', '-' or '.'`,
	`config: whitelist names "demo.nope", which matches no tool`,
}

// loadProblems gives the console the sample load problems, as
// Options.Problems does when it opens.
func loadProblems(h *harness) {
	h.m.c.problems = sampleProblems
	h.m.list.keys.Problems.SetEnabled(true)
}

func TestGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, s := range goldenScreens {
			name := fmt.Sprintf("%s_%dx%d", s.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				h := newHarness(t, newTestRegistry(t), size[0], size[1])
				s.open(t, h)
				golden(t, name, h.view())
			})
		}
	}
}

// TestViewFitsTheTerminal checks every screen at sizes from tiny to wide:
// exactly as many lines as the terminal has, none wider than it.
func TestViewFitsTheTerminal(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}, {120, 40}, {40, 12}, {20, 5}} {
		for _, s := range goldenScreens {
			h := newHarness(t, newTestRegistry(t), 80, 24)
			s.open(t, h)
			h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]}) // resized after it opened
			lines := strings.Split(h.m.render(), "\n")
			if len(lines) != size[1] {
				t.Errorf("%s at %dx%d: %d lines", s.name, size[0], size[1], len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > size[0] {
					t.Errorf("%s at %dx%d: line %d is %d wide: %q", s.name, size[0], size[1], i, w, ansi.Strip(l))
				}
			}
		}
	}
}

var colourSGR = regexp.MustCompile(`\x1b\[[0-9;]*(38|48);[0-9;]*m`)

func TestNoColor(t *testing.T) {
	for _, s := range goldenScreens {
		h := newHarness(t, newTestRegistry(t), 100, 30)
		s.open(t, h)
		if m := colourSGR.FindString(h.m.render()); m != "" {
			t.Errorf("%s: colour %q with NoColor", s.name, m)
		}
	}
	reg := newTestRegistry(t)
	m := New(reg, Options{})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	if !colourSGR.MatchString(m.render()) {
		t.Error("no colour without NoColor")
	}
	if got := highlightJSON(newStyles(true), []byte(`{"a":[1,true,null,"s"]}`)); got != "{\n  \"a\": [\n    1,\n    true,\n    null,\n    \"s\"\n  ]\n}" {
		t.Errorf("plain JSON = %q", got)
	}
	coloured := highlightJSON(newStyles(false), []byte(`{"a":[1,true,null,"s"]}`))
	if ansi.Strip(coloured) != "{\n  \"a\": [\n    1,\n    true,\n    null,\n    \"s\"\n  ]\n}" || !colourSGR.MatchString(coloured) {
		t.Errorf("coloured JSON = %q", coloured)
	}
}

func TestViewSettings(t *testing.T) {
	m := New(newTestRegistry(t), Options{NoColor: true})
	v := m.View()
	if !v.AltScreen || v.MouseMode != tea.MouseModeCellMotion || v.WindowTitle != "toolexplorer" {
		t.Errorf("view: alt screen %v, mouse %v, title %q", v.AltScreen, v.MouseMode, v.WindowTitle)
	}
}

func TestHelpOnEveryScreen(t *testing.T) {
	for _, tc := range []struct {
		name  string
		open  func(t *testing.T, h *harness)
		key   string
		title string
		has   string
	}{
		{"list", func(*testing.T, *harness) {}, "?", "Keys · Tools", "Badges"},
		{"detail", func(t *testing.T, h *harness) { openDetail(t, h, "demo.echo") }, "?", "Keys · demo.echo", "next pane"},
		{"run", func(t *testing.T, h *harness) { openRun(t, h, "demo.echo", "") }, "f1", "Keys · Run demo.echo", "raw JSON"},
		{"filter", func(t *testing.T, h *harness) { h.press("/") }, "f1", "Keys · Tools", "keep filter"},
		{"result", func(t *testing.T, h *harness) { openRun(t, h, "demo.echo", ""); h.m.run.finish(fixedResult()) }, "?", "Keys · Run demo.echo", "edit the arguments"},
		{"history", func(t *testing.T, h *harness) { h.press("H") }, "?", "Keys · History", "copy as Go"},
		{"saved", func(t *testing.T, h *harness) { h.press("H", "tab") }, "?", "Keys · Saved calls", "run the saved call"},
		{"call", func(t *testing.T, h *harness) { h.m.c.store = keptStore(t, 1); h.press("H", "enter") }, "?", "Keys · Call of demo.slow", "re-run the call"},
		{"board", func(t *testing.T, h *harness) { h.press("B") }, "?", "Keys · Governance", "pause/resume"},
		{"runs", func(t *testing.T, h *harness) { h.press("R") }, "?", "Keys · Runs", "cancel the call"},
		{"ledger", func(t *testing.T, h *harness) {
			h.m.c.ledger = &fixedLedger{entries: fixedLedgerEntries()}
			h.press("E")
		}, "?", "Keys · Ledger", "only the calls of this subject"},
		{"ledger search", func(t *testing.T, h *harness) {
			h.m.c.ledger = &fixedLedger{entries: fixedLedgerEntries()}
			h.press("E", "/")
		}, "f1", "Keys · Ledger", "keep the search"},
		{"ledger record", func(t *testing.T, h *harness) {
			h.m.c.ledger = &fixedLedger{entries: fixedLedgerEntries()}
			h.press("E", "enter")
		}, "?", "Keys · Record of mcp-3", "back to the ledger"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, newTestRegistry(t), 120, 40)
			tc.open(t, h)
			h.press(tc.key)
			h.mustContain(tc.title, tc.has)
			if h.m.top().Typing() {
				// Letters type: the help names only the keys that act.
				h.mustContain("f1 full help", "ctrl+c quit", "?, q, H, B, R, S, E, V, : and ~ type into it")
				h.mustNotContain("governance board", "q      quit")
			} else {
				h.mustContain("governance board")
			}
			h.press("pgdown") // the longest help (the list's) ends below the screen
			h.mustContain("esc or ? closes this help")
			h.press("esc")
			h.mustNotContain("esc or ? closes this help")
		})
	}
}
