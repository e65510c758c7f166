package tui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// A console call of a tool that echoes its secret argument is shown as it
// came back, and kept in the history file with the secret redacted in the
// output as in the arguments.
func TestKeptCallHasNoEchoedSecret(t *testing.T) {
	reg := newTestRegistry(t)
	if err := reg.Add(tooling.Tool{
		Name: "demo.login", Description: "Echoes its arguments.",
		Input: json.RawMessage(`{"type":"object","properties":{"user":{"type":"string"},"password":{"type":"string"},"otp":{"type":"string","writeOnly":true}}}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			return map[string]any{"echo": "user " + callargs.String(c.Args, "user") + " password " + callargs.String(c.Args, "password"), "otp": callargs.String(c.Args, "otp")}, nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "history.jsonl")
	h := newHarnessWith(t, reg, Options{History: history.Open(path)}, 100, 30)
	openRun(t, h, "demo.login", `{"user":"bob","password":"hunter2","otp":"981273"}`)
	h.press("ctrl+s")
	if res := h.runDone(1); !strings.Contains(string(res.Output), "hunter2") {
		t.Fatalf("the result on screen lost the output: %s", res.Output)
	}
	var raw []byte
	for deadline := time.Now().Add(30 * time.Second); len(raw) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the call was not kept")
		}
		raw, _ = os.ReadFile(path)
	}
	for _, leak := range []string{"hunter2", "981273"} {
		if strings.Contains(string(raw), leak) {
			t.Errorf("%s reached the history file:\n%s", leak, raw)
		}
	}
	if !strings.Contains(string(raw), "user bob password [redacted]") {
		t.Errorf("the output is not kept, redacted:\n%s", raw)
	}
}

// A call made with an idempotency key keeps it: in the history file, in
// the command line copied from it, and when it is made again from the
// history, in this session or a later one, so that the tool replays the
// outcome rather than run twice.
func TestKeptCallKeepsItsIdempotencyKey(t *testing.T) {
	reg := newTestRegistry(t)
	var runs atomic.Int64
	if err := reg.Add(keyedTool(&runs)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "history.jsonl")
	store := history.Open(path)
	h := newHarnessWith(t, reg, Options{History: store}, 120, 40)
	openRun(t, h, "demo.charge", `{"amount":5}`)
	h.press("ctrl+g")
	h.typeText("order-17")
	h.press("enter", "ctrl+s")
	if res := h.runDone(1); !res.OK() || runs.Load() != 1 {
		t.Fatalf("first call: %+v", res)
	}
	var kept []history.Entry
	for deadline := time.Now().Add(30 * time.Second); len(kept) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the call was not kept")
		}
		kept, _ = store.Last(1, nil)
	}
	if kept[0].IdempotencyKey != "order-17" {
		t.Fatalf("the history keeps the key %q, want order-17", kept[0].IdempotencyKey)
	}
	rec := h.m.c.record(1)
	if cl := commandLine(rec, nil, h.m.c); !strings.Contains(cl, " --idempotency-key 'order-17'") {
		t.Errorf("the command line drops the key: %s", cl)
	}
	if gc := goCall(rec, nil, h.m.c); !strings.Contains(gc, `tooling.WithIdempotencyKey("order-17")`) {
		t.Errorf("the Go call drops the key: %s", gc)
	}

	// Another key in the form, then r on the call in the history: the
	// call's own key goes back into the form, and the tool does not run.
	h.press("e", "ctrl+g", "ctrl+u")
	h.typeText("other")
	h.press("enter", "esc", "H", "r")
	if res := h.runDone(2); !res.Replayed || runs.Load() != 1 {
		t.Fatalf("made again from the history: replayed %v, %d runs, key in the form %q", res.Replayed, runs.Load(), h.m.run.idem.Value())
	}

	// A later session makes the kept call again with its key.
	later := newHarnessWith(t, reg, Options{History: store}, 120, 40)
	later.press("H")
	later.mustContain("demo.charge")
	later.press("r")
	if res := later.runDone(1); !res.Replayed || runs.Load() != 1 {
		t.Fatalf("a kept call made again: replayed %v, %d runs", res.Replayed, runs.Load())
	}
}
