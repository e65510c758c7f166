package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/history/collection"
)

// alt+s saves the call being edited, its {{references}} and idempotency
// key kept, in the folder its name gives; the saved calls list them
// folder by folder; x exports them as a collection file that collection
// run reads, i imports one, and enter makes a saved call again with its
// key.
func TestCollectionsInTheConsole(t *testing.T) {
	dir := t.TempDir()
	saved := history.OpenSaved(filepath.Join(dir, ".toolexplorer", "saved.json"))
	reg := newTestRegistry(t)
	var runs atomic.Int64
	if err := reg.Add(keyedTool(&runs)); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, reg, Options{Saved: saved, Environments: testEnvironments()}, 120, 30)
	openRun(t, h, "demo.echo", `{"text":"{{base}}/orders"}`)
	h.press("alt+s")
	if h.m.prompt == nil {
		t.Fatal("alt+s in the form asks for no name")
	}
	h.typeText("orders/list orders")
	h.press("enter")
	h.mustContain(`saved as "orders/list orders"`)
	openRun(t, h, "demo.charge", `{"amount":5}`)
	h.press("ctrl+g")
	h.typeText("k-1")
	h.press("enter", "alt+s")
	h.typeText("pay/charge")
	h.press("enter")
	list, err := saved.List()
	if err != nil || len(list) != 2 || list[1].Path() != "pay/charge" || list[1].IdempotencyKey != "k-1" || string(list[0].Args) != `{"text":"{{base}}/orders"}` {
		t.Fatalf("saved %+v, %v", list, err)
	}
	h.press("esc", "H", "tab")
	h.mustContain("Saved (2)", "FOLDER/NAME", "orders/list orders", "pay/charge", "demo.charge")

	out := filepath.Join(dir, "team.yaml")
	h.press("x", "ctrl+u")
	h.typeText(out)
	h.press("enter")
	h.mustContain("exported 2 saved calls to " + out)
	f, err := collection.Read(out)
	if err != nil || len(f.Calls) != 2 || f.Calls[0].Path() != "orders/list orders" {
		t.Fatalf("the exported collection: %+v, %v", f, err)
	}

	in := filepath.Join(dir, "more.json")
	if err := os.WriteFile(in, []byte(`{"calls": [{"name": "ping", "folder": "checks", "tool": "demo.echo", "args": {"text": "pong"}, "expect": {"jq": [".text == \"pong\""]}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	h.press("i", "ctrl+u")
	h.typeText(in)
	h.press("enter")
	h.mustContain("imported 1 call from "+in, "Saved (3)", "checks/ping")

	// pay/charge is the last row: made again with its key, twice, it runs
	// once.
	h.press("G", "enter")
	if res := h.runDone(1); !res.OK() || runs.Load() != 1 {
		t.Fatalf("the saved call: %+v", res)
	}
	h.press("H", "tab", "G", "enter")
	if res := h.runDone(2); !res.Replayed || runs.Load() != 1 {
		t.Fatalf("the saved call made again: replayed %v, %d runs", res.Replayed, runs.Load())
	}
	h.press("H", "tab")
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		golden(t, fmt.Sprintf("history_collections_%dx%d", size[0], size[1]), h.view())
	}
}
