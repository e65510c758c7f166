package tui

import (
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// TestPaletteGoesToATool: : opens the palette over the screens, actions
// and tools; typing narrows it fuzzily; enter opens the tool's form from
// wherever the palette was opened, over the tool list.
func TestPaletteGoesToATool(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 40)
	h.press("H")
	h.press(":")
	if h.m.palette == nil {
		t.Fatal(": opened no palette")
	}
	h.mustContain("a tool, a screen or an action", "Tools", "History", "Ledger", "Next origin", "screen", "action")
	h.typeText("wrnote") // a subsequence of demo.write_note
	if e := h.m.palette.entries[h.m.palette.shown[0]]; e.name != "demo.write_note" {
		t.Fatalf("the best match of wrnote is %s", e.name)
	}
	h.press("enter")
	if h.m.palette != nil || h.m.top() != h.m.run || h.m.run.tool.Name != "demo.write_note" {
		t.Fatalf("enter did not open the form of demo.write_note: top %s", h.m.top().Title())
	}
	h.mustContain("toolexplorer › Tools › Run demo.write_note")
}

// TestPaletteScreensAndActions: screens and actions are found by name;
// ctrl+p opens the palette while a text field has the focus, where : is
// typed; esc closes it and does nothing.
func TestPaletteScreensAndActions(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 40)
	h.press(":")
	h.typeText("ledger")
	h.press("enter")
	if h.m.top() != h.m.ledger {
		t.Fatalf("the palette's ledger opened %s", h.m.top().Title())
	}

	openRun(t, h, "demo.echo", "")
	h.typeText("a:b")
	if h.m.palette != nil {
		t.Fatal(": typed in a text field opened the palette")
	}
	h.press("ctrl+p")
	if h.m.palette == nil {
		t.Fatal("ctrl+p in a text field opened no palette")
	}
	h.typeText("hist")
	h.press("enter")
	if h.m.top() != h.m.history {
		t.Fatalf("the palette's history opened %s", h.m.top().Title())
	}

	h.press(":")
	h.typeText("next origin")
	h.press("enter")
	if h.m.c.origin == tooling.OriginUI || h.m.top() != h.m.list {
		t.Fatalf("next origin: origin %s, top %s", h.m.c.origin, h.m.top().Title())
	}

	h.press(":")
	h.typeText("quit")
	h.press("esc")
	if h.m.palette != nil || h.m.quitAsk != nil {
		t.Fatal("esc did not just close the palette")
	}
	h.press(":")
	h.typeText("zzzzqqq")
	h.mustContain("nothing matches")
	h.press("enter")
	if h.m.palette != nil || h.m.top() != h.m.list {
		t.Fatal("enter on nothing did something")
	}
}

// TestToolsKey: ~ goes straight back to the tool list from any screen,
// however deep; in a text field it is typed.
func TestToolsKey(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 40)
	h.m.c.store = keptStore(t, 3)
	h.press("H", "enter")
	h.mustContain("Tools › History › Call of")
	h.press("~")
	if len(h.m.stack) != 1 || h.m.top() != h.m.list {
		t.Fatalf("~ left %d screens, %s on top", len(h.m.stack), h.m.top().Title())
	}
	openRun(t, h, "demo.echo", "")
	h.typeText("~")
	if h.m.top() != h.m.run {
		t.Fatal("~ typed in a field left the form")
	}
	h.mustContain("~")
	h.press("esc", "~")
	if h.m.top() != h.m.list {
		t.Fatalf("~ from the detail-less stack: %s on top", h.m.top().Title())
	}
}

// TestGlobalKeysShadowNoScreenKey: a key of every screen (q, ?, H, ...)
// acts before the screen sees it, so no screen may use it for one of its
// own: it would never reach the screen.
func TestGlobalKeysShadowNoScreenKey(t *testing.T) {
	g := newGlobalKeys()
	global := map[string]string{}
	for _, b := range []key.Binding{g.Quit, g.Help, g.History, g.Board, g.Runs, g.Servers, g.Ledger, g.Tools, g.Palette, g.PaletteAlways, g.HelpAlways, g.ForceQuit} {
		for _, k := range b.Keys() {
			global[k] = b.Help().Desc
		}
	}
	dialogs := []string{"Every screen", "Consent dialog", "Quit dialog", "Command palette", "Arguments form as raw JSON (ctrl+r)", "Arguments as raw JSON (a schema the form cannot read)"}
	for _, s := range keyScreens() {
		if slices.Contains(dialogs, s.name) {
			continue
		}
		for _, col := range s.km.FullHelp() {
			for _, b := range col {
				for _, k := range b.Keys() {
					if desc, ok := global[k]; ok {
						t.Errorf("%s: %q (%s) is the key of every screen for %q", s.name, k, b.Help().Desc, desc)
					}
				}
			}
		}
	}
}

// TestPaletteHelp: the footer and the full help name the palette and the
// way back to the tool list.
func TestPaletteHelp(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 40)
	h.press("?")
	h.mustContain(":      command palette", "ctrl+p command palette", "~      back to the tool list")
	h.press("esc", ":")
	if v := h.view(); !strings.Contains(v, "enter go") || !strings.Contains(v, "esc close") {
		t.Fatalf("the palette's footer:\n%s", v)
	}
}
