package tui

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// keyedTool takes idempotency keys and counts its runs.
func keyedTool(runs *atomic.Int64) tooling.Tool {
	return tooling.Tool{
		Name: "demo.charge", Title: "Charge", Description: "Charges an amount, once per idempotency key.",
		Input: json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer","minimum":1}},"required":["amount"]}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, IdempotencyKeys: true},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			return map[string]any{"charged": callargs.Int(c.Args, "amount"), "run": runs.Add(1)}, nil
		},
	}
}

// TestPreflightLive: the form shows the preflight of the arguments as
// they are typed, each step with would pass or would refuse and its code:
// beside the form on a wide terminal, below it (ctrl+l) on a narrow one.
func TestPreflightLive(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 40)
	openRun(t, h, "demo.echo", "")
	h.mustContain("preflight (as ui): ✗ would be refused at validation (validation_error)", "Preflight (ctrl+l hides)",
		"✓ look-up", "✓ availability", "✗ validation   validation_error: ")
	h.typeText("hi")
	h.mustContain("preflight (as ui): ✓ would run", "✓ validation", "✓ consent", "✓ timeout")
	h.mustNotContain("would be refused")
	h.press("ctrl+l")
	h.mustNotContain("Preflight (ctrl+l hides)", "✓ validation")
	h.mustContain("✓ would run")

	n := newHarness(t, newTestRegistry(t), 80, 24)
	openRun(t, n, "demo.echo", `{"text":"hi"}`)
	n.mustContain("✓ would run")
	n.mustNotContain("✓ look-up")
	n.press("ctrl+l")
	n.mustContain("✓ look-up", "✓ validation")
}

// TestPreflightAsTheConsole: the preflight is that of the console's
// origin and principal, and counts consent as given by its dialog.
func TestPreflightAsTheConsole(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 40)
	h.m.c.origin = tooling.OriginLLM
	h.m.c.principal = tooling.Principal{Subject: "alice", Auth: "asserted"}
	openRun(t, h, "demo.ui_only", `{}`)
	h.mustContain("preflight (as llm · alice): ✗ would be refused at origin (origin_denied)", "✗ origin")
	h.m.c.origin = tooling.OriginUI
	openRun(t, h, "demo.write_note", `{"key":"k","note":"n"}`)
	h.mustContain("✓ would run", "✓ consent      asked in a dialog before the")
}

// TestPreflightNeverHoldsTyping: a preflight that cannot end (the tool's
// availability check waits) holds no key: Update returns at once, what is
// typed shows, and the answer for older input is dropped when it comes:
// the latest input wins.
func TestPreflightNeverHoldsTyping(t *testing.T) {
	reg := newTestRegistry(t)
	release, asked := make(chan struct{}), make(chan struct{}, 16)
	if err := reg.Add(tooling.Tool{Name: "demo.stuck", Title: "Stuck",
		Input: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly},
		Available: func(ctx context.Context, _ tooling.Call) error {
			asked <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil
		},
		Run: func(context.Context, tooling.Call) (any, error) { return nil, nil },
	}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, reg, 120, 40)
	var ticks []explainTickMsg
	h.m.c.explainTimer = func(gen int) tea.Cmd { ticks = append(ticks, explainTickMsg{gen: gen}); return nil }
	openRun(t, h, "demo.stuck", `{}`)

	// update hands msg to the model in a goroutine of its own, and fails
	// when it does not return: a key that waited for the preflight.
	update := func(msg tea.Msg) tea.Cmd {
		t.Helper()
		done := make(chan tea.Cmd, 1)
		go func() { _, cmd := h.m.Update(msg); done <- cmd }()
		select {
		case cmd := <-done:
			return cmd
		case <-time.After(10 * time.Second):
			t.Fatalf("Update held by the preflight of %T", msg)
			return nil
		}
	}
	first := update(ticks[len(ticks)-1]) // the pause after opening: the preflight is asked
	if first == nil {
		t.Fatal("no preflight asked")
	}
	results := make(chan tea.Msg, 4)
	go func() { results <- first() }()
	<-asked // the preflight waits in the availability check
	for _, r := range "abc" {
		update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	if v := h.view(); !strings.Contains(v, "abc") || !strings.Contains(v, "checking…") {
		t.Fatalf("what was typed does not show, or the preflight is not said to be checking:\n%s", v)
	}
	// The newest input's preflight is asked too; the older one is canceled.
	second := update(ticks[len(ticks)-1])
	go func() { results <- second() }()
	<-asked
	close(release)
	for range 2 {
		msg := <-results
		d := msg.(explainDoneMsg)
		update(d)
		if d.gen != h.m.run.pre.gen && h.m.run.pre.res == d.res {
			t.Fatalf("the preflight of older input (gen %d) was taken over the latest (gen %d)", d.gen, h.m.run.pre.gen)
		}
	}
	h.mustContain("✓ would run")
	h.mustNotContain("checking…")
}

// TestIdempotencyKeyField: a tool that takes idempotency keys gets a
// field for one (ctrl+g); the call carries it, and a repeat with the same
// key and arguments is shown replayed, without running the tool. A tool
// that takes none has no such field.
func TestIdempotencyKeyField(t *testing.T) {
	reg := newTestRegistry(t)
	var runs atomic.Int64
	if err := reg.Add(keyedTool(&runs)); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, reg, 120, 40)
	openRun(t, h, "demo.charge", `{"amount":5}`)
	h.mustContain("idempotency key: none · ctrl+g sets one", "ctrl+g key")
	h.press("ctrl+g")
	if !h.m.top().Typing() {
		t.Fatal("the key's field does not take text")
	}
	h.typeText("order-17")
	h.press("enter")
	h.mustContain("idempotency key: order-17")
	h.press("ctrl+s")
	res := h.runDone(1)
	if !res.OK() || res.Replayed || runs.Load() != 1 {
		t.Fatalf("first call: %+v, %d runs", res, runs.Load())
	}
	h.press("e")
	h.mustContain("↺ would replay an earlier call with this idempotency key", "↺ idempotency")
	h.press("ctrl+s")
	res = h.runDone(2)
	if !res.Replayed || runs.Load() != 1 {
		t.Fatalf("the repeat was not replayed: %+v, %d runs", res, runs.Load())
	}
	h.mustContain("✓ ok ↺ replayed · demo.charge")

	// Another key runs it again.
	h.press("e", "ctrl+g", "ctrl+u")
	h.typeText("order-18")
	h.press("ctrl+s")
	if res = h.runDone(3); res.Replayed || runs.Load() != 2 {
		t.Fatalf("a new key was replayed: %+v, %d runs", res, runs.Load())
	}

	openRun(t, h, "demo.echo", `{"text":"hi"}`)
	h.mustNotContain("idempotency key")
	h.press("ctrl+g")
	if h.m.top().Typing() && h.m.run.idem.Focused() {
		t.Fatal("ctrl+g focused a key field on a tool that takes none")
	}
}
