package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// tick sends a frame of the console's spinner, as the runtime does every
// few tens of milliseconds while calls run: the runs are polled.
func tick(h *harness) { h.send(spinner.TickMsg{ID: h.m.c.spin.ID()}) }

// A call started in the console does not hold it: b leaves it running,
// another call runs and ends meanwhile, the runs panel (R) lists both, and
// enter follows the one in flight, where esc cancels it.
func TestRunsInTheBackground(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	openRun(t, h, "demo.slow", `{"ms":60000}`)
	h.press("ctrl+s")
	h.mustContain("esc cancels the call · b goes back and leaves it running")
	h.press("b")
	if h.m.run.busy() || h.m.top() == h.m.run || h.m.c.runOf(1) == nil || !h.m.c.runOf(1).running() {
		t.Fatal("b does not go back and leave the call running in the background")
	}
	h.mustContain("call 1 of demo.slow runs in the background")
	openRun(t, h, "demo.echo", `{"text":"meanwhile"}`)
	h.press("ctrl+s")
	if res := h.runDone(2); !res.OK() {
		t.Fatalf("a call beside one in flight: %s %s", res.Code, res.Message)
	}
	h.mustContain(`"text": "meanwhile"`, "demo.slow 0s") // the one in flight, in the header
	h.press("R")
	if h.m.top() != h.m.runs {
		t.Fatal("R does not open the runs panel")
	}
	h.mustContain("Runs · 1 call in flight, 1 ended this session", "1  demo.slow", "running", "2  demo.echo", "✓ ok")
	if v := h.view(); strings.Index(v, "2  demo.echo") > strings.Index(v, "1  demo.slow") {
		t.Errorf("the newest call is not listed first:\n%s", v)
	}
	h.press("j", "enter")
	if h.m.top() != h.m.run || !h.m.run.busy() || h.m.run.seq != 1 || h.m.run.tool.Name != "demo.slow" {
		t.Fatal("enter does not follow the call in flight")
	}
	h.mustContain("Run demo.slow", `arguments {"ms":60000}`)
	h.press("esc")
	if res := h.runDone(1); res.Code != codes.Canceled {
		t.Fatalf("esc on the followed call: %s", res.Code)
	}
	h.mustContain("✗ error canceled · demo.slow")
	h.press("R", "enter") // an ended call opens its request and result
	if h.m.top() != h.m.call || h.m.call.rec.seq != 2 {
		t.Fatal("enter on an ended call does not open it")
	}
}

// gatedTools are an exclusive tool whose calls report progress, then hold
// their lock until release is closed or they are canceled.
func gatedTools(release <-chan struct{}) []tooling.Tool {
	return []tooling.Tool{{
		Name: "demo.excl", Title: "Exclusive", Description: "One call at a time.",
		Meta: tooling.Meta{Concurrency: tooling.Exclusive, Timeout: time.Hour},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			c.ReportProgress(1, 4, "warming up")
			select {
			case <-release:
				return map[string]any{"done": true}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	}}
}

// Two background calls of an exclusive tool: the runs panel and the board
// show one running and one queued behind it; x in the panel cancels the
// queued one.
func TestExclusiveCallsQueueInTheBackground(t *testing.T) {
	release := make(chan struct{})
	reg := newTestRegistry(t)
	for _, tool := range gatedTools(release) {
		if err := reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t, reg, 120, 30)
	for range 3 {
		openRun(t, h, "demo.excl", "")
		h.press("ctrl+s", "b")
	}
	// A barrier, not a clock: the registry says when call 1 holds the lock
	// and calls 2 and 3 wait for it.
	deadline := time.Now().Add(time.Minute)
	for {
		g := reg.Stats()
		if len(g.Locks) == 1 && g.Locks[0].Holder != nil && g.Locks[0].Holder.ID == "call-1" && len(g.Locks[0].Waiters) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the calls never queued: %+v", g.Locks)
		}
		time.Sleep(time.Millisecond)
	}
	tick(h)
	h.press("R")
	h.mustContain("Runs · 3 calls in flight", "3 calls running (R)", "1  demo.excl", "running", "25% (1 of 4) · warming up",
		"2  demo.excl", "queued", `waiting for resource "demo.excl" held by demo.excl (call-1)`)
	h.press("B")
	h.mustContain("held by demo.excl (call-1)", "waiting: demo.excl (call-2), demo.excl (call-3)")
	h.press("esc")
	h.press("j", "x")          // the cursor is on call 2 (newest first: 3, 2, 1)
	h.mustContain("canceling") // the row of call 2, until its end comes
	if res := h.runDone(2); res.Code != codes.Canceled {
		t.Fatalf("x: %s", res.Code)
	}
	// The notification replaces the older status; the cursor stays on call 2.
	h.mustContain("call 2 of demo.excl ended: denied canceled", "›    2  demo.excl")
	close(release)
	h.runDone(1)
	h.runDone(3)
	h.mustContain("0 calls in flight, 3 ended")
}

// The rows keep their order as calls end: x cancels the call under the
// cursor, its row stays put, and the next keys act on the rows as seen.
func TestRunsRowsStayPut(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	reg := newTestRegistry(t)
	for _, tool := range gatedTools(release) {
		if err := reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t, reg, 120, 30)
	for range 3 {
		openRun(t, h, "demo.excl", "")
		h.press("ctrl+s", "b")
	}
	h.press("R", "x") // the cursor is on call 3, the newest
	if res := h.runDone(3); res.Code != codes.Canceled {
		t.Fatalf("x: %s", res.Code)
	}
	h.mustContain("›    3  demo.excl")
	v := h.view()
	if i3, i2, i1 := strings.Index(v, "3  demo.excl"), strings.Index(v, "2  demo.excl"), strings.Index(v, "1  demo.excl"); !(i3 < i2 && i2 < i1) {
		t.Errorf("the rows are not in the order of the calls, newest first:\n%s", v)
	}
	h.press("j", "enter")
	if h.m.top() != h.m.run || h.m.run.seq != 2 {
		t.Fatalf("j then enter below the canceled call 3 does not follow call 2")
	}
	h.m.c.cancelAll()
	h.runDone(1)
	h.runDone(2)
}

// A call that ends while the person is elsewhere is a notification in the
// footer; keys do not clear it, its timer does (a newer one's timer does
// not clear the older). Watching the call's own screen, there is none.
func TestBackgroundEndNotifies(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	openRun(t, h, "demo.echo", `{"text":"x"}`)
	h.press("ctrl+s")
	h.runDone(1)
	if h.m.toast != "" {
		t.Fatalf("a call watched to its end notifies: %q", h.m.toast)
	}
	openRun(t, h, "demo.slow", `{"ms":60000}`)
	h.press("ctrl+s", "b", "H")
	h.m.c.runOf(2).stop()
	h.runDone(2)
	h.mustContain("call 2 of demo.slow ended: error canceled")
	h.press("j")
	h.mustContain("call 2 of demo.slow ended: error canceled")
	gen := h.m.toastGen
	h.send(toastExpiredMsg{gen: gen - 1})
	h.mustContain("call 2 of demo.slow ended")
	h.send(toastExpiredMsg{gen: gen})
	h.mustNotContain("call 2 of demo.slow ended")
}

// The runs panel has its help and a footer that fits 80 columns.
func TestRunsPanelEmptyAndHelp(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 80, 24)
	h.press("R")
	h.mustContain("no calls yet", "enter follow • x cancel")
	h.press("?")
	h.mustContain("Keys · Runs", "follow the call (or open its result)", "calls running in the background")
	_ = json.RawMessage(nil)
}

// The footers of the history, saved calls, a call opened, the runs panel,
// a running call and the tool list with tools files fit 80 columns whole:
// shortened, never cut.
func TestFootersFit80Columns(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	reg := newTestRegistry(t)
	for _, tool := range gatedTools(release) {
		if err := reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		opts Options
		open func(h *harness)
	}{
		{"history", Options{}, func(h *harness) { h.press("H") }},
		{"history search", Options{}, func(h *harness) { h.press("H", "/") }},
		{"saved", Options{}, func(h *harness) { h.press("H", "tab") }},
		{"call", Options{}, func(h *harness) { h.m.c.store = keptStore(t, 1); h.press("H", "enter") }},
		{"runs", Options{}, func(h *harness) { h.press("R") }},
		{"running", Options{}, func(h *harness) { openRun(t, h, "demo.excl", ""); h.press("ctrl+s") }},
		{"list with tools files", Options{ToolFiles: &fakeToolFiles{reg: reg}}, func(h *harness) {}},
		{"list with tools files, shadow on", Options{ToolFiles: &fakeToolFiles{reg: reg, shadow: true}}, func(h *harness) {}},
		{"list with tools files and problems", Options{ToolFiles: &fakeToolFiles{reg: reg}, Problems: []string{"a problem"}}, func(h *harness) {}},
	} {
		h := newHarnessWith(t, reg, tc.opts, 80, 24)
		tc.open(h)
		lines := strings.Split(h.view(), "\n")
		footer := lines[len(lines)-1]
		if strings.Contains(footer, "…") || width(footer) > 80 || !strings.HasSuffix(footer, "quit") {
			t.Errorf("%s: the footer is cut: %q", tc.name, footer)
		}
		if tc.opts.ToolFiles != nil && (!strings.Contains(footer, "? help") || !strings.Contains(footer, "W shadow:off") && !strings.Contains(footer, "W shadow:ON")) {
			t.Errorf("%s: the footer leaves out the help or shadow mode's state: %q", tc.name, footer)
		}
		h.m.c.cancelAll()
	}
}

// Quitting with calls in flight names them all; with a history file the
// calls made are not said to be lost.
func TestQuitNamesTheCallsInFlight(t *testing.T) {
	h := newHarnessWith(t, newTestRegistry(t), Options{History: keptStore(t, 1)}, 100, 30)
	for range 2 {
		openRun(t, h, "demo.slow", `{"ms":60000}`)
		h.press("ctrl+s", "b")
	}
	h.press("R", "q")
	h.mustContain("Quitting loses the arguments typed in the forms. The 2 calls", "in flight (demo.slow, demo.slow) are canceled.")
	h.press("y")
	for seq := 1; seq <= 2; seq++ {
		if res := h.runDone(seq); res.Code != codes.Canceled {
			t.Fatalf("call %d: %s", seq, res.Code)
		}
	}
}

// The state column holds the longest codes whole.
func TestRunsStateShowsTheWholeCode(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 30)
	openRun(t, h, "demo.echo", `{"text":1}`)
	h.press("ctrl+s")
	if res := h.runDone(1); res.Code != codes.ValidationError {
		t.Fatalf("code %s, want validation_error", res.Code)
	}
	h.press("esc", "R") // the refused call leaves the form open
	h.mustContain("validation_error ")
	h.mustNotContain("validation_er…")
	if w := width(outcomeBadge(h.m.c.styles, &tooling.Result{Status: "error", Code: codes.SandboxUnavailable})); w > runsStateWidth {
		t.Errorf("the badge of the longest code is %d wide, the column %d", w, runsStateWidth)
	}
}
